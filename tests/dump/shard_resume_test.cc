// A retried shard resumes what its earlier attempts finished (docs/scale-out.md, "A retried
// shard"): an attempt records its finished units in _shards/<I>/progress-<attempt>.json.zst; the
// next attempt of the shard takes over the units whose files are there as recorded, runs only
// the others, and reports all of them; the coordinator commits exactly those files, and the
// sweep after the commit keeps them. Forged progress objects are not trusted. Also the rest of
// the trust model of a sharded dump (ShardTrustTest): planted plans, forged reports, a late
// worker, a restart after a dead coordinator, gc of its lease.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "lake/dump_lease.h"
#include "dump/export_service.h"
#include "lake/manifest.h"
#include "lake/object_keys.h"
#include "dump/shard/shard_coordinator.h"
#include "dump/shard/shard_plan.h"
#include "dump/shard/shard_progress.h"
#include "dump/shard/shard_worker.h"
#include "dump/unit_exporter.h"
#include "fakes/fake_clock.h"
#include "fakes/fake_database.h"
#include "fakes/small_dump_options.h"
#include "format/codec/codec.h"
#include "store/memory/memory_store.h"

namespace lakedump {
namespace {

using namespace std::chrono_literals;

// A source whose snapshot other processes can import (as PostgreSQL's exported snapshot).
class SharedSnapshotDatabase : public FakeDatabase {
 public:
  nlohmann::json Describe() const override {
    nlohmann::json d = FakeDatabase::Describe();
    d["snapshot_id"] = "00000003-0000001B-1";
    return d;
  }
  Status ImportSnapshot(const std::string&) override { return Status::OK(); }
};

constexpr int kBigUnits = 4;
constexpr int kSmallTables = 6;
constexpr int kUnits = kBigUnits + kSmallTables;

// `fail_table`: the small table (1..kSmallTables) whose read fails, 0 for none.
void AddTables(FakeDatabase* db, int fail_table = 0) {
  db->AddTable(FakeTable{TableRef{"main", "big"}, 4000, -1, {}, kBigUnits});
  for (int i = 1; i <= kSmallTables; ++i) {
    db->AddTable(
        FakeTable{TableRef{"main", fmt::format("t{}", i)}, 10u * i, i == fail_table ? 5 : -1});
  }
}

std::map<std::string, uint64_t> ExpectedRows() {
  std::map<std::string, uint64_t> rows{{"main.big", 4000}};
  for (int i = 1; i <= kSmallTables; ++i) rows[fmt::format("main.t{}", i)] = 10u * i;
  return rows;
}

// The units in the plan's order, one at a time.
DumpOptions Options() { return SmallDumpOptions(/*table_parallelism=*/1); }

nlohmann::json Matching() { return ShardMatchingOptions(Options(), nlohmann::json::object()); }

// One attempt of one shard: the outcome, the units it read, the lines it logged.
struct Attempt {
  Result<WorkerResult> result = Status::Internal("not run");
  WorkerFailure failure;
  std::set<std::string> opened;
  std::vector<std::string> log;
};

// Runs shard `shard` of `shards` against `store`. `stop_at_open`: the attempt is interrupted
// (as by SIGTERM) when it opens its n-th unit (0: never). `fail_table`: see AddTables.
// `at_first_open` runs when the attempt opens its first unit (may be empty). `clock`: the
// worker's (its coordinator's, which it checks the lease of).
Attempt RunAttempt(ObjectStore* store, int shard, int shards, int stop_at_open = 0,
                   int fail_table = 0, std::function<void()> at_first_open = {},
                   Clock* clock = &SystemClock()) {
  Attempt a;
  SharedSnapshotDatabase db;
  AddTables(&db, fail_table);
  std::stop_source stop;
  std::mutex mu;
  db.set_on_open([&](const WorkUnit& u) {
    std::lock_guard<std::mutex> lock(mu);
    a.opened.insert(UnitName(u.table.ref, u.index));
    if (a.opened.size() == 1 && at_first_open) at_first_open();
    if (static_cast<int>(a.opened.size()) == stop_at_open) stop.request_stop();
  });
  WorkerOptions w;
  w.shard = shard;
  w.shards = shards;
  w.plan_timeout = 30s;
  w.fast_poll_interval = 10ms;
  w.poll_interval = 10ms;
  w.clock = clock;
  w.matching = Matching();
  w.log = [&](const std::string& line) {
    std::lock_guard<std::mutex> lock(mu);
    a.log.push_back(line);
  };
  w.warn = [&](const std::string& line) {
    std::lock_guard<std::mutex> lock(mu);
    a.log.push_back("warning: " + line);
  };
  a.result = RunShardWorker(db, *store, Options(), w, &a.failure, stop.get_token());
  return a;
}

// The plan a coordinator of `shards` shards would write for AddTables, under a lease held by
// the dump (the workers check that their coordinator is alive), without a coordinator.
class PlannedDump {
 public:
  PlannedDump(MemoryStore* store, int shards) : dump_id_(NewRunId()) {
    ShardPlan sp;
    sp.dump_id = dump_id_;
    sp.created_at = "2026-12-02T08:00:00.000Z";
    sp.snapshot_id = "00000003-0000001B-1";
    SharedSnapshotDatabase db;
    AddTables(&db);
    sp.source = db.Identity();
    sp.options = Matching();
    std::vector<PlannedUnit> units;
    const std::vector<TableInfo> tables = *db.ListTables();
    for (const TableInfo& t : tables) {
      const std::vector<WorkUnit> split = *db.Split(t, 0);
      for (const WorkUnit& u : split) units.push_back(ToPlannedUnit(u));
    }
    sp.shards = AssignUnits(std::move(units), shards);
    for (int i = 0; i < shards; ++i) sp.attempt_tokens.push_back(NewAttemptToken());
    EXPECT_TRUE(store->PutObject(kShardPlanKey, *SerializeShardPlan(sp)).ok());
    auto lease = DumpLease::Acquire(store, dump_id_, LeaseOptions{});
    EXPECT_TRUE(lease.ok()) << lease.status().ToString();
    if (lease.ok()) lease_ = std::move(*lease);
    plan_ = std::move(sp);
  }
  const std::string& dump_id() const { return dump_id_; }
  const ShardPlan& plan() const { return plan_; }
  // What a coordinator does once it took another attempt's report: writes the manifest and
  // releases its lease (it exits).
  void CommitAndLeave(MemoryStore* store) {
    DumpManifest m;
    m.dump_id = dump_id_;
    EXPECT_TRUE(store->PutObject(kManifestKey, ToJson(m).dump(2)).ok());
    EXPECT_TRUE(lease_->Release().ok());
  }

