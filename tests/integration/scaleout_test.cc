// A sharded dump end to end (docs/scale-out.md) against the test PostgreSQL
// (LD_TEST_PG_DSN): a coordinator and its workers as separate lakedump processes, to a local
// folder and to radosgw (LD_TEST_S3_*), then under the test Slurm cluster (LD_TEST_SLURM,
// scripts/start-slurm). One snapshot (rows inserted once _plan.json exists are absent), one
// commit (verify --deep passes, counts equal), and the failure paths: two attempts of one
// index, a dead coordinator, a worker whose store fails, a cancelled and resubmitted worker,
// and bad input.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "dump/shard/shard_coordinator.h"
#include "fakes/cli_run.h"
#include "fakes/temp_dir.h"
#include "integration/fault_proxy_process.h"
#include "integration/lakedump_process.h"
#include "integration/pg_test_util.h"
#include "integration/s3_test_env.h"

namespace lakedump {
namespace {

using json = nlohmann::json;

// The JSON of a stored report or progress object (zstd-compressed), as Debian's zstd tool
// reads it (not our codec), or "" when it cannot.
std::string Unzstd(const std::string& stored, const TempDir& tmp) {
  const std::string in = tmp.Sub("stored.zst");
  std::ofstream(in, std::ios::binary) << stored;
  FILE* p = popen(("zstd -dc -q " + testing_cli::Quote(in)).c_str(), "r");
  if (p == nullptr) return "";
  std::string text;
  char buf[65536];
  for (size_t n; (n = fread(buf, 1, sizeof(buf), p)) > 0;) text.append(buf, n);
  return pclose(p) == 0 ? text : "";
}
using testing_cli::Background;
using testing_cli::ExpectOneLineError;
using testing_cli::Quote;
using testing_cli::ReadFile;
using testing_cli::RunLakedump;
using testing_cli::RunResult;
using testing_cli::WaitUntil;
using testing_pg::AdminConn;
using testing_pg::QueryOne;
using testing_pg::ScratchSchema;
using namespace std::chrono_literals;

// A destination: a local folder or a fresh prefix in the test bucket.
struct Dest {
  std::string url;
  std::string flags;  // --endpoint for S3
  std::optional<testing_s3::TestS3> s3;
  std::string prefix;
  const TempDir* tmp = nullptr;

  bool Exists(const std::string& key) const {
    if (!s3) return std::filesystem::exists(url + "/" + key);
    int rc = 0;
    s3->Aws(fmt::format("s3api head-object --bucket {} --key {}/{}", s3->bucket, prefix, key),
            *tmp, &rc);
    return rc == 0;
  }
  // The keys under `under` (relative to the dump root).
  std::vector<std::string> Keys(const std::string& under) const {
    std::vector<std::string> keys;
    if (!s3) {
      const std::filesystem::path root(url);
      std::error_code ec;
      for (auto it = std::filesystem::recursive_directory_iterator(root, ec);
           !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
        if (!it->is_regular_file()) continue;
        const std::string key = std::filesystem::relative(it->path(), root).string();
        if (key.starts_with(under)) keys.push_back(key);
      }
      return keys;
    }
    std::istringstream listed(s3->Aws(
        fmt::format("s3api list-objects-v2 --bucket {} --prefix {}/{} --query 'Contents[].Key' "
                    "--output text",
                    s3->bucket, prefix, under),
        *tmp));
    for (std::string key; listed >> key;) {
      if (key.starts_with(prefix + "/")) keys.push_back(key.substr(prefix.size() + 1));
    }
    return keys;
  }
  std::string Get(const std::string& key) const {
    if (!s3) return ReadFile(url + "/" + key);
    const std::string local = tmp->Sub("got.json");
    s3->Aws(fmt::format("s3 cp s3://{}/{}/{} {}", s3->bucket, prefix, key, local), *tmp);
    return ReadFile(local);
  }
};

class ScaleOutTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (testing_pg::TestDsn() == nullptr) GTEST_SKIP() << "LD_TEST_PG_DSN is not set";
    admin_ = AdminConn();
    ASSERT_TRUE(admin_);
    schema_ = std::make_unique<ScratchSchema>(admin_.get(), "ld_shard");
  }

  // A table big enough to be split (about 8 MiB of heap: 4 ranges at --split-size 2MiB)
  // plus `small` small tables.
  void MakeTables(int small, int big_rows = 120000) {
    const std::string s = schema_->q();
    ASSERT_TRUE(admin_
                    ->Exec(fmt::format(
                        "CREATE TABLE {0}.big (id bigint PRIMARY KEY, v text); INSERT INTO "
                        "{0}.big SELECT g, repeat(md5(g::text), 2) FROM generate_series(1, {1}) "
                        "g; ANALYZE {0}.big",
                        s, big_rows))
                    .ok());
    for (int i = 0; i < small; ++i) {
      ASSERT_TRUE(admin_
                      ->Exec(fmt::format("CREATE TABLE {0}.t{1} (id int, name text); INSERT INTO "
                                         "{0}.t{1} SELECT g, 'n' || g FROM generate_series(1, {2}) g",
                                         s, i, i % 5 * 10))
                      .ok());
    }
  }

