// FakeTargetDatabase: an in-memory TargetDatabase for LoadService tests. It
// records every protocol call (PrepareTable, OpenSink, CommitTable,
// AbortTable), keeps the rows each table received (as the "id" column's values
// when there is one, plus a count), and can fail a chosen table's Nth Append or
// its PrepareTable/CommitTable. Thread-safe (one mutex).
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "load/target_database.h"

namespace lakedump {

class FakeTargetDatabase final : public TargetDatabase {
 public:
  struct TableState {
    TablePlan plan;
    uint64_t staged_rows = 0;     // rows appended (all sinks)
    uint64_t committed_rows = 0;  // rows visible after CommitTable
    std::vector<int64_t> ids;     // the "id" column's values appended, if any (all sinks)
    bool single_sink = false;     // OpenSink saw TablePlan::single_sink
    int sinks_opened = 0;
    int sinks_finished = 0;
    int max_open_sinks = 0;
    int open_sinks = 0;
    bool prepared = false;
    bool committed = false;
    bool aborted = false;
  };

  explicit FakeTargetDatabase(int max_sinks = 4) : max_sinks_(max_sinks) {}

  // Tables that exist before the load (by target qualified name, with rows).
  void AddExisting(const std::string& qualified_name, uint64_t rows);
  // The nth Append (1-based) of this target table fails with `status`.
  void FailAppend(const std::string& qualified_name, int n, Status status);
  void FailPrepare(const std::string& qualified_name, Status status);
  // Every Append sleeps this long (for cancellation tests).
  // Runs before each batch is appended, with the table's name, outside the fake's lock (e.g.
  // holds appends until several streams run, or stops the load midway).
  void set_before_append(std::function<void(const std::string&)> hook) {
    before_append_ = std::move(hook);
  }

  // Snapshot of a table's state (by target qualified name); nullptr if never
  // seen.
  std::unique_ptr<TableState> Table(const std::string& qualified_name) const;
  // Rows visible in the "database" per table: existing + committed.
  std::map<std::string, uint64_t> Visible() const;
  std::vector<std::string> Calls() const;

  std::string Describe() const override { return "fake"; }
  int max_sinks_per_table() const override { return max_sinks_; }
  Status PrepareTable(const TablePlan& plan) override;
  Result<std::unique_ptr<TableSink>> OpenSink(const TablePlan& plan) override;
  Status CommitTable(const TablePlan& plan) override;
  Status AbortTable(const TablePlan& plan) override;

 private:
  class Sink;
  Status OnAppend(const std::string& name, const RowBatch& batch);
  void OnSinkClosed(const std::string& name, bool finished);

  const int max_sinks_;
  std::function<void(const std::string&)> before_append_;
  mutable std::mutex mu_;
  std::map<std::string, TableState> tables_;
  std::map<std::string, uint64_t> existing_;
  std::map<std::string, std::pair<int, Status>> fail_append_;
  std::map<std::string, int> appends_;
  std::map<std::string, Status> fail_prepare_;
  std::vector<std::string> calls_;
};

}  // namespace lakedump
