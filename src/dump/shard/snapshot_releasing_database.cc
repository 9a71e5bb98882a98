#include "dump/shard/snapshot_releasing_database.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <utility>

namespace lakedump {
namespace {

Status Released(const std::string& what) {
  return Status::Internal(what + " after the source's snapshot was released (--no-snapshot)");
}

// The wrapped Database's description without its snapshot: this dump has none.
nlohmann::json WithoutSnapshot(nlohmann::json described) {
  if (!described.is_object()) return described;
  for (const char* k : {"snapshot_id", "snapshot_time", "wal_lsn", "consistent_point",
                        "replication_slot", "imported", "isolation"}) {
    described.erase(k);
  }
  described["snapshot"] =
      "none (--no-snapshot): planned from a snapshot released before the workers started; "
      "each worker read the source at a time of its own";
  return described;
}

}  // namespace

SnapshotReleasingDatabase::SnapshotReleasingDatabase(std::unique_ptr<Database> inner)
    : inner_(std::move(inner)) {}

SnapshotReleasingDatabase::~SnapshotReleasingDatabase() = default;

SnapshotReleasingDatabase::TableKey SnapshotReleasingDatabase::KeyOf(const TableInfo& table) {
  return {table.ref.schema, table.ref.name, table.query};
}

Status SnapshotReleasingDatabase::Release(std::stop_token stop) {
  std::unique_lock lock(mu_);
  if (!inner_) return Status::OK();
  if (!schema_captured_cv_.wait(lock, stop, [this] { return schema_captured_; })) {
    return Status::Cancelled("interrupted");
  }
  described_ = WithoutSnapshot(inner_->Describe());
  identity_ = inner_->Identity();
  inner_.reset();
  return Status::OK();
}

Status SnapshotReleasingDatabase::CheckColumnsAsPlanned(
    const std::vector<UnitOutput>& outputs) const {
  const auto columns = [](const Schema& schema) {
    std::vector<std::string> out;
    for (const Column& c : schema.columns()) out.push_back(c.name + " " + c.type.ToString());
    return out;
  };
  std::lock_guard<std::mutex> defs(definitions_mu_);
  std::map<std::pair<std::string, std::string>, const TableDefinition*> planned;
  for (const auto& [key, def] : definitions_) {
    // A --query's columns are its own SQL's, not a table's DDL: not checked.
    if (std::get<2>(key).empty()) planned[{std::get<0>(key), std::get<1>(key)}] = &def;
  }
  for (const UnitOutput& out : outputs) {
    auto it = planned.find({out.table.schema, out.table.name});
    if (it == planned.end()) continue;  // not a table of the plan: the commit refuses it
    const std::vector<std::string> read = columns(out.schema);
    const std::vector<std::string> described = columns(it->second->schema);
    if (read != described) {
      return Status::Unavailable(fmt::format(
          "table {} changed between planning and a worker's read (--no-snapshot: nothing "
          "holds DDL off): planned with columns ({}), read with ({}); run the dump again",
          out.table.QualifiedName(), fmt::join(described, ", "), fmt::join(read, ", ")));
    }
  }
  return Status::OK();
}

bool SnapshotReleasingDatabase::released() const {
  std::shared_lock lock(mu_);
  return inner_ == nullptr;
}

Status SnapshotReleasingDatabase::BeginSnapshot() {
  std::shared_lock lock(mu_);
  return inner_ ? inner_->BeginSnapshot() : Released("BeginSnapshot()");
}

Result<std::vector<TableInfo>> SnapshotReleasingDatabase::ListTables() {
  std::shared_lock lock(mu_);
  if (!inner_) return Released("ListTables()");
  return inner_->ListTables();
}

Status SnapshotReleasingDatabase::LockTables(const std::vector<TableInfo>& tables) {
  std::shared_lock lock(mu_);
  return inner_ ? inner_->LockTables(tables) : Released("LockTables()");
}

Result<TableDefinition> SnapshotReleasingDatabase::DescribeTable(const TableInfo& table) {
  {
    std::shared_lock lock(mu_);
    if (inner_) {
      LD_ASSIGN_OR_RETURN(TableDefinition def, inner_->DescribeTable(table));
      std::lock_guard<std::mutex> defs(definitions_mu_);
      definitions_.insert_or_assign(KeyOf(table), def);
      return def;
    }
  }
  std::lock_guard<std::mutex> defs(definitions_mu_);
  auto it = definitions_.find(KeyOf(table));
  if (it == definitions_.end()) {
    return Released("DescribeTable() of " + table.ref.QualifiedName() +
                    ", which planning did not describe,");
  }
  return it->second;
}

Result<std::vector<WorkUnit>> SnapshotReleasingDatabase::Split(const TableInfo& table,
                                                               uint64_t target_bytes) {
  std::shared_lock lock(mu_);
  if (!inner_) return Released("Split()");
  return inner_->Split(table, target_bytes);
}

Result<std::unique_ptr<TableSource>> SnapshotReleasingDatabase::Open(const WorkUnit& unit) {
  std::shared_lock lock(mu_);
  if (!inner_) return Released("Open()");
  return inner_->Open(unit);
}

Result<SchemaCapture> SnapshotReleasingDatabase::CaptureSchema(
    const SchemaSelection& selected, const SchemaCaptureOptions& options) {
  Result<SchemaCapture> captured = Released("CaptureSchema()");
  {
    std::shared_lock lock(mu_);
    if (inner_) captured = inner_->CaptureSchema(selected, options);
  }
  {
    std::unique_lock lock(mu_);
    schema_captured_ = true;
  }
  schema_captured_cv_.notify_all();
  return captured;
}

Result<std::unique_ptr<LargeObjectSource>> SnapshotReleasingDatabase::OpenLargeObjects() {
  std::shared_lock lock(mu_);
  if (!inner_) return Released("OpenLargeObjects()");
  auto* provider = dynamic_cast<LargeObjectProvider*>(inner_.get());
  if (provider == nullptr) return std::unique_ptr<LargeObjectSource>();
  return provider->OpenLargeObjects();
}

nlohmann::json SnapshotReleasingDatabase::Describe() const {
  std::shared_lock lock(mu_);
  return inner_ ? WithoutSnapshot(inner_->Describe()) : described_;
}

Status SnapshotReleasingDatabase::CheckSnapshotHeld() {
  std::shared_lock lock(mu_);
  // Released: nothing is held, so nothing can have lapsed.
  return inner_ ? inner_->CheckSnapshotHeld() : Status::OK();
}

Status SnapshotReleasingDatabase::ImportSnapshot(const std::string& snapshot_id) {
  std::shared_lock lock(mu_);
  return inner_ ? inner_->ImportSnapshot(snapshot_id) : Released("ImportSnapshot()");
}

nlohmann::json SnapshotReleasingDatabase::Identity() const {
  std::shared_lock lock(mu_);
  return inner_ ? inner_->Identity() : identity_;
}

Status SnapshotReleasingDatabase::CheckUnit(const WorkUnit& unit) const {
  std::shared_lock lock(mu_);
  return inner_ ? inner_->CheckUnit(unit) : Released("CheckUnit()");
}

Result<nlohmann::json> SnapshotReleasingDatabase::Fingerprint(const TableInfo& /*table*/) {
  // Never reused: its rows are not of one snapshot with the rest of the dump.
  return nlohmann::json();
}

}  // namespace lakedump