  std::map<std::string, uint64_t> Counts(int small) {
    std::map<std::string, uint64_t> c;
    c["big"] = std::stoull(QueryOne(*admin_, fmt::format("SELECT count(*) FROM {}.big",
                                                         schema_->q())));
    for (int i = 0; i < small; ++i) {
      const std::string t = fmt::format("t{}", i);
      c[t] = std::stoull(QueryOne(*admin_, fmt::format("SELECT count(*) FROM {}.{}",
                                                       schema_->q(), t)));
    }
    return c;
  }

  // The options every process of the dump shares.
  std::string Common(const Dest& d, const std::string& dsn = "", int jobs = 2) const {
    return fmt::format("dump {} {} --tables {} --split-size 2MiB --schema-from lakedump "
                       "--progress none -j {} {}",
                       Quote(dsn.empty() ? testing_pg::TestDsn() : dsn), Quote(d.url),
                       Quote(schema_->name() + ".*"), jobs, d.flags);
  }

  // The test server's database through `proxy` (tools/faultproxy in front of its port), with
  // time to connect on a loaded machine (the capped link slows the handshake too).
  std::string DsnThrough(const ProxyProcess& proxy) {
    return fmt::format("postgresql://postgres@127.0.0.1:{}/{}?connect_timeout=60",
                       proxy.endpoint().substr(proxy.endpoint().rfind(':') + 1),
                       QueryOne(*admin_, "SELECT current_database()"));
  }

  Dest LocalDest() {
    Dest d;
    d.url = tmp_.Sub("dump");
    d.tmp = &tmp_;
    return d;
  }
  std::optional<Dest> S3Dest() {
    auto s3 = testing_s3::UseTestS3();
    if (!s3) return std::nullopt;
    Dest d;
    d.s3 = s3;
    d.prefix = fmt::format("scaleout-{}-{}", getpid(), counter_++);
    d.url = fmt::format("s3://{}/{}", s3->bucket, d.prefix);
    d.flags = "--endpoint " + s3->endpoint;
    d.tmp = &tmp_;
    return d;
  }

  // The rows per table that the committed manifest records.
  std::map<std::string, uint64_t> ManifestRows(const Dest& d) {
    std::map<std::string, uint64_t> rows;
    const json m = json::parse(d.Get("_manifest.json"), nullptr, false);
    EXPECT_TRUE(m.is_object());
    if (!m.is_object()) return rows;
    for (const json& t : m["tables"]) rows[t["table"].get<std::string>()] = t["rows"];
    return rows;
  }

  // The worker attempts whose files the committed dump's tables name.
  std::set<std::string> CommittedAttempts(const Dest& d) {
    const json m = json::parse(d.Get("_manifest.json"));
    const std::string dump_id = m["dump_id"];
    std::set<std::string> attempts;
    for (const json& t : m["tables"]) {
      const json table = json::parse(d.Get(t["key"].get<std::string>()));
      for (const json& f : table["files"]) {
        attempts.insert(AttemptOfKey(f["key"].get<std::string>(), dump_id));
      }
    }
    return attempts;
  }

  // The coordinator, a hook once _plan.json exists, N workers at once, and the outcome.
  void RunSharded(const Dest& d, int shards, const std::function<void()>& after_plan,
                  RunResult* coordinator, std::vector<RunResult>* workers,
                  const std::string& extra = "", const std::string& coordinator_extra = "") {
    Background c(Common(d) + fmt::format(" --shards {} --coordinate --shard-timeout 150s {}",
                                         shards, coordinator_extra),
                 tmp_, "coordinator");
    ASSERT_TRUE(WaitUntil([&] { return d.Exists("_plan.json"); }, 60s))
        << c.Wait(1s).err;
    after_plan();
    std::vector<std::unique_ptr<Background>> w;
    for (int i = 0; i < shards; ++i) {
      w.push_back(std::make_unique<Background>(
          Common(d) + fmt::format(" --shards {} --shard {} {}", shards, i, extra), tmp_,
          fmt::format("worker{}", i)));
    }
    for (auto& p : w) workers->push_back(p->Wait());
    *coordinator = c.Wait();
  }

