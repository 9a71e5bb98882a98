// FakeDatabase: an in-memory Database for unit tests. Each table generates
// deterministic rows (id int64, name string, amount double with some nulls,
// day date); a table can fail at a given row or run a hook before each batch
// (to hold a read until an event, or to act at a given point of it). Queries are
// "SELECT * FROM <table>" over the fake tables; any other SQL fails like a
// syntax error. Thread-safe (the configuration is fixed before use).
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "source/table_source.h"

namespace lakedump {

struct FakeTable {
  TableRef ref;
  uint64_t rows = 0;
  int64_t fail_at_row = -1;                  // Next() fails when this row would be produced
  // Runs before each batch with the index of its first row (e.g. blocks on a test's gate, or
  // stops the run once a read is under way). May be empty.
  std::function<void(uint64_t)> before_batch = {};
  int units = 1;                             // Split() returns this many ranges
  std::string partition_values = "abc";      // "name" column cycles over these letters
  // Columns named otherwise (old name -> new name), e.g. to change a table between dumps.
  std::map<std::string, std::string> renamed_columns = {};
};

class FakeDatabase : public Database {
 public:
  FakeDatabase() = default;
  void AddTable(FakeTable table) { tables_.push_back(std::move(table)); }
  static Schema TableSchema();
  // TableSchema() with `table`'s renamed columns.
  static Schema SchemaOf(const FakeTable& table);
  // The value of the generated row `i` (same for every table), for assertions.
  static std::string NameOf(const FakeTable& t, uint64_t i);

  Status BeginSnapshot() override { return Status::OK(); }
  Result<std::vector<TableInfo>> ListTables() override;
  Result<TableDefinition> DescribeTable(const TableInfo& table) override;
  Result<std::vector<WorkUnit>> Split(const TableInfo& table, uint64_t target_bytes) override;
  Result<std::unique_ptr<TableSource>> Open(const WorkUnit& unit) override;
  nlohmann::json Describe() const override;
  // The snapshot holder: fails once set_snapshot_lost(true) (tests of the watch).
  Status CheckSnapshotHeld() override;
  // {"fake": identity, "table": name}: equal identities mean "the same source".
  Result<nlohmann::json> Fingerprint(const TableInfo& table) override;

  void set_identity(std::string identity) { identity_ = std::move(identity); }
  void set_snapshot_lost(bool lost) { *snapshot_lost_ = lost; }
  // Runs before each Open() (e.g. to change the store or the snapshot mid-dump).
  void set_on_open(std::function<void(const WorkUnit&)> hook) { on_open_ = std::move(hook); }

 private:
  Result<const FakeTable*> Find(const TableInfo& info) const;
  std::vector<FakeTable> tables_;
  std::string identity_ = "fake";
  // Shared: a FakeDatabase is returned by value, and atomics do not move.
  std::shared_ptr<std::atomic<bool>> snapshot_lost_ = std::make_shared<std::atomic<bool>>(false);
  std::function<void(const WorkUnit&)> on_open_;
};

}  // namespace lakedump