 private:
  std::string dump_id_;
  ShardPlan plan_;
  std::unique_ptr<DumpLease> lease_;
};

// The progress objects of shard `shard` in `store`, parsed, by key.
std::map<std::string, ShardReport> ProgressObjects(MemoryStore& store, int shard) {
  std::map<std::string, ShardReport> out;
  const std::vector<ObjectInfo> listed = *store.List(fmt::format("_shards/{}/progress-", shard));
  for (const ObjectInfo& o : listed) {
    auto parsed = ParseShardProgress(*store.GetObject(o.key), o.key);
    EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
    if (parsed.ok()) out.emplace(o.key, std::move(*parsed));
  }
  return out;
}

std::set<std::string> UnitsOf(const ShardReport& r) {
  std::set<std::string> units;
  for (const UnitOutput& u : r.units) units.insert(UnitName(u.table, u.unit));
  return units;
}

bool Logged(const Attempt& a, const std::string& what) {
  for (const std::string& line : a.log) {
    if (line.find(what) != std::string::npos) return true;
  }
  return false;
}

DumpOptions OptionsOn(Clock* clock) {
  DumpOptions o = Options();
  o.clock = clock;
  return o;
}

// The coordinator of a one-shard dump into `store`, on a thread of its own, on a fake clock:
// it polls (every 10 ms of fake time) only when the test runs a Round() (Join() runs them
// until it is done, and returns its outcome). It reads progress objects as soon as they
// change. The workers run on the same clock (RunAttempt(..., &coordinator.clock)).
struct CoordinatorThread {
  // Asleep on the clock while the coordinator waits: its poll and its lease's renewer.
  static constexpr size_t kSleepers = 2;

  explicit CoordinatorThread(MemoryStore* store) : service(&db, store, OptionsOn(&clock)) {
    AddTables(&db);
    co.shards = 1;
    co.matching = Matching();
    co.poll_interval = 10ms;
    co.fast_poll_interval = 10ms;
    co.progress_interval = 10ms;
    co.shard_timeout = 60s;
    co.clock = &clock;
    thread = std::thread([this, store] {
      committed = service.RunSharded(
          [this, store](const DumpPlan& plan, const ExportService::RemoteUnitSink& sink,
                        std::stop_token stop) {
            return RunShardCoordinator(*store, db, service.run_id(), plan, co, sink,
                                       &taken_files, stop);
          },
          stop.get_token());
      done.request_stop();
    });
    // Its plan is written once it polls.
    EXPECT_TRUE(clock.WaitForSleepers(kSleepers, done.get_token()))
        << committed.status().ToString();
  }
  ~CoordinatorThread() {
    stop.request_stop();  // a test that failed early does not wait for the shard timeout
    if (thread.joinable()) thread.join();
  }
  // One poll of the coordinator: false once it is done.
  bool Round() {
    if (!clock.WaitForSleepers(kSleepers, done.get_token())) return false;
    clock.Advance(10ms);
    return true;
  }
  const Result<DumpResult>& Join() {
    while (Round()) {
    }
    thread.join();
    return committed;
  }