  void DumpsOneSnapshotCommittedOnce(const Dest& d) {
    constexpr int kSmall = 24;
    MakeTables(kSmall);
    std::map<std::string, uint64_t> at_snapshot;
    RunResult coordinator;
    std::vector<RunResult> workers;
    RunSharded(d, 4, [&] {
      at_snapshot = Counts(kSmall);
      // After the snapshot: absent from the dump.
      ASSERT_TRUE(admin_->Exec(fmt::format("INSERT INTO {0}.big SELECT g, 'late' FROM "
                                           "generate_series(200001, 200500) g; INSERT INTO "
                                           "{0}.t0 VALUES (1, 'late')",
                                           schema_->q()))
                      .ok());
    }, &coordinator, &workers);
    for (const RunResult& w : workers) EXPECT_EQ(w.code, 0) << w.err;
    ASSERT_EQ(coordinator.code, 0) << coordinator.err;
    EXPECT_NE(coordinator.out.find("dumped 25 tables"), std::string::npos) << coordinator.out;
    EXPECT_EQ(ManifestRows(d), at_snapshot);
    EXPECT_NE(Counts(kSmall), at_snapshot);
    // The manifest records the sharding; plan and reports are gone.
    const json m = json::parse(d.Get("_manifest.json"));
    EXPECT_EQ(m["options"]["shards"], 4);
    EXPECT_FALSE(d.Exists("_plan.json"));
    RunResult v = RunLakedump("verify " + Quote(d.url) + " --deep " + d.flags, tmp_, 300);
    EXPECT_EQ(v.code, 0) << v.out << v.err;
  }

  std::unique_ptr<PgConn> admin_;
  std::unique_ptr<ScratchSchema> schema_;
  TempDir tmp_;
  static inline int counter_ = 0;
};

TEST_F(ScaleOutTest, CoordinatorAndFourWorkersToLocalFolder) {
  DumpsOneSnapshotCommittedOnce(LocalDest());
}

TEST_F(ScaleOutTest, CoordinatorAndFourWorkersToS3) {
  auto d = S3Dest();
  if (!d) GTEST_SKIP() << "LD_TEST_S3_ENDPOINT is not set";
  DumpsOneSnapshotCommittedOnce(*d);
}

TEST_F(ScaleOutTest, TwoAttemptsOfOneIndexAtOnceCommitOne) {
  MakeTables(6, 40000);
  const Dest d = LocalDest();
  const auto at_snapshot = Counts(6);
  Background c(Common(d) + " --shards 2 --coordinate --shard-timeout 150s", tmp_, "coordinator");
  ASSERT_TRUE(WaitUntil([&] { return d.Exists("_plan.json"); }, 60s)) << c.Wait(1s).err;
  Background a(Common(d) + " --shards 2 --shard 0", tmp_, "a");
  Background b(Common(d) + " --shards 2 --shard 0", tmp_, "b");
  Background w1(Common(d) + " --shards 2 --shard 1", tmp_, "w1");
  EXPECT_EQ(a.Wait().code, 0);
  EXPECT_EQ(b.Wait().code, 0);
  EXPECT_EQ(w1.Wait().code, 0);
  RunResult cr = c.Wait();
  ASSERT_EQ(cr.code, 0) << cr.err;
  EXPECT_EQ(ManifestRows(d), at_snapshot);
  // Exactly one attempt of shard 0 in the committed tables.
  const std::set<std::string> attempts = CommittedAttempts(d);
  int shard0 = 0;
  for (const std::string& at : attempts) shard0 += at.find("-s0-") != std::string::npos;
  EXPECT_EQ(shard0, 1) << testing::PrintToString(attempts);
  // The loser's files (if it finished after the commit) go with gc; then nothing is stray.
  RunResult gc = RunLakedump("gc " + Quote(d.url), tmp_);
  EXPECT_EQ(gc.code, 0) << gc.err;
  RunResult v = RunLakedump("verify " + Quote(d.url), tmp_, 300);
  EXPECT_EQ(v.code, 0) << v.out << v.err;
}

