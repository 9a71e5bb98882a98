#include "fakes/fault_injection_store.h"

namespace lakedump {

class FaultInjectionStore::Writer : public ForwardingWriter {
 public:
  Writer(FaultInjectionStore* store, std::unique_ptr<ObjectWriter> inner)
      : ForwardingWriter(std::move(inner)), store_(store) {}
  // After Abort() when unclosed: the wrapped writer aborts first.
  ~Writer() override { store_->WriterEnded(closed()); }

  Status Append(std::string_view data) override {
    if (!status_.ok()) return status_;
    Status s = store_->Hit(FaultPoint::kAppend);
    if (s.ok()) s = ForwardingWriter::Append(data);
    if (!s.ok()) status_ = s;  // sticky, like every ByteSink
    return s;
  }

 protected:
  Status DoClose() override {
    if (!status_.ok()) return status_;
    Status s = store_->Hit(FaultPoint::kClose);
    if (s.ok()) s = ForwardingWriter::DoClose();
    if (!s.ok()) status_ = s;
    return s;
  }

 private:
  FaultInjectionStore* const store_;
  Status status_;
};

class FaultInjectionStore::Reader final : public ForwardingReader {
 public:
  Reader(FaultInjectionStore* store, std::unique_ptr<ObjectReader> inner)
      : ForwardingReader(std::move(inner)), store_(store) {}
  Status ReadAt(uint64_t offset, uint64_t length, std::string* out) override {
    LD_RETURN_IF_ERROR(store_->Hit(FaultPoint::kRead));
    return ForwardingReader::ReadAt(offset, length, out);
  }

 private:
  FaultInjectionStore* const store_;
};

void FaultInjectionStore::FailNth(FaultPoint point, int n, Status status) {
  std::lock_guard lock(mu_);
  rules_[static_cast<size_t>(point)] = Rule{n, false, std::move(status)};
}

void FaultInjectionStore::FailFrom(FaultPoint point, int n, Status status) {
  std::lock_guard lock(mu_);
  rules_[static_cast<size_t>(point)] = Rule{n, true, std::move(status)};
}

void FaultInjectionStore::Clear(FaultPoint point) {
  std::lock_guard lock(mu_);
  rules_[static_cast<size_t>(point)].reset();
}

Status FaultInjectionStore::Hit(FaultPoint point) {
  std::lock_guard lock(mu_);
  const size_t i = static_cast<size_t>(point);
  const int call = ++calls_[i];
  const auto& rule = rules_[i];
  if (!rule || rule->n <= 0) return Status::OK();
  if (call == rule->n || (rule->and_later && call > rule->n)) return rule->status;
  return Status::OK();
}

void FaultInjectionStore::WriterEnded(bool committed) {
  std::lock_guard lock(mu_);
  (committed ? committed_ : aborted_)++;
}

int FaultInjectionStore::calls(FaultPoint point) const {
  std::lock_guard lock(mu_);
  return calls_[static_cast<size_t>(point)];
}

int FaultInjectionStore::opened_writers() const {
  std::lock_guard lock(mu_);
  return opened_;
}

int FaultInjectionStore::committed_writers() const {
  std::lock_guard lock(mu_);
  return committed_;
}

int FaultInjectionStore::aborted_writers() const {
  std::lock_guard lock(mu_);
  return aborted_;
}

void FaultInjectionStore::FailWritesTo(std::string key, Status status) {
  std::lock_guard lock(mu_);
  failing_key_.emplace(std::move(key), std::move(status));
}

Result<std::unique_ptr<ObjectWriter>> FaultInjectionStore::NewWriter(std::string_view key,
                                                                     WriteOptions options) {
  LD_RETURN_IF_ERROR(Hit(FaultPoint::kNewWriter));
  {
    std::lock_guard lock(mu_);
    if (failing_key_ && failing_key_->first == key) return failing_key_->second;
  }
  LD_ASSIGN_OR_RETURN(auto inner, target()->NewWriter(key, options));
  {
    std::lock_guard lock(mu_);
    ++opened_;
  }
  return MakeObjectWriter<Writer>(this, std::move(inner));
}

Result<std::unique_ptr<ObjectReader>> FaultInjectionStore::NewReader(std::string_view key) {
  LD_RETURN_IF_ERROR(Hit(FaultPoint::kNewReader));
  LD_ASSIGN_OR_RETURN(auto inner, target()->NewReader(key));
  return std::unique_ptr<ObjectReader>(new Reader(this, std::move(inner)));
}

Result<std::vector<ObjectInfo>> FaultInjectionStore::List(std::string_view prefix) {
  LD_RETURN_IF_ERROR(Hit(FaultPoint::kList));
  return target()->List(prefix);
}

Result<ObjectInfo> FaultInjectionStore::Head(std::string_view key) {
  LD_RETURN_IF_ERROR(Hit(FaultPoint::kHead));
  return target()->Head(key);
}

Status FaultInjectionStore::Delete(std::span<const std::string> keys) {
  LD_RETURN_IF_ERROR(Hit(FaultPoint::kDelete));
  return target()->Delete(keys);
}

}  // namespace lakedump