  FakeClock clock;
  std::stop_source stop, done;
  SharedSnapshotDatabase db;
  CoordinatorOptions co;
  std::set<std::string> taken_files;
  ExportService service;
  Result<DumpResult> committed = Status::Internal("not run");
  std::thread thread;
};

// Every committed table's rows and files, read back from the manifest and each _table.json.
struct CommittedDump {
  std::string dump_id;
  std::map<std::string, uint64_t> rows;
  std::map<std::string, std::set<std::string>> files;  // by table
  std::set<std::string> all_files;
};
CommittedDump ReadCommitted(MemoryStore& store) {
  CommittedDump out;
  auto manifest = ReadDumpManifest(store);
  EXPECT_TRUE(manifest.ok()) << manifest.status().ToString();
  if (!manifest.ok()) return out;
  out.dump_id = manifest->dump_id;
  for (const TableSummary& t : manifest->tables) {
    auto table = ReadTableManifest(store, t.key);
    EXPECT_TRUE(table.ok()) << table.status().ToString();
    if (!table.ok()) continue;
    out.rows[t.table.QualifiedName()] = table->rows;
    for (const DataFile& f : table->files) {
      out.files[t.table.QualifiedName()].insert(f.key);
      out.all_files.insert(f.key);
      EXPECT_EQ(store.Head(f.key)->size, f.bytes) << f.key;
    }
  }
  return out;
}

TEST(ShardResumeTest,
     ARetryTakesOverWhatAnInterruptedAttemptFinishedAndOnlyThoseFilesAreCommitted) {
  MemoryStore store("resume");
  CoordinatorThread coordinator(&store);
  const std::set<std::string>& taken_files = coordinator.taken_files;

  // The first attempt finishes 3 units, then is interrupted while it reads the 4th.
  Attempt first = RunAttempt(&store, 0, 1, /*stop_at_open=*/4, 0, {}, &coordinator.clock);
  ASSERT_FALSE(first.result.ok());
  EXPECT_EQ(first.result.status().code(), Code::kCancelled) << first.result.status().ToString();
  auto progress = ProgressObjects(store, 0);
  ASSERT_EQ(progress.size(), 1u);
  const ShardReport& recorded = progress.begin()->second;
  const std::string first_attempt = recorded.attempt;
  EXPECT_EQ(UnitsOf(recorded).size(), 3u);
  // A progress object is no report: the coordinator is still waiting.
  EXPECT_FALSE(store.Head(kManifestKey).ok());
  EXPECT_TRUE(store.List("_shards/0/report-")->empty());
  EXPECT_TRUE(store.List("_shards/0/failed-")->empty());

  // The retry reads only the other units and reports all of them.
  Attempt second = RunAttempt(&store, 0, 1, 0, 0, {}, &coordinator.clock);
  ASSERT_TRUE(second.result.ok()) << second.result.status().ToString();
  EXPECT_EQ(second.result->units, static_cast<uint64_t>(kUnits));
  EXPECT_EQ(second.result->taken_over_units, 3u);
  EXPECT_EQ(second.opened.size(), static_cast<size_t>(kUnits - 3));
  for (const std::string& unit : UnitsOf(recorded)) EXPECT_FALSE(second.opened.count(unit)) << unit;
  EXPECT_TRUE(Logged(second, "3 of 10 units taken over from earlier attempts"));

  ASSERT_TRUE(coordinator.Join().ok()) << coordinator.committed.status().ToString();
  // Exact rows; the taken-over units' files are the first attempt's, the others the second's.
  std::set<std::string> files, attempts;
  std::map<std::string, uint64_t> rows;
  auto manifest = ReadDumpManifest(store);
  ASSERT_TRUE(manifest.ok()) << manifest.status().ToString();
  for (const TableSummary& t : manifest->tables) {
    auto table = ReadTableManifest(store, t.key);
    ASSERT_TRUE(table.ok()) << table.status().ToString();
    rows[t.table.QualifiedName()] = table->rows;
    for (const DataFile& f : table->files) {
      files.insert(f.key);
      attempts.insert(AttemptOfKey(f.key, manifest->dump_id));
      EXPECT_EQ(store.Head(f.key)->size, f.bytes) << f.key;
    }
  }
  EXPECT_EQ(rows, ExpectedRows());
  EXPECT_EQ(attempts, (std::set<std::string>{first_attempt, second.result->attempt}));
  for (const UnitOutput& u : recorded.units) {
    for (const DataFile& f : u.files) EXPECT_TRUE(files.count(f.key)) << f.key;
  }
  EXPECT_EQ(files, taken_files);
  // The sweep after the commit (the CLI's, and gc's) keeps exactly the files the manifest
  // lists: a file of the first attempt's unfinished unit, had it been closed, is a leftover.
  const std::string stray = DataFileKey(TableRef{"main", "zz"}, "", 0, 0, first_attempt);
  ASSERT_TRUE(store.PutObject(stray, "x").ok());
  uint64_t deleted = 0;
  ASSERT_TRUE(SweepShardLeftovers(store, manifest->dump_id, files, &deleted).ok());
  EXPECT_EQ(deleted, 4u);  // the stray, _plan.json, the progress object and the report
  EXPECT_FALSE(store.Head(stray).ok());
  for (const std::string& f : files) EXPECT_TRUE(store.Head(f).ok()) << f;
  EXPECT_TRUE(store.List("_shards/")->empty());
}

TEST(ShardResumeTest, TheTablesAProgressObjectCompletesAreCommittedBeforeTheReport) {
  MemoryStore store("early");
  CoordinatorThread coordinator(&store);
  // The first attempt finishes the 4 ranges of main.big and main.t6 (the plan's order), then
  // is interrupted: its progress object names those 5 units.
  Attempt first = RunAttempt(&store, 0, 1, /*stop_at_open=*/6, 0, {}, &coordinator.clock);
  ASSERT_FALSE(first.result.ok());
  auto progress = ProgressObjects(store, 0);
  ASSERT_EQ(progress.size(), 1u);
  const std::string first_attempt = progress.begin()->second.attempt;
  EXPECT_EQ(UnitsOf(progress.begin()->second).size(), 5u);
  // The coordinator commits the two tables they complete while no shard has reported; no
  // other table, and no manifest.
  const std::string big_key = TableManifestKey(TableRef{"main", "big"});
  const std::string t6_key = TableManifestKey(TableRef{"main", "t6"});
  for (int round = 0; round < 100 && (!store.Head(big_key).ok() || !store.Head(t6_key).ok());
       ++round) {
    ASSERT_TRUE(coordinator.Round()) << coordinator.committed.status().ToString();
  }
  ASSERT_TRUE(store.Head(big_key).ok());
  ASSERT_TRUE(store.Head(t6_key).ok());
  EXPECT_FALSE(store.Head(TableManifestKey(TableRef{"main", "t5"})).ok());
  EXPECT_FALSE(store.Head(kManifestKey).ok());
  EXPECT_TRUE(store.List("_shards/0/report-")->empty());

  // Another attempt that does not take them over (their progress object gone, as when two
  // attempts run at once) reads and reports every unit itself.
  ASSERT_TRUE(store.Delete(std::vector<std::string>{progress.begin()->first}).ok());
  Attempt second = RunAttempt(&store, 0, 1, 0, 0, {}, &coordinator.clock);
  ASSERT_TRUE(second.result.ok()) << second.result.status().ToString();
  EXPECT_EQ(second.result->taken_over_units, 0u);
  EXPECT_EQ(second.opened.size(), static_cast<size_t>(kUnits));

  ASSERT_TRUE(coordinator.Join().ok()) << coordinator.committed.status().ToString();
  const CommittedDump dump = ReadCommitted(store);
  EXPECT_EQ(dump.rows, ExpectedRows());
  // The tables committed early keep the first attempt's files; the others are the second's.
  for (const auto& [table, files] : dump.files) {
    const bool early = table == "main.big" || table == "main.t6";
    for (const std::string& f : files) {
      EXPECT_EQ(AttemptOfKey(f, dump.dump_id),
                early ? first_attempt : second.result->attempt)
          << table << " " << f;
    }
  }
  EXPECT_EQ(dump.all_files, coordinator.taken_files);
  // The second attempt's copies of the early units are leftovers: the sweep takes them, and
  // keeps every file the manifest lists.
  uint64_t deleted = 0;
  ASSERT_TRUE(SweepShardLeftovers(store, dump.dump_id, dump.all_files, &deleted).ok());
  EXPECT_GE(deleted, 5u + 1u + 1u);  // 5 units' files, _plan.json, the report
  for (const std::string& f : dump.all_files) EXPECT_TRUE(store.Head(f).ok()) << f;
  const std::vector<ObjectInfo> left = *store.List("");
  for (const ObjectInfo& o : left) {
    if (AttemptOfKey(o.key, dump.dump_id).empty()) continue;
    EXPECT_TRUE(dump.all_files.contains(o.key)) << o.key;
  }
}

TEST(ShardResumeTest, AFailedAttemptRecordsWhatItFinishedAndAnotherAttemptTakesItOver) {
  MemoryStore store("failed");
  PlannedDump dump(&store, 1);
  // t1, the smallest table, is the plan's last unit: all the others finish first.
  Attempt first = RunAttempt(&store, 0, 1, 0, /*fail_table=*/1);
  ASSERT_FALSE(first.result.ok());
  EXPECT_TRUE(first.failure.started);
  EXPECT_EQ(store.List("_shards/0/failed-")->size(), 1u);
  auto progress = ProgressObjects(store, 0);
  ASSERT_EQ(progress.size(), 1u);
  EXPECT_EQ(UnitsOf(progress.begin()->second).size(), static_cast<size_t>(kUnits - 1));
  EXPECT_FALSE(UnitsOf(progress.begin()->second).count("main.t1#0"));

  Attempt second = RunAttempt(&store, 0, 1);
  ASSERT_TRUE(second.result.ok()) << second.result.status().ToString();
  EXPECT_EQ(second.result->taken_over_units, static_cast<uint64_t>(kUnits - 1));
  EXPECT_EQ(second.opened, std::set<std::string>{"main.t1#0"});
  // Its report names every unit, the taken-over ones by the first attempt's files.
  auto reports = store.List("_shards/0/report-");
  ASSERT_EQ(reports->size(), 1u);
  auto report = ParseShardReport(*store.GetObject(reports->front().key), "report");
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->units.size(), static_cast<size_t>(kUnits));
  size_t earlier = 0;
  for (const UnitOutput& u : report->units) {
    for (const DataFile& f : u.files) {
      earlier += AttemptOfKey(f.key, dump.dump_id()) == progress.begin()->second.attempt;
    }
  }
  EXPECT_GE(earlier, static_cast<size_t>(kUnits - 1));
}

TEST(ShardResumeTest, ProgressWrittenWhileTheAttemptRunsAndNoWriteWithNothingNew) {
  MemoryStore data("data");
  MemoryStore store("progress");
  const std::string attempt = NewAttemptId("20261202T080000Z-0a1b2c3d", 2);
  FakeClock clock;
  ShardProgressWriter writer(ProgressWriterOptions{.data_store = &data,
                                                   .store = &store,
                                                   .dump_id = "20261202T080000Z-0a1b2c3d",
                                                   .shard = 2,
                                                   .attempt = attempt,
                                                   .token = "0123456789abcdef",
                                                   .interval = 10ms,
                                                   .log = {},
                                                   .clock = &clock});
  for (int round = 0; round < 5; ++round) clock.AdvanceRound(10ms, 1);
  EXPECT_EQ(writer.writes(), 0u);  // nothing finished, nothing written
  UnitOutput u;
  u.table = TableRef{"public", "big"};
  u.unit = 3;
  u.schema.AddColumn(Column{"id", LogicalType::Of(TypeId::kInt64), false, "bigint"});
  u.files.push_back(DataFile{.key = DataFileKey(u.table, "", 3, 0, attempt),
                             .rows = 1,
                             .bytes = 10,
                             .xxh64 = "0123456789abcdef"});
  writer.Add(u);
  const std::string key = ShardProgressKey(2, attempt);
  EXPECT_FALSE(store.Head(key).ok());  // written at the next interval, not at once
  clock.AdvanceRound(10ms, 1);
  auto text = store.GetObject(key);
  ASSERT_TRUE(text.ok()) << "no periodic write";
  auto parsed = ParseShardProgress(*text, key);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(UnitsOf(*parsed), std::set<std::string>{"public.big#3"});
  for (int round = 0; round < 5; ++round) clock.AdvanceRound(10ms, 1);
  EXPECT_EQ(writer.writes(), 1u);  // unchanged since: not written again
  EXPECT_TRUE(writer.Stop(true).ok());
  EXPECT_EQ(writer.writes(), 1u);
}

// The first attempt of shard 0 of a two-shard plan, interrupted after 3 units, and the
// progress object it left (key and content).
struct Interrupted {
  std::string key;
  ShardReport progress;
};
Interrupted InterruptFirstAttempt(MemoryStore* store) {
  Attempt first = RunAttempt(store, 0, 2, /*stop_at_open=*/4);
  EXPECT_FALSE(first.result.ok());
  auto progress = ProgressObjects(*store, 0);
  EXPECT_EQ(progress.size(), 1u);
  if (progress.empty()) return {};
  EXPECT_EQ(progress.begin()->second.units.size(), 3u);
  return Interrupted{progress.begin()->first, progress.begin()->second};
}

void Put(MemoryStore* store, const std::string& key, const ShardReport& progress) {
  auto text = SerializeShardProgress(progress);
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  ASSERT_TRUE(store->PutObject(key, *text).ok());
}

TEST(ShardResumeTest, ForgedProgressObjectsAreNotTrusted) {
  struct Case {
    const char* name;
    // Tampers with the first attempt's progress object; returns what the retry should log.
    std::function<std::string(MemoryStore*, const PlannedDump&, Interrupted)> forge;
    size_t taken_over;
  };
  const std::vector<Case> cases = {
      {"a file outside the dump's folders",
       [](MemoryStore* s, const PlannedDump&, Interrupted i) {
         i.progress.units[0].files[0].key = "../elsewhere/" + i.progress.attempt + ".parquet";
         Put(s, i.key, i.progress);
         return std::string("ignored");
       },
       0},
      {"a file of another table",
       [](MemoryStore* s, const PlannedDump&, Interrupted i) {
         i.progress.units[0].files[0].key =
             DataFileKey(TableRef{"main", "other"}, "", 0, 0, i.progress.attempt);
         Put(s, i.key, i.progress);
         return std::string("ignored");
       },
       0},
      {"another shard's files",
       [](MemoryStore* s, const PlannedDump& d, Interrupted) {
         // Shard 1's attempt ran to the end: its files are there, with their sizes. Its
         // report, passed off as the progress of an attempt of shard 0, is refused whole.
         EXPECT_TRUE(RunAttempt(s, 1, 2).result.ok());
         auto reports = s->List("_shards/1/report-");
         EXPECT_EQ(reports->size(), 1u);
         auto report = ParseShardReport(*s->GetObject(reports->front().key), "report");
         EXPECT_TRUE(report.ok()) << report.status().ToString();
         ShardReport forged = *report;
         forged.shard = 0;
         forged.attempt = NewAttemptId(d.dump_id(), 0);
         Put(s, ShardProgressKey(0, forged.attempt), forged);
         return std::string("ignored");
       },
       3},
      {"another shard's files under this shard's attempt",
       [](MemoryStore* s, const PlannedDump& d, Interrupted i) {
         const std::string other = NewAttemptId(d.dump_id(), 1);
         const std::string key =
             DataFileKey(i.progress.units[0].table, "", i.progress.units[0].unit, 0, other);
         EXPECT_TRUE(s->PutObject(key, "0123456789").ok());
         i.progress.units[0].files = {
             DataFile{.key = key, .rows = 1, .bytes = 10, .xxh64 = "0123456789abcdef"}};
         Put(s, i.key, i.progress);
         return std::string("ignored");
       },
       0},
      {"a copy under another attempt's name",
       [](MemoryStore* s, const PlannedDump& d, Interrupted i) {
         EXPECT_TRUE(s->Delete(std::vector<std::string>{i.key}).ok());
         Put(s, ShardProgressKey(0, NewAttemptId(d.dump_id(), 0)), i.progress);
         return std::string("does not match its name");
       },
       0},
      {"wrong sizes",
       [](MemoryStore* s, const PlannedDump&, Interrupted i) {
         i.progress.units[1].files[0].bytes += 1;
         Put(s, i.key, i.progress);
         return std::string("the progress object says");
       },
       2},
      {"a missing file",
       [](MemoryStore* s, const PlannedDump&, Interrupted i) {
         EXPECT_TRUE(s->Delete(std::vector<std::string>{i.progress.units[2].files[0].key}).ok());
         return std::string("is missing");
       },
       2},
      {"another unit's files",
       [](MemoryStore* s, const PlannedDump&, Interrupted i) {
         std::swap(i.progress.units[0].files, i.progress.units[1].files);
         Put(s, i.key, i.progress);
         return std::string("is not one of its files");
       },
       1},
      {"a unit the plan gives another shard",
       [](MemoryStore* s, const PlannedDump& d, Interrupted i) {
         const PlannedUnit& theirs = d.plan().shards[1].front();
         i.progress.units[0].table = theirs.table;
         i.progress.units[0].unit = theirs.index;
         for (DataFile& f : i.progress.units[0].files) {
           f.key = DataFileKey(theirs.table, "", theirs.index, 0, i.progress.attempt);
         }
         Put(s, i.key, i.progress);
         return std::string("the plan does not give it to this shard");
       },
       2},
      {"not compressed",
       [](MemoryStore* s, const PlannedDump&, Interrupted i) {
         EXPECT_TRUE(s->PutObject(i.key, *SerializeMetadata(
                                             nlohmann::json{{"format", "lakedump-shard-progress"}},
                                             "progress"))
                         .ok());
         return std::string("not zstd data");
       },
       0},
      {"not JSON",
       [](MemoryStore* s, const PlannedDump&, Interrupted i) {
         std::string stored;
         EXPECT_TRUE((*MakeCodec(CodecKind::kZstd))->Compress("{\"format\": ", &stored).ok());
         EXPECT_TRUE(s->PutObject(i.key, stored).ok());
         return std::string("ignored");
       },
       0},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    MemoryStore store(c.name);
    PlannedDump dump(&store, 2);
    Interrupted first = InterruptFirstAttempt(&store);
    ASSERT_FALSE(first.key.empty());
    const std::string expected_log = c.forge(&store, dump, first);
    Attempt retry = RunAttempt(&store, 0, 2);
    ASSERT_TRUE(retry.result.ok()) << retry.result.status().ToString();
    EXPECT_EQ(retry.result->taken_over_units, c.taken_over);
    EXPECT_EQ(retry.opened.size() + c.taken_over, dump.plan().shards[0].size());
    EXPECT_TRUE(Logged(retry, expected_log)) << testing::PrintToString(retry.log);
    // Whatever the retry reports is a report the coordinator accepts (its own files, or the
    // checked ones of an earlier attempt of this shard).
    auto reports = store.List("_shards/0/report-");
    ASSERT_EQ(reports->size(), 1u);
    auto report = ParseShardReport(*store.GetObject(reports->front().key), "report");
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    EXPECT_EQ(report->units.size(), dump.plan().shards[0].size());
    for (const UnitOutput& u : report->units) {
      for (const DataFile& f : u.files) EXPECT_EQ(store.Head(f.key)->size, f.bytes) << f.key;
    }
  }
}

TEST(ShardResumeTest, ForgedProgressObjectsCommitNothingBeforeTheReport) {
  MemoryStore store("forged-early");
  CoordinatorThread coordinator(&store);
  const std::string dump_id = coordinator.service.run_id();
  ASSERT_TRUE(store.Head(kShardPlanKey).ok());
  // Progress objects of attempts of this dump's shard 0 that no worker wrote. The first is
  // well-formed, but t1's file has another size than recorded and t3's is missing; the second
  // names another attempt's file (t2) and one outside its table's folder (t4), which its
  // parser refuses whole.
  ShardReport forged;
  forged.dump_id = dump_id;
  forged.shard = 0;
  forged.finished_at = "2026-12-02T08:00:00.000Z";
  // The token is no secret: whoever can write the bucket reads it from the plan.
  forged.token = ParseShardPlan(*store.GetObject(kShardPlanKey), "plan")->attempt_tokens[0];
  auto unit = [&](const std::string& table, const std::string& key, uint64_t bytes) {
    UnitOutput u{TableRef{"main", table}, 0, FakeDatabase::TableSchema(), {}};
    u.files.push_back(DataFile{.key = key, .rows = 10, .bytes = bytes,
                               .xxh64 = "0123456789abcdef"});
    forged.units.push_back(u);
  };
  forged.attempt = NewAttemptId(dump_id, 0);
  const std::string t1 = DataFileKey(TableRef{"main", "t1"}, "", 0, 0, forged.attempt);
  ASSERT_TRUE(store.PutObject(t1, "0123456789").ok());
  unit("t1", t1, 11);
  unit("t3", DataFileKey(TableRef{"main", "t3"}, "", 0, 0, forged.attempt), 10);
  const std::string well_formed = ShardProgressKey(0, forged.attempt);
  Put(&store, well_formed, forged);
  auto parsed = ParseShardProgress(*store.GetObject(well_formed), "forged");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();

  forged.units.clear();
  forged.attempt = NewAttemptId(dump_id, 0);
  const std::string t2 = DataFileKey(TableRef{"main", "t2"}, "", 0, 0, NewAttemptId(dump_id, 0));
  ASSERT_TRUE(store.PutObject(t2, "0123456789").ok());
  unit("t2", t2, 10);
  unit("t4", "elsewhere/part-0000-00000-" + forged.attempt + ".parquet", 10);
  const std::string refused = ShardProgressKey(0, forged.attempt);
  Put(&store, refused, forged);
  EXPECT_FALSE(ParseShardProgress(*store.GetObject(refused), "forged").ok());
  // The coordinator reads them (every 10 ms here) and commits none of those tables.
  for (int round = 0; round < 30; ++round) ASSERT_TRUE(coordinator.Round());
  for (const char* t : {"t1", "t2", "t3", "t4"}) {
    EXPECT_FALSE(store.Head(TableManifestKey(TableRef{"main", t})).ok()) << t;
  }
  // The real attempt's report commits them, with its own files.
  Attempt real = RunAttempt(&store, 0, 1, 0, 0, {}, &coordinator.clock);
  ASSERT_TRUE(real.result.ok()) << real.result.status().ToString();
  ASSERT_TRUE(coordinator.Join().ok()) << coordinator.committed.status().ToString();
  const CommittedDump dump = ReadCommitted(store);
  EXPECT_EQ(dump.rows, ExpectedRows());
  for (const std::string& f : dump.all_files) {
    EXPECT_EQ(AttemptOfKey(f, dump_id), real.result->attempt) << f;
  }
}

// Two attempts of one index at once: the coordinator commits with the other one's report and
// leaves while this one still runs. This one then finds its coordinator gone and the dump
// committed: it is done (exit 0, "committed already"), not failed, and its files go with gc.
TEST(ShardResumeTest, AnAttemptStillRunningWhenTheDumpIsCommittedWithAnotherIsDone) {
  MemoryStore store("loser");
  PlannedDump dump(&store, 1);
  Attempt late = RunAttempt(&store, 0, 1, 0, 0, [&] { dump.CommitAndLeave(&store); });
  ASSERT_TRUE(late.result.ok()) << late.result.status().ToString();
  EXPECT_EQ(late.result->outcome, WorkerOutcome::kAlreadyCommitted);
  EXPECT_EQ(late.result->dump_id, dump.dump_id());
  EXPECT_TRUE(Logged(late, "are left for lakedump gc")) << testing::PrintToString(late.log);
  EXPECT_FALSE(late.failure.coordinator_gone && !late.result.ok());
}


// ---- Shard files are data, never commands (docs/scale-out.md, "Trust") ----

// A plan an attacker who can write DEST planted, with a fresh lease of the dump it names:
// matching options and source (both readable from earlier dumps), `units` for shard 0.
struct PlantedPlan {
  PlantedPlan(MemoryStore* store, const FakeDatabase& db, const DumpOptions& options,
              std::vector<PlannedUnit> units, std::string_view key = {})
      : dump_id(NewRunId()) {
    ShardPlan sp;
    sp.dump_id = dump_id;
    sp.created_at = "2026-12-02T08:00:00.000Z";
    sp.snapshot_id = "00000003-0000001B-1";
    sp.source = db.Identity();
    sp.options = ShardMatchingOptions(options, nlohmann::json::object());
    sp.shards = {std::move(units)};
    sp.attempt_tokens = {NewAttemptToken()};
    EXPECT_TRUE(store->PutObject(kShardPlanKey, *SerializeShardPlan(sp, key)).ok());
    auto held = DumpLease::Acquire(store, dump_id, LeaseOptions{});
    EXPECT_TRUE(held.ok()) << held.status().ToString();
    if (held.ok()) lease = std::move(*held);
  }
  std::string dump_id;
  std::unique_ptr<DumpLease> lease;
};

PlannedUnit WholeTable(const std::string& schema, const std::string& name) {
  PlannedUnit u;
  u.table = TableRef{schema, name};
  u.estimated_rows = 10;
  u.estimated_bytes = 100;
  return u;
}

// A worker with `options` on `db` against `store`, on a clock that moves as it sleeps.
Attempt RunWorkerWith(ObjectStore* store, FakeDatabase& db, const DumpOptions& options,
                      FakeClock* clock) {
  Attempt a;
  WorkerOptions w;
  w.shards = 1;
  w.plan_timeout = 30s;
  w.clock = clock;
  w.matching = ShardMatchingOptions(options, nlohmann::json::object());
  w.log = [&](const std::string& line) { a.log.push_back(line); };
  db.set_on_open([&](const WorkUnit& u) { a.opened.insert(UnitName(u.table.ref, u.index)); });
  a.result = RunShardWorker(db, *store, options, w, &a.failure, {});
  return a;
}

std::set<std::string> Keys(MemoryStore& store) {
  std::set<std::string> keys;
  const std::vector<ObjectInfo> listed = *store.List("");
  for (const ObjectInfo& o : listed) keys.insert(o.key);
  return keys;
}

TEST(ShardTrustTest, APlantedPlanNamingACatalogOrUnselectedTableIsRefusedNothingWritten) {
  struct Case {
    const char* name;
    PlannedUnit unit;
    std::vector<std::string> exclude;  // the worker's --exclude (the plan copies its options)
    const char* why;
  };
  const std::vector<Case> cases = {
      {"password hashes", WholeTable("pg_catalog", "pg_authid"), {}, "a catalog table"},
      {"information_schema", WholeTable("information_schema", "tables"), {}, "catalog"},
      {"toast", WholeTable("pg_toast", "pg_toast_1260"), {}, "catalog"},
      {"sqlite internals", WholeTable("main", "sqlite_master"), {}, "catalog"},
      {"excluded", WholeTable("main", "t1"), {"main.t1"}, "--exclude leaves out"},
      {"not listed", WholeTable("secret", "keys"), {}, "not a table this source lists"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    MemoryStore store(c.name);
    SharedSnapshotDatabase db;
    AddTables(&db);
    // The role can read them (but one the source does not list for a dump): only the
    // worker's own selection keeps them out.
    const bool listed = c.unit.table.schema != "secret";
    if (listed) db.AddTable(FakeTable{c.unit.table, 3});
    DumpOptions options = Options();
    options.exclude = c.exclude;
    PlantedPlan planted(&store, db, options, {WholeTable("main", "t2"), c.unit});
    const std::set<std::string> before = Keys(store);
    FakeClock clock(FakeClock::kAutoAdvance);
    Attempt a = RunWorkerWith(&store, db, options, &clock);
    ASSERT_FALSE(a.result.ok());
    EXPECT_EQ(a.result.status().code(), Code::kInvalidArgument);  // exit 2
    EXPECT_FALSE(a.failure.started);
    EXPECT_NE(a.result.status().message().find(c.unit.table.QualifiedName()), std::string::npos)
        << a.result.status().message();
    EXPECT_NE(a.result.status().message().find(c.why), std::string::npos)
        << a.result.status().message();
    EXPECT_EQ(a.result.status().message().find('\n'), std::string::npos);
    EXPECT_TRUE(a.opened.empty());
    EXPECT_EQ(Keys(store), before);  // no file, no report, no progress object
  }
}

TEST(ShardTrustTest, ASignedWorkerRefusesAPlanWithoutItsKeysMac) {
  MemoryStore store("unsigned plan");
  SharedSnapshotDatabase db;
  AddTables(&db);
  DumpOptions options = Options();
  options.sign_key = std::string(32, 'k');
  // Every unit the worker's selection allows, but not written by the key's holder.
  PlantedPlan planted(&store, db, options, {WholeTable("main", "t1")}, std::string(32, 'x'));
  const std::set<std::string> before = Keys(store);
  FakeClock clock(FakeClock::kAutoAdvance);
  Attempt a = RunWorkerWith(&store, db, options, &clock);
  ASSERT_FALSE(a.result.ok());
  EXPECT_EQ(a.result.status().code(), Code::kInvalidArgument);
  EXPECT_NE(a.result.status().message().find("--sign-key-file"), std::string::npos)
      << a.result.status().message();
  EXPECT_EQ(Keys(store), before);
}

TEST(ShardTrustTest, APlanNotOfTheRunHoldingTheLeaseIsRefused) {
  MemoryStore store("other lease");
  SharedSnapshotDatabase db;
  AddTables(&db);
  PlantedPlan planted(&store, db, Options(), {WholeTable("main", "t1")});
  ASSERT_TRUE(planted.lease->Release().ok());
  auto other = DumpLease::Acquire(&store, NewRunId(), LeaseOptions{});
  ASSERT_TRUE(other.ok());
  const std::set<std::string> before = Keys(store);
  FakeClock clock(FakeClock::kAutoAdvance);
  Attempt a = RunWorkerWith(&store, db, Options(), &clock);
  ASSERT_FALSE(a.result.ok());
  EXPECT_EQ(a.result.status().code(), Code::kInvalidArgument);
  EXPECT_FALSE(a.failure.coordinator_gone);
  EXPECT_NE(a.result.status().message().find("the run holding"), std::string::npos)
      << a.result.status().message();
  EXPECT_EQ(Keys(store), before);
}

void CopyObjects(MemoryStore& from, MemoryStore* to, const std::set<std::string>& except) {
  const std::vector<ObjectInfo> listed = *from.List("");
  for (const ObjectInfo& o : listed) {
    if (except.contains(o.key)) continue;
    ASSERT_TRUE(to->PutObject(o.key, *from.GetObject(o.key)).ok()) << o.key;
  }
}

// A report written by someone other than the attempt the coordinator handed the shard to, or
// naming files that are not what it says: the coordinator refuses it and commits nothing.
TEST(ShardTrustTest, AForgedReportIsRefusedAndNothingIsCommitted) {
  struct Case {
    const char* name;
    // Edits the genuine report (parsed) and the genuine files in `store`.
    std::function<void(ShardReport*, MemoryStore*)> forge;
    const char* why;
  };
  const std::vector<Case> cases = {
      {"an attempt token not handed out",
       [](ShardReport* r, MemoryStore*) { r->token = NewAttemptToken(); },
       "attempt token"},
      {"a file's bytes replaced (same size)",
       [](ShardReport* r, MemoryStore* s) {
         const std::string key = r->units[0].files[0].key;
         std::string bytes = *s->GetObject(key);
         bytes[bytes.size() / 2] ^= 0x5a;
         ASSERT_TRUE(s->PutObject(key, bytes).ok());
       },
       "checksum"},
      {"a checksum that is not the file's",
       [](ShardReport* r, MemoryStore*) { r->units[0].files[0].xxh64 = "0123456789abcdef"; },
       "checksum"},
      {"more rows than the file holds",
       [](ShardReport* r, MemoryStore*) { r->units[1].files[0].rows += 1000; }, "rows"},
      {"a size that is not the file's",
       [](ShardReport* r, MemoryStore*) { r->units[2].files[0].bytes += 1; }, "bytes"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    MemoryStore store(c.name);
    CoordinatorThread coordinator(&store);
    // The genuine attempt runs against a copy of DEST (the plan and the lease), so that the
    // coordinator sees only what the attacker puts in DEST.
    MemoryStore genuine("genuine");
    CopyObjects(store, &genuine, {});
    Attempt real = RunAttempt(&genuine, 0, 1, 0, 0, {}, &coordinator.clock);
    ASSERT_TRUE(real.result.ok()) << real.result.status().ToString();
    auto reports = genuine.List("_shards/0/report-");
    ASSERT_EQ(reports->size(), 1u);
    const std::string report_key = reports->front().key;
    auto report = ParseShardReport(*genuine.GetObject(report_key), "report");
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    std::set<std::string> not_copied = Keys(store);
    not_copied.insert(report_key);
    const std::vector<ObjectInfo> progress = *genuine.List("_shards/0/progress-");
    for (const ObjectInfo& o : progress) not_copied.insert(o.key);
    CopyObjects(genuine, &store, not_copied);
    c.forge(&*report, &store);
    ASSERT_TRUE(store.PutObject(report_key, *SerializeShardReport(*report)).ok());

    const Result<DumpResult>& result = coordinator.Join();
    ASSERT_FALSE(result.ok());
    EXPECT_NE(result.status().message().find(c.why), std::string::npos)
        << result.status().message();
    EXPECT_NE(result.status().message().find(report_key), std::string::npos)
        << result.status().message();
    EXPECT_FALSE(store.Head(kManifestKey).ok());
    const std::vector<TableInfo> tables = *coordinator.db.ListTables();
    for (const TableInfo& t : tables) {
      EXPECT_FALSE(store.Head(TableManifestKey(t.ref)).ok()) << t.ref.QualifiedName();
    }
  }
}

// A worker started after the commit (its plan gone): done at once, not after --plan-timeout.
TEST(ShardTrustTest, AWorkerStartedAfterTheCommitExitsAtOnce) {
  MemoryStore store("late");
  DumpOptions committed_with = Options();
  committed_with.shards = 1;
  DumpManifest m;
  m.dump_id = NewRunId();
  m.options = DumpOptionsToJson(committed_with);
  ASSERT_TRUE(store.PutObject(kManifestKey, ToJson(m).dump(2)).ok());
  SharedSnapshotDatabase db;
  AddTables(&db);
  FakeClock clock(FakeClock::kAutoAdvance);
  Attempt late = RunWorkerWith(&store, db, Options(), &clock);
  ASSERT_TRUE(late.result.ok()) << late.result.status().ToString();
  EXPECT_EQ(late.result->outcome, WorkerOutcome::kAlreadyCommitted);
  EXPECT_EQ(late.result->dump_id, m.dump_id);
  EXPECT_EQ(clock.sleeps(), 0u);  // it did not wait for a plan
  EXPECT_TRUE(late.opened.empty());

  // A coordinator that holds the lease is about to write its plan: the worker waits for it
  // (here until --plan-timeout, in fake time: nobody writes one).
  auto lease = DumpLease::Acquire(&store, NewRunId(), LeaseOptions{});
  ASSERT_TRUE(lease.ok());
  FakeClock waiting_clock(FakeClock::kAutoAdvance);
  Attempt early = RunWorkerWith(&store, db, Options(), &waiting_clock);
  ASSERT_FALSE(early.result.ok());
  EXPECT_EQ(early.result.status().code(), Code::kNotFound);
  EXPECT_GT(waiting_clock.sleeps(), 0u);
  // Another dump's manifest (other options) is not this worker's either.
  ASSERT_TRUE((*lease)->Release().ok());
  DumpOptions other = Options();
  other.exclude = {"main.t1"};
  FakeClock other_clock(FakeClock::kAutoAdvance);
  Attempt unrelated = RunWorkerWith(&store, db, other, &other_clock);
  EXPECT_FALSE(unrelated.result.ok());
}

// A coordinator killed (its lease left behind, stale) after its workers' units completed some
// tables: `--if-exists resume` takes the lease over, reuses those tables and plans only the
// others for the workers.
TEST(ShardTrustTest, ResumeAfterADeadCoordinatorReusesTheTablesItCommitted) {
  MemoryStore store("dead coordinator");
  std::string dead_run;
  std::set<std::string> first_tables;
  {
    SharedSnapshotDatabase db;
    AddTables(&db);
    ExportService first(&db, &store, Options());
    dead_run = first.run_id();
    auto ran = first.RunSharded(
        [&](const DumpPlan& plan, const ExportService::RemoteUnitSink& sink,
            std::stop_token stop) -> Status {
          // The workers finish the first half of the tables, then the coordinator dies.
          std::vector<WorkUnit> units;
          for (size_t t = 0; t < plan.tables.size() / 2; ++t) {
            first_tables.insert(plan.tables[t].info.ref.QualifiedName());
            for (const WorkUnit& u : plan.tables[t].units) units.push_back(u);
          }
          const UnitExporter exporter(&db, &store, Options(), NewAttemptId(dead_run, 0));
          LD_ASSIGN_OR_RETURN(std::vector<UnitOutput> outputs,
                              ExportWorkerUnits(exporter, units, {}, stop));
          LD_RETURN_IF_ERROR(sink(std::move(outputs)));
          return Status::Unavailable("killed");
        });
    ASSERT_FALSE(ran.ok());
  }
  ASSERT_FALSE(first_tables.empty());
  // SIGKILL leaves the lease, never renewed again.
  LeaseHolder dead{dead_run, "another-host", 4242, "2026-12-02T08:00:00.000Z", 0, 10'000};
  ASSERT_TRUE(store.PutObject(kLeaseKey, ToJson(dead).dump()).ok());

  SharedSnapshotDatabase db;
  AddTables(&db);
  // The takeover's read-back wait (and the lease's renewals) pass in fake time.
  FakeClock clock(FakeClock::kAutoAdvance);
  DumpOptions resume = OptionsOn(&clock);
  resume.if_exists = IfExists::kResume;
  ExportService second(&db, &store, resume);
  std::set<std::string> planned_again;
  auto ran = second.RunSharded([&](const DumpPlan& plan, const ExportService::RemoteUnitSink& sink,
                                   std::stop_token stop) -> Status {
    std::vector<WorkUnit> units;
    for (const PlannedTable& t : plan.tables) {
      planned_again.insert(t.info.ref.QualifiedName());
      for (const WorkUnit& u : t.units) units.push_back(u);
    }
    const UnitExporter exporter(&db, &store, Options(), NewAttemptId(second.run_id(), 0));
    LD_ASSIGN_OR_RETURN(std::vector<UnitOutput> outputs,
                        ExportWorkerUnits(exporter, units, {}, stop));
    return sink(std::move(outputs));
  });
  ASSERT_TRUE(ran.ok()) << ran.status().ToString();
  EXPECT_EQ(ran->reused_tables, first_tables.size());
  for (const std::string& t : first_tables) EXPECT_FALSE(planned_again.contains(t)) << t;
  EXPECT_EQ(planned_again.size() + first_tables.size(), ExpectedRows().size());
  EXPECT_EQ(ReadCommitted(store).rows, ExpectedRows());
}

TEST(ShardTrustTest, GcRemovesTheLeaseAndPlanOfADeadCoordinatorOnly) {
  FakeClock clock;
  MemoryStore store("gc");
  PlannedDump dump(&store, 1);
  std::string removed;
  // Its coordinator is alive: left alone.
  ASSERT_TRUE(RemoveDeadShardLease(store, clock, &removed).ok());
  EXPECT_EQ(removed, "");
  EXPECT_TRUE(store.Head(kLeaseKey).ok());
  // Dead: not renewed for far longer than kStaleRenewals intervals.
  LeaseHolder dead{dump.dump_id(), "another-host", 4242, "2026-12-02T08:00:00.000Z", 0, 10'000};
  ASSERT_TRUE(store.PutObject(kLeaseKey, ToJson(dead).dump()).ok());
  ASSERT_TRUE(RemoveDeadShardLease(store, clock, &removed).ok());
  EXPECT_NE(removed.find(dump.dump_id()), std::string::npos) << removed;
  EXPECT_FALSE(store.Head(kLeaseKey).ok());
  EXPECT_FALSE(store.Head(kShardPlanKey).ok());
  // A dead lease of another run than the plan's (not a coordinator's): left alone.
  PlannedDump other(&store, 1);
  dead.run_id = NewRunId();
  ASSERT_TRUE(store.PutObject(kLeaseKey, ToJson(dead).dump()).ok());
  ASSERT_TRUE(RemoveDeadShardLease(store, clock, &removed).ok());
  EXPECT_EQ(removed, "");
  EXPECT_TRUE(store.Head(kLeaseKey).ok());
}

}  // namespace
}  // namespace lakedump