// A worker killed outright (SIGKILL: no last word) once its progress object records finished
// units; the same index run again takes them over, dumps only the rest, and the coordinator
// commits exact counts from the files of both attempts, which gc keeps.
TEST_F(ScaleOutTest, ARetriedShardResumesWhatItsKilledAttemptFinished) {
  constexpr int kSmall = 8;
  MakeTables(kSmall);
  const std::optional<Dest> s3 = S3Dest();
  const Dest d = s3 ? *s3 : LocalDest();
  const auto at_snapshot = Counts(kSmall);
  Background c(Common(d) + " --shards 2 --coordinate --shard-timeout 300s", tmp_, "coordinator");
  ASSERT_TRUE(WaitUntil([&] { return d.Exists("_plan.json"); }, 60s)) << c.Wait(1s).err;
  const json plan = json::parse(d.Get("_plan.json"), nullptr, false);
  ASSERT_TRUE(plan.is_object());
  const size_t shard0_units = plan["shards"][0].size();
  ASSERT_GE(shard0_units, 3u) << plan["shards"].dump();
  Background w1(Common(d) + " --shards 2 --shard 1", tmp_, "w1");
  // Shard 0 reads through a proxy slow enough (each range of the big table takes ~15 s) that
  // it is still dumping when its first progress object is written (10 s in), one unit at a
  // time.
  ProxyProcess proxy("127.0.0.1:" + QueryOne(*admin_, "SELECT current_setting('port')"),
                     {"--conn-rate", "150000"});
  ASSERT_TRUE(proxy.ok());
  Background slow(Common(d, DsnThrough(proxy), /*jobs=*/1) + " --shards 2 --shard 0", tmp_,
                  "slow");
  auto progress_keys = [&] {
    std::vector<std::string> keys;
    for (const std::string& k : d.Keys("_shards/0/progress-")) {
      if (k.ends_with(".json.zst")) keys.push_back(k);
    }
    return keys;
  };
  ASSERT_TRUE(WaitUntil([&] { return !progress_keys().empty(); }, 150s)) << slow.Wait(1s).err;
  slow.Signal(SIGKILL);
  EXPECT_EQ(slow.Wait().code, -1);
  EXPECT_FALSE(d.Exists("_manifest.json"));
  const std::vector<std::string> keys = progress_keys();
  ASSERT_EQ(keys.size(), 1u);
  const json progress = json::parse(Unzstd(d.Get(keys[0]), tmp_), nullptr, false);
  ASSERT_TRUE(progress.is_object());
  EXPECT_EQ(progress["format"], "lakedump-shard-progress");
  const std::string killed = progress["attempt"];
  const size_t recorded = progress["units"].size();
  ASSERT_GE(recorded, 1u);
  ASSERT_LT(recorded, shard0_units) << "the slow attempt finished before it was killed";

  // The same index again, at full speed: it takes over what the killed attempt recorded.
  const RunResult again = RunLakedump(Common(d) + " --shards 2 --shard 0 --json", tmp_, 300);
  ASSERT_EQ(again.code, 0) << again.err;
  const json summary = json::parse(again.out, nullptr, false);
  ASSERT_TRUE(summary.is_object()) << again.out;
  EXPECT_EQ(summary["units"], shard0_units);
  EXPECT_GE(summary["taken_over_units"].get<size_t>(), recorded) << again.out;
  EXPECT_LT(summary["taken_over_units"].get<size_t>(), shard0_units) << again.out;
  EXPECT_EQ(w1.Wait().code, 0);
  const RunResult cr = c.Wait();
  ASSERT_EQ(cr.code, 0) << cr.err;
  EXPECT_EQ(ManifestRows(d), at_snapshot);
  // The committed tables name files of both attempts of shard 0.
  const std::set<std::string> attempts = CommittedAttempts(d);
  EXPECT_TRUE(attempts.count(killed)) << testing::PrintToString(attempts);
  EXPECT_TRUE(attempts.count(summary["attempt"].get<std::string>()))
      << testing::PrintToString(attempts);
  EXPECT_TRUE(progress_keys().empty());  // swept with the reports after the commit
  const RunResult gc = RunLakedump("gc " + Quote(d.url) + " " + d.flags, tmp_);
  EXPECT_EQ(gc.code, 0) << gc.err;
  const RunResult v = RunLakedump("verify " + Quote(d.url) + " --deep " + d.flags, tmp_, 300);
  EXPECT_EQ(v.code, 0) << v.out << v.err;
}

TEST_F(ScaleOutTest, KilledCoordinatorFailsTheWorkersClearly) {
  MakeTables(3, 1000);
  const Dest d = LocalDest();
  Background c(Common(d) + " --shards 2 --coordinate", tmp_, "coordinator");
  ASSERT_TRUE(WaitUntil([&] { return d.Exists("_plan.json"); }, 60s)) << c.Wait(1s).err;
  c.Signal(SIGKILL);
  c.Wait();
  RunResult w = RunLakedump(Common(d) + " --shards 2 --shard 0", tmp_, 120);
  ExpectOneLineError(w, 3, "coordinator");
  EXPECT_FALSE(d.Exists("_manifest.json"));
}

