#include "fakes/fake_target_database.h"

#include <thread>

namespace lakedump {

class FakeTargetDatabase::Sink final : public TableSink {
 public:
  Sink(FakeTargetDatabase* db, std::string name) : db_(db), name_(std::move(name)) {}
  ~Sink() override { db_->OnSinkClosed(name_, finished_); }
  Status Append(const RowBatch& batch) override {
    LD_RETURN_IF_ERROR(db_->OnAppend(name_, batch));
    rows_ += batch.num_rows();
    return Status::OK();
  }
  Result<uint64_t> Finish() override {
    finished_ = true;
    return rows_;
  }

 private:
  FakeTargetDatabase* db_;
  std::string name_;
  uint64_t rows_ = 0;
  bool finished_ = false;
};

void FakeTargetDatabase::AddExisting(const std::string& name, uint64_t rows) {
  std::lock_guard<std::mutex> lock(mu_);
  existing_[name] = rows;
}

void FakeTargetDatabase::FailAppend(const std::string& name, int n, Status status) {
  std::lock_guard<std::mutex> lock(mu_);
  fail_append_[name] = {n, std::move(status)};
}

void FakeTargetDatabase::FailPrepare(const std::string& name, Status status) {
  std::lock_guard<std::mutex> lock(mu_);
  fail_prepare_[name] = std::move(status);
}

std::unique_ptr<FakeTargetDatabase::TableState> FakeTargetDatabase::Table(
    const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = tables_.find(name);
  if (it == tables_.end()) return nullptr;
  return std::make_unique<TableState>(it->second);
}

std::map<std::string, uint64_t> FakeTargetDatabase::Visible() const {
  std::lock_guard<std::mutex> lock(mu_);
  return existing_;
}

std::vector<std::string> FakeTargetDatabase::Calls() const {
  std::lock_guard<std::mutex> lock(mu_);
  return calls_;
}

Status FakeTargetDatabase::PrepareTable(const TablePlan& plan) {
  std::lock_guard<std::mutex> lock(mu_);
  const std::string name = plan.target.QualifiedName();
  calls_.push_back("prepare " + name);
  TableState& t = tables_[name];
  t.plan = plan;
  if (auto it = fail_prepare_.find(name); it != fail_prepare_.end()) return it->second;
  if (existing_.count(name) && plan.if_exists == LoadIfExists::kFail) {
    return Status::AlreadyExists("table " + name + " already exists");
  }
  t.prepared = true;
  return Status::OK();
}

Result<std::unique_ptr<TableSink>> FakeTargetDatabase::OpenSink(const TablePlan& plan) {
  std::lock_guard<std::mutex> lock(mu_);
  const std::string name = plan.target.QualifiedName();
  TableState& t = tables_[name];
  if (!t.prepared) return Status::Internal("OpenSink before PrepareTable: " + name);
  ++t.sinks_opened;
  t.single_sink = t.single_sink || plan.single_sink;
  ++t.open_sinks;
  t.max_open_sinks = std::max(t.max_open_sinks, t.open_sinks);
  return std::unique_ptr<TableSink>(new Sink(this, name));
}

Status FakeTargetDatabase::OnAppend(const std::string& name, const RowBatch& batch) {
  if (before_append_) before_append_(name);
  std::lock_guard<std::mutex> lock(mu_);
  const int n = ++appends_[name];
  if (auto it = fail_append_.find(name); it != fail_append_.end() && it->second.first == n) {
    return it->second.second;
  }
  TableState& t = tables_[name];
  if (!batch.Validate(t.plan.definition.schema).ok()) {
    return Status::Internal("batch does not match the plan's schema: " + name);
  }
  t.staged_rows += batch.num_rows();
  const Schema& schema = t.plan.definition.schema;
  for (size_t c = 0; c < schema.num_columns(); ++c) {
    if (schema.column(c).name != "id" || schema.column(c).type.id != TypeId::kInt64) continue;
    const ColumnVector& ids = batch.column(c);
    for (size_t i = 0; i < ids.size(); ++i) t.ids.push_back(ids.ValueAt<int64_t>(i));
  }
  return Status::OK();
}

void FakeTargetDatabase::OnSinkClosed(const std::string& name, bool finished) {
  std::lock_guard<std::mutex> lock(mu_);
  TableState& t = tables_[name];
  --t.open_sinks;
  if (finished) ++t.sinks_finished;
}

Status FakeTargetDatabase::CommitTable(const TablePlan& plan) {
  std::lock_guard<std::mutex> lock(mu_);
  const std::string name = plan.target.QualifiedName();
  calls_.push_back("commit " + name);
  TableState& t = tables_[name];
  if (t.open_sinks != 0) return Status::Internal("CommitTable with sinks open: " + name);
  t.committed = true;
  t.committed_rows = t.staged_rows;
  if (plan.if_exists == LoadIfExists::kAppend) {
    existing_[name] += t.staged_rows;
  } else {
    existing_[name] = t.staged_rows;
  }
  return Status::OK();
}

Status FakeTargetDatabase::AbortTable(const TablePlan& plan) {
  std::lock_guard<std::mutex> lock(mu_);
  const std::string name = plan.target.QualifiedName();
  calls_.push_back("abort " + name);
  tables_[name].aborted = true;
  return Status::OK();
}

}  // namespace lakedump