// A coordinator SIGKILLed after one shard's tables were committed: a plain run is refused
// (the dead lease), `--if-exists resume --shards 2` takes the lease over, reuses those tables
// and commits the rest; a worker started after that commit exits 0 at once.
TEST_F(ScaleOutTest, KilledCoordinatorThenResumeWithShardsCommitsAndALateWorkerExitsAtOnce) {
  MakeTables(6, 20000);
  const Dest d = LocalDest();
  Background c(Common(d) + " --shards 2 --coordinate --shard-timeout 150s", tmp_, "coordinator");
  ASSERT_TRUE(WaitUntil([&] { return d.Exists("_plan.json"); }, 60s)) << c.Wait(1s).err;
  const std::string dead_dump = json::parse(d.Get("_plan.json"))["dump_id"];
  RunResult w0 = RunLakedump(Common(d) + " --shards 2 --shard 0", tmp_, 120);
  ASSERT_EQ(w0.code, 0) << w0.err;
  auto committed_tables = [&] {
    size_t n = 0;
    for (const std::string& k : d.Keys(schema_->name())) n += k.ends_with("_table.json");
    return n;
  };
  ASSERT_TRUE(WaitUntil([&] { return committed_tables() > 0; }, 60s));
  c.Signal(SIGKILL);
  c.Wait();
  const size_t kept = committed_tables();
  EXPECT_FALSE(d.Exists("_manifest.json"));
  EXPECT_TRUE(d.Exists("_lease.json"));

  const auto at_snapshot = Counts(6);
  Background again(Common(d) + " --shards 2 --coordinate --if-exists resume --shard-timeout 150s",
                   tmp_, "again");
  ASSERT_TRUE(WaitUntil(
      [&] {
        const json p = json::parse(d.Get("_plan.json"), nullptr, false);
        return p.is_object() && p["dump_id"] != dead_dump;
      },
      60s))
      << again.Wait(1s).err;
  // Only the tables not committed before are planned again.
  const json plan = json::parse(d.Get("_plan.json"));
  std::set<std::string> planned;
  for (const json& shard : plan["shards"]) {
    for (const json& u : shard) planned.insert(u["table"].get<std::string>());
  }
  EXPECT_EQ(planned.size() + kept, 7u) << plan["shards"].dump();
  Background a(Common(d) + " --shards 2 --shard 0", tmp_, "a");
  Background b(Common(d) + " --shards 2 --shard 1", tmp_, "b");
  EXPECT_EQ(a.Wait().code, 0);
  EXPECT_EQ(b.Wait().code, 0);
  const RunResult cr = again.Wait();
  ASSERT_EQ(cr.code, 0) << cr.err;
  EXPECT_NE(cr.out.find(fmt::format("({} reused)", kept)), std::string::npos) << cr.out;
  EXPECT_EQ(ManifestRows(d), at_snapshot);
  bool dead_files = false;  // the dead run's units are reused, with their files
  const json manifest = json::parse(d.Get("_manifest.json"));
  for (const json& t : manifest["tables"]) {
    const json table = json::parse(d.Get(t["key"].get<std::string>()));
    for (const json& f : table["files"]) {
      dead_files |= f["key"].get<std::string>().find(dead_dump) != std::string::npos;
    }
  }
  EXPECT_TRUE(dead_files);
  const RunResult v = RunLakedump("verify " + Quote(d.url) + " --deep", tmp_, 300);
  EXPECT_EQ(v.code, 0) << v.out << v.err;

  // A worker of that dump started only now: done at once (not after --plan-timeout).
  const auto started = std::chrono::steady_clock::now();
  const RunResult late = RunLakedump(Common(d) + " --shards 2 --shard 1 --plan-timeout 10m",
                                     tmp_, 60);
  EXPECT_EQ(late.code, 0) << late.err;
  EXPECT_NE(late.out.find("is committed already: nothing to do"), std::string::npos)
      << late.out;
  EXPECT_LT(std::chrono::steady_clock::now() - started, 30s);
}

// gc removes the lease and plan a killed coordinator left, and only those.
TEST_F(ScaleOutTest, GcRemovesADeadCoordinatorsLease) {
  MakeTables(2, 1000);
  const Dest d = LocalDest();
  Background c(Common(d) + " --shards 2 --coordinate", tmp_, "coordinator");
  ASSERT_TRUE(WaitUntil([&] { return d.Exists("_plan.json"); }, 60s)) << c.Wait(1s).err;
  const RunResult live = RunLakedump("gc " + Quote(d.url), tmp_);
  EXPECT_EQ(live.code, 0) << live.err;
  EXPECT_TRUE(d.Exists("_lease.json"));  // its coordinator is alive
  c.Signal(SIGKILL);
  c.Wait();
  const RunResult gc = RunLakedump("gc " + Quote(d.url), tmp_);
  EXPECT_EQ(gc.code, 0) << gc.err;
  EXPECT_NE(gc.out.find("removed the lease and plan of a dead coordinator"), std::string::npos)
      << gc.out;
  EXPECT_FALSE(d.Exists("_lease.json"));
  EXPECT_FALSE(d.Exists("_plan.json"));
  // A sharded dump starts there again. The killed run's journal stays (gc removes the
  // lease and plan only), so it takes --if-exists resume.
  RunResult coordinator;
  std::vector<RunResult> workers;
  RunSharded(d, 2, [] {}, &coordinator, &workers, "", "--if-exists resume");
  EXPECT_EQ(coordinator.code, 0) << coordinator.err;
}

// An attacker who can write DEST edits the live plan (the coordinator's lease is fresh, the
// options and source match) to have a worker dump pg_catalog.pg_authid: refused with one
// line, exit 2, nothing written.
TEST_F(ScaleOutTest, APlanEditedToNameACatalogTableIsRefusedNothingWritten) {
  MakeTables(2, 1000);
  const Dest d = LocalDest();
  Background c(Common(d) + " --shards 1 --coordinate --shard-timeout 60s", tmp_, "coordinator");
  ASSERT_TRUE(WaitUntil([&] { return d.Exists("_plan.json"); }, 60s)) << c.Wait(1s).err;
  json plan = json::parse(d.Get("_plan.json"));
  plan["shards"][0][0]["schema"] = "pg_catalog";
  plan["shards"][0][0]["table"] = "pg_authid";
  plan["shards"][0][0].erase("range");
  plan["shards"][0][0]["unit"] = 0;
  plan["shards"][0][0]["count"] = 1;
  testing_cli::WriteFile(d.url + "/_plan.json", plan.dump());
  auto keys = [&] {  // what is stored (not the lease's renewal in flight)
    std::set<std::string> k;
    for (const std::string& key : d.Keys("")) {
      if (key.find(".tmp-") == std::string::npos) k.insert(key);
    }
    return k;
  };
  const auto before = keys();
  const RunResult w = RunLakedump(Common(d) + " --shards 1 --shard 0", tmp_, 60);
  ExpectOneLineError(w, 2, "pg_catalog.pg_authid");
  EXPECT_EQ(keys(), before);
  EXPECT_FALSE(std::filesystem::exists(d.url + "/pg_catalog"));
  c.Signal(SIGTERM);
  c.Wait();
  EXPECT_FALSE(d.Exists("_manifest.json"));
}

TEST_F(ScaleOutTest, AWorkerWhoseStoreFailsFailsTheCoordinator) {
  MakeTables(4, 1000);
  const Dest d = LocalDest();
  RunResult coordinator;
  std::vector<RunResult> workers;
  RunSharded(d, 2, [&] {
    // A file where a table's folder must go: that table's writes fail.
    std::filesystem::create_directories(d.url + "/" + schema_->name());
    testing_cli::WriteFile(d.url + "/" + schema_->name() + "/t1", "in the way");
  }, &coordinator, &workers);
  // The worker holding t1 fails naming what is in the way. The coordinator then fails at
  // once, ending the snapshot and its lease: the other worker may finish first, fail for want
  // of the snapshot (1), or find the coordinator gone (3, as when it is killed).
  int failed = 0, in_the_way = 0;
  for (const RunResult& w : workers) {
    EXPECT_TRUE(w.code == 0 || w.code == 1 || w.code == 3) << w.code << w.err;
    failed += w.code != 0;
    in_the_way += w.err.find("in the way") != std::string::npos;
  }
  EXPECT_GE(failed, 1) << workers[0].err << workers[1].err;
  EXPECT_EQ(in_the_way, 1) << workers[0].err << workers[1].err;
  ExpectOneLineError(coordinator, 1, "failed");
  EXPECT_FALSE(d.Exists("_manifest.json"));
}

TEST_F(ScaleOutTest, BadInputIsOneLineAndCommitsNothing) {
  MakeTables(2, 1000);
  const Dest d = LocalDest();
  // Before any plan: out of range, missing counterpart flags, SQLite.
  ExpectOneLineError(RunLakedump(Common(d) + " --shards 4 --shard 4", tmp_), 2, "out of range");
  ExpectOneLineError(RunLakedump(Common(d) + " --shard 0", tmp_), 2, "--shards N");
  ExpectOneLineError(RunLakedump(Common(d) + " --coordinate", tmp_), 2, "--shards N");
  ExpectOneLineError(RunLakedump(Common(d) + " --shards 2", tmp_), 2, "--coordinate");
  ExpectOneLineError(RunLakedump(Common(d) + " --shards 2 --coordinate --shard 1", tmp_), 2,
                     "exclude");
  ExpectOneLineError(RunLakedump(Common(d) + " --shards 2 --shard auto", tmp_), 2,
                     "JOB_COMPLETION_INDEX");
  ExpectOneLineError(RunLakedump(Common(d) + " --shards 2 --shard x", tmp_), 2, "--shard");
  ExpectOneLineError(RunLakedump(Common(d) + " --no-snapshot", tmp_), 2,
                     "--no-snapshot is for sharded dumps");
  // No plan within the timeout.
  ExpectOneLineError(RunLakedump(Common(d) + " --shards 2 --shard 0 --plan-timeout 1s", tmp_, 60),
                     1, "_plan.json");
  // A plan of 2 shards, and workers that do not fit it.
  Background c(Common(d) + " --shards 2 --coordinate --shard-timeout 60s", tmp_, "coordinator");
  ASSERT_TRUE(WaitUntil([&] { return d.Exists("_plan.json"); }, 60s)) << c.Wait(1s).err;
  ExpectOneLineError(RunLakedump(Common(d) + " --shards 3 --shard 0", tmp_, 60), 2,
                     "disagrees with the plan");
  ExpectOneLineError(
      RunLakedump(Common(d) + " --shards 2 --shard 0 --compression zstd", tmp_, 60), 2,
      "compression");
  ExpectOneLineError(RunLakedump(Common(d) + " --shards 2 --shard 0 --tables 'other.*'", tmp_, 60),
                     2, "tables");
  c.Signal(SIGTERM);
  RunResult cr = c.Wait();
  EXPECT_EQ(cr.code, 1) << cr.err;
  EXPECT_FALSE(d.Exists("_manifest.json"));
  // Shards that never report: the coordinator gives up at --shard-timeout.
  const Dest d2{tmp_.Sub("dump2"), "", std::nullopt, "", &tmp_};
  RunResult timeout = RunLakedump(Common(d2) + " --shards 2 --coordinate --shard-timeout 2s", tmp_,
                                  120);
  ExpectOneLineError(timeout, 1, "--shard-timeout passed with shards 0, 1 not reported");
  EXPECT_FALSE(d2.Exists("_manifest.json"));
}

TEST_F(ScaleOutTest, NoSnapshotWorkersReadOnTheirOwnAndTheDumpSaysSo) {
  MakeTables(4, 20000);
  const Dest d = LocalDest();
  Background c(Common(d) + " --shards 2 --coordinate --no-snapshot --shard-timeout 150s", tmp_,
               "coordinator");
  ASSERT_TRUE(WaitUntil([&] { return d.Exists("_plan.json"); }, 60s)) << c.Wait(1s).err;
  // The plan names no snapshot to import.
  const json plan = json::parse(d.Get("_plan.json"), nullptr, false);
  ASSERT_TRUE(plan.is_object());
  EXPECT_EQ(plan["snapshot_id"], "");
  EXPECT_EQ(plan["no_snapshot"], true);
  EXPECT_EQ(plan["options"]["no_snapshot"], true);
  // Planned, the coordinator holds no lock on the tables (nor the transaction they came with;
  // its session ends as the plan is written)...
  const std::string locks = fmt::format(
      "SELECT count(*) FROM pg_catalog.pg_locks l JOIN pg_catalog.pg_class c ON c.oid = "
      "l.relation WHERE c.relnamespace = '{}'::regnamespace",
      schema_->q());
  EXPECT_TRUE(WaitUntil([&] { return QueryOne(*admin_, locks) == "0"; }, 10s))
      << QueryOne(*admin_, locks) << " locks";
  // ...so rows written now are read by the workers that start after them.
  ASSERT_TRUE(admin_->Exec(fmt::format("INSERT INTO {}.t0 VALUES (-1, 'late')", schema_->q()))
                  .ok());
  const auto at_start = Counts(4);
  EXPECT_EQ(at_start.at("t0"), 1u);
  // A worker without --no-snapshot does not fit the plan.
  ExpectOneLineError(RunLakedump(Common(d) + " --shards 2 --shard 0", tmp_, 60), 2,
                     "no_snapshot");
  Background w0(Common(d) + " --shards 2 --shard 0 --no-snapshot", tmp_, "w0");
  Background w1(Common(d) + " --shards 2 --shard 1 --no-snapshot", tmp_, "w1");
  for (Background* w : {&w0, &w1}) {
    const RunResult r = w->Wait();
    EXPECT_EQ(r.code, 0) << r.err;
  }
  const RunResult cr = c.Wait();
  ASSERT_EQ(cr.code, 0) << cr.err;
  EXPECT_EQ(ManifestRows(d), at_start);
  const json m = json::parse(d.Get("_manifest.json"));
  EXPECT_EQ(m["no_snapshot"], true);
  EXPECT_EQ(m["single_snapshot"], false);
  EXPECT_EQ(m["options"]["no_snapshot"], true);
  EXPECT_FALSE(m["source"].contains("snapshot_id")) << m["source"];
  EXPECT_NE(m["source"].value("snapshot", "").find("--no-snapshot"), std::string::npos)
      << m["source"];
  const RunResult ls = RunLakedump("ls " + Quote(d.url), tmp_, 60);
  EXPECT_EQ(ls.code, 0) << ls.err;
  EXPECT_NE(ls.out.find("snapshot: none (--no-snapshot)"), std::string::npos) << ls.out;
  const RunResult v = RunLakedump("verify " + Quote(d.url) + " --deep", tmp_, 300);
  EXPECT_EQ(v.code, 0) << v.out << v.err;
  EXPECT_NE(v.out.find("not one snapshot of the source"), std::string::npos) << v.out;
  const RunResult vj = RunLakedump("verify " + Quote(d.url) + " --json", tmp_, 300);
  EXPECT_EQ(vj.code, 0) << vj.out << vj.err;
  EXPECT_EQ(nlohmann::json::parse(vj.out)["one_snapshot"], false) << vj.out;
}

TEST_F(ScaleOutTest, NoSnapshotRefusesATableChangedAfterPlanning) {
  MakeTables(2, 1000);
  const Dest d = LocalDest();
  Background c(Common(d) + " --shards 1 --coordinate --no-snapshot --shard-timeout 150s", tmp_,
               "coordinator");
  ASSERT_TRUE(WaitUntil([&] { return d.Exists("_plan.json"); }, 60s)) << c.Wait(1s).err;
  // Nothing holds DDL off any more: the worker reads a column planning did not describe.
  ASSERT_TRUE(
      admin_->Exec(fmt::format("ALTER TABLE {}.t1 ADD COLUMN extra int", schema_->q())).ok());
  const RunResult w = RunLakedump(Common(d) + " --shards 1 --shard 0 --no-snapshot", tmp_, 120);
  EXPECT_EQ(w.code, 0) << w.err;
  const RunResult cr = c.Wait();
  ExpectOneLineError(cr, 1, "changed between planning and a worker's read");
  EXPECT_NE(cr.err.find("t1"), std::string::npos) << cr.err;
  EXPECT_FALSE(d.Exists("_manifest.json"));
}

// --- Slurm (scripts/start-slurm): the same dump as batch jobs. ---

bool HaveSlurm() { return std::getenv("LD_TEST_SLURM") && std::getenv("SLURM_CONF"); }

std::string Sh(const std::string& cmd, int* rc = nullptr) {
  TempDir t;
  const int status = std::system((cmd + " >" + t.Sub("o") + " 2>&1").c_str());
  if (rc) *rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return ReadFile(t.Sub("o"));
}

// sbatch ... --parsable: the job id.
std::string Submit(const std::string& args) {
  int rc = 0;
  std::string out = Sh("sbatch --parsable " + args, &rc);
  EXPECT_EQ(rc, 0) << out;
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out.substr(0, out.find(';'));
}

bool JobGone(const std::string& id) { return Sh("squeue -h -j " + id).find(id) == std::string::npos; }

class ScaleOutSlurmTest : public ScaleOutTest {
 protected:
  void SetUp() override {
    if (!HaveSlurm()) GTEST_SKIP() << "LD_TEST_SLURM is not set (scripts/start-slurm)";
    ScaleOutTest::SetUp();
  }
  // A job running `lakedump ARGS`, whose exit code lands in DIR/rc-<name>[-<index>].
  std::string Job(const std::string& args, const std::string& name, const std::string& sbatch) {
    const std::string script = tmp_.Sub("job-" + name + ".sh");
    testing_cli::WriteFile(
        script, fmt::format("#!/bin/sh\n{} {} >{}/{}-$SLURM_ARRAY_TASK_ID.out 2>&1\n"
                            "echo $? >{}/rc-{}-${{SLURM_ARRAY_TASK_ID:-x}}\n",
                            LAKEDUMP_BINARY, args, tmp_.path(), name, tmp_.path(), name));
    return Submit(fmt::format("{} -o /dev/null {}", sbatch, script));
  }
  std::string Rc(const std::string& name, const std::string& index) {
    std::string rc = ReadFile(tmp_.Sub("rc-" + name + "-" + index));
    while (!rc.empty() && rc.back() == '\n') rc.pop_back();
    return rc;
  }
};

TEST_F(ScaleOutSlurmTest, CoordinatorAndArrayOfFourWorkersWithACancelledAndResubmittedShard) {
  constexpr int kSmall = 12;
  MakeTables(kSmall);
  const Dest d = LocalDest();
  const std::string coordinator =
      Job(Common(d) + " --shards 4 --coordinate --shard-timeout 300s", "coordinator", "");
  ASSERT_TRUE(WaitUntil([&] { return d.Exists("_plan.json"); }, 90s));
  const auto at_snapshot = Counts(kSmall);
  ASSERT_TRUE(admin_->Exec(fmt::format("INSERT INTO {}.big VALUES (900001, 'late')",
                                       schema_->q()))
                  .ok());
  // Shards 0, 1 and 3 as one array; shard 2 reads through a proxy capped at 20 KB/s so that
  // it is cancelled mid-run, then submitted again as it would be by hand.
  const std::string workers = Job(Common(d) + " --shards 4 --shard auto", "w", "--array=0,1,3");
  ProxyProcess proxy("127.0.0.1:" + QueryOne(*admin_, "SELECT current_setting('port')"),
                     {"--conn-rate", "20000"});
  ASSERT_TRUE(proxy.ok());
  const std::string slow_dsn = DsnThrough(proxy);
  const std::string slow =
      Job(Common(d, slow_dsn) + " --shards 4 --shard auto", "slow", "--array=2");
  ASSERT_TRUE(WaitUntil([&] { return Sh("squeue -h -t R -j " + slow).find(slow) != std::string::npos; },
                        60s));
  // Inside the dump: its first data file is being written (minutes at 20 KB/s).
  std::this_thread::sleep_for(3s);
  Sh("scancel " + slow);
  ASSERT_TRUE(WaitUntil([&] { return JobGone(slow); }, 60s));
  EXPECT_FALSE(d.Exists("_manifest.json"));
  const std::string again = Job(Common(d) + " --shards 4 --shard auto", "again", "--array=2");
  ASSERT_TRUE(WaitUntil([&] { return JobGone(workers) && JobGone(again); }, 240s));
  ASSERT_TRUE(WaitUntil([&] { return JobGone(coordinator); }, 120s));
  for (const char* i : {"0", "1", "3"}) EXPECT_EQ(Rc("w", i), "0") << ReadFile(tmp_.Sub(std::string("w-") + i + ".out"));
  EXPECT_EQ(Rc("again", "2"), "0") << ReadFile(tmp_.Sub("again-2.out"));
  EXPECT_NE(Rc("slow", "2"), "0");
  ASSERT_EQ(Rc("coordinator", "x"), "0") << ReadFile(tmp_.Sub("coordinator-.out"));
  EXPECT_EQ(ManifestRows(d), at_snapshot);
  RunResult gc = RunLakedump("gc " + Quote(d.url), tmp_);
  EXPECT_EQ(gc.code, 0) << gc.err;
  RunResult v = RunLakedump("verify " + Quote(d.url) + " --deep", tmp_, 300);
  EXPECT_EQ(v.code, 0) << v.out << v.err;
}

}  // namespace
}  // namespace lakedump
