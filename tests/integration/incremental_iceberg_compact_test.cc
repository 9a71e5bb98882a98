// Time travel and compaction of an incremental Iceberg dump (issue 33, docs/iceberg.md
// "Time travel" and "Compaction") against the test PostgreSQL: `ls --snapshots` lists each
// increment's snapshot, icebird (tests/interop, an Iceberg reader lakedump did not write)
// reads an earlier snapshot by its id as the source was then, `compact` rewrites each table
// into clean files (no delete file) that read as the source, the next increment finds its
// keys in them, `gc --expire-snapshots` removes what only the replaced snapshots read,
// `verify` passes and `load` still gives the same replica. A held lease refuses compact.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <set>

#include "fakes/cli_run.h"
#include "integration/incremental_fixture.h"
#include "integration/s3_test_env.h"
#include "lake/dump_lease.h"

namespace lakedump {
namespace {

using json = nlohmann::json;
using testing_cli::Quote;
using testing_cli::ReadFile;
using testing_cli::RunLakedump;
using testing_cli::RunResult;
using testing_inc::Canonical;

// The files under `dir` whose names start with `start` (recursively).
std::set<std::string> FilesStartingWith(const std::string& dir, const std::string& start) {
  std::set<std::string> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (e.path().filename().string().starts_with(start)) out.insert(e.path().string());
  }
  return out;
}

class IcebergCompactTest : public testing_inc::IcebergIncrementalFixture {
 protected:
  // An increment (the base first) into `dest` with `extra` arguments.
  RunResult DumpTo(const std::string& dest, const std::string& extra) {
    return RunLakedump(fmt::format("dump {} {} --incremental --table-format iceberg "
                                   "--progress none{}",
                                   Quote(src_->conninfo()), Quote(dest), extra),
                       tmp_, 600);
  }
  // The table read by icebird at the snapshot `snapshot_id`.
  json IcebirdRowsAt(const std::string& table, const json& snapshot_id) {
    return IcebirdRows(table, "--snapshot " + snapshot_id.dump());
  }
  void ExpectIcebirdReadsSource(const std::string& when) {
    IcebergIncrementalFixture::ExpectIcebirdReadsSource(when, {"t", "c"});
  }
  // ls --json: the snapshot list of `table`.
  json SnapshotList(const std::string& table) {
    RunResult ls = RunLakedump("ls --json " + Quote(dest_), tmp_, 60);
    EXPECT_EQ(ls.code, 0) << ls.err;
    const json j = json::parse(ls.out, nullptr, false);
    if (!j.is_object()) return json::array();
    for (const json& t : j["tables"]) {
      if (t.value("table", "") == table) return t["iceberg"]["snapshot_list"];
    }
    return json::array();
  }
};

TEST_F(IcebergCompactTest, SnapshotsAreListedReadableThenCompactedAndExpired) {
  Sql("CREATE TABLE t (id int PRIMARY KEY, v text);"
      "CREATE TABLE c (a int, b text, v int, PRIMARY KEY (a, b));"
      "INSERT INTO t SELECT g, 'v' || g FROM generate_series(1, 200) g;"
      "INSERT INTO c SELECT g % 5, 'k' || g, g FROM generate_series(1, 40) g;");
  ASSERT_EQ(Dump().code, 0);
  const json base_rows = SourceRows("t");
  Sql("UPDATE t SET v = 'one' WHERE id <= 20; DELETE FROM t WHERE id BETWEEN 21 AND 30;"
      "INSERT INTO t SELECT g, 'new' || g FROM generate_series(201, 220) g;"
      "UPDATE c SET v = -1 WHERE a = 1; DELETE FROM c WHERE a = 2;");
  RunResult one = Dump();
  ASSERT_EQ(one.code, 0) << one.err;
  const json rows_at_one = SourceRows("t");
  Sql("UPDATE t SET v = 'two' WHERE id BETWEEN 10 AND 40; DELETE FROM t WHERE id > 210;"
      "DELETE FROM t WHERE id = 1; INSERT INTO t VALUES (1, 'again');"
      "UPDATE c SET v = v + 100 WHERE a = 3;");
  RunResult two = Dump();
  ASSERT_EQ(two.code, 0) << two.err;
  ExpectIcebirdReadsSource("increment 2");

  // Time travel: three snapshots per changed table, with their increments and counts.
  RunResult ls = RunLakedump("ls --snapshots " + Quote(dest_), tmp_, 60);
  ASSERT_EQ(ls.code, 0) << ls.err;
  EXPECT_NE(ls.out.find("public.t: 3 snapshots, at increment 2"), std::string::npos) << ls.out;
  EXPECT_NE(ls.out.find("public.c: 3 snapshots, at increment 2"), std::string::npos) << ls.out;
  EXPECT_NE(ls.out.find("increment 1     overwrite"), std::string::npos) << ls.out;
  EXPECT_NE(ls.out.find("20 inserts, 20 updates, 10 deletes"), std::string::npos) << ls.out;
  const json list = SnapshotList("t");
  ASSERT_EQ(list.size(), 3u) << list.dump();
  for (int i = 0; i < 3; ++i) EXPECT_EQ(list[i]["increment"], i) << list.dump();
  EXPECT_EQ(list[0]["operation"], "append");
  EXPECT_EQ(list[1]["counts"]["deletes"], 10);
  EXPECT_EQ(list[2]["current"], true);
  // icebird reads the earlier snapshots, by id, as the source was then.
  EXPECT_EQ(Canonical(IcebirdRowsAt("t", list[1]["snapshot_id"])), Canonical(rows_at_one));
  EXPECT_EQ(Canonical(IcebirdRowsAt("t", list[0]["snapshot_id"])), Canonical(base_rows));

  // A held lease (a dump at work) refuses the compaction in one line, changing nothing.
  LeaseHolder holder;
  holder.run_id = "20260101T000000Z-0000beef";
  holder.host = "another-host";
  holder.pid = 1;
  holder.started_at = "2026-01-01T00:00:00.000Z";
  holder.renewed_unix_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                               std::chrono::system_clock::now().time_since_epoch()).count();
  holder.renew_interval_ms = 600'000;
  holder.token = 1;
  testing_cli::WriteFile(dest_ + "/_lease.json", ToJson(holder).dump());
  const std::string hint_before = ReadFile(dest_ + "/public/t/metadata/version-hint.text");
  RunResult refused = RunLakedump("compact " + Quote(dest_), tmp_, 120);
  EXPECT_EQ(refused.code, 1) << refused.out << refused.err;
  EXPECT_NE(refused.err.find("is being written by another lakedump"), std::string::npos)
      << refused.err;
  EXPECT_EQ(std::count(refused.err.begin(), refused.err.end(), '\n'), 1) << refused.err;
  EXPECT_EQ(ReadFile(dest_ + "/public/t/metadata/version-hint.text"), hint_before);
  std::filesystem::remove(dest_ + "/_lease.json");

  // Compaction: a replace snapshot of clean files that read as the source.
  RunResult compact = RunLakedump("compact " + Quote(dest_) + " --target-file-size 1MiB",
                                  tmp_, 600);
  ASSERT_EQ(compact.code, 0) << compact.out << compact.err;
  EXPECT_NE(compact.out.find("2 tables compacted"), std::string::npos) << compact.out;
  for (const char* table : {"t", "c"}) {
    const json s = CurrentSnapshot(table);
    EXPECT_EQ(s["summary"].value("operation", ""), "replace") << s.dump();
    EXPECT_EQ(s["summary"].value("total-delete-files", ""), "0") << s.dump();
    EXPECT_EQ(s["summary"].value("lakedump.increment", ""), "2") << s.dump();
    EXPECT_TRUE(std::filesystem::exists(dest_ + "/public/" + table + "/metadata/" +
                                        s["summary"].value("lakedump.key-index", "none")));
  }
  ExpectIcebirdReadsSource("after compact");
  // The rows in key order (an increment's file had them out of order: sorted first), so
  // icebird reads the one compacted file of t in id order.
  EXPECT_NE(compact.out.find("in key order ("), std::string::npos) << compact.out;
  std::vector<int64_t> ids;
  for (const json& row : IcebirdRows("t")) ids.push_back(row.value("id", int64_t{-1}));
  EXPECT_EQ(ids.size(), SourceRows("t").size());
  EXPECT_TRUE(std::is_sorted(ids.begin(), ids.end())) << json(ids).dump();
  EXPECT_EQ(Canonical(IcebirdRowsAt("t", list[1]["snapshot_id"])), Canonical(rows_at_one));
  RunResult again = RunLakedump("compact " + Quote(dest_), tmp_, 600);
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_NE(again.out.find("public.t: nothing to compact"), std::string::npos) << again.out;

  // The next increment finds its keys in the compacted files.
  Sql("UPDATE t SET v = 'three' WHERE id IN (1, 2, 100); DELETE FROM t WHERE id = 150;"
      "INSERT INTO t VALUES (500, 'five hundred'); DELETE FROM c WHERE a = 3;");
  RunResult three = Dump();
  ASSERT_EQ(three.code, 0) << three.err;
  ExpectIcebirdReadsSource("increment 3, after compact");

  // Expiry removes what only the replaced snapshots read; the dump still verifies and loads.
  const std::string t_dir = dest_ + "/public/t";
  const std::set<std::string> inc_one = FilesStartingWith(t_dir, "inc-000001-");
  ASSERT_EQ(inc_one.size(), 2u);  // its data file and its position deletes
  RunResult gc = RunLakedump("gc " + Quote(dest_) + " --expire-snapshots", tmp_, 600);
  ASSERT_EQ(gc.code, 0) << gc.out << gc.err;
  EXPECT_EQ(gc.err, "");
  EXPECT_TRUE(FilesStartingWith(t_dir, "inc-000001-").empty()) << gc.out;
  EXPECT_TRUE(FilesStartingWith(t_dir, "inc-000002-").empty()) << gc.out;
  EXPECT_EQ(FilesStartingWith(t_dir + "/metadata", "keyindex-").size(), 1u) << gc.out;
  EXPECT_EQ(FilesStartingWith(t_dir, "inc-000003-").size(), 2u) << gc.out;
  EXPECT_EQ(SnapshotList("t").size(), 1u);
  ExpectIcebirdReadsSource("after gc --expire-snapshots");
  RunResult verify = Verify();
  EXPECT_EQ(verify.code, 0) << verify.out << verify.err;
  const std::string replica = Replica();
  for (const char* table : {"t", "c"}) {
    EXPECT_EQ(Canonical(RowsOf(replica, table)), Canonical(SourceRows(table))) << table;
  }
}

// The same on an S3 DEST: ls --snapshots, compact and gc --expire-snapshots through the store.
TEST_F(IcebergCompactTest, OnS3TheSnapshotsAreListedAndTheTableCompacted) {
  auto s3 = testing_s3::UseTestS3();
  if (!s3) GTEST_SKIP() << "LD_TEST_S3_ENDPOINT not set";
  const std::string dest = fmt::format("s3://{}/cdc-compact-{}", s3->bucket, src_->name());
  const std::string at = " --endpoint " + s3->endpoint;
  Sql("CREATE TABLE t (id int PRIMARY KEY, v text);"
      "INSERT INTO t SELECT g, 'v' || g FROM generate_series(1, 100) g;");
  ASSERT_EQ(DumpTo(dest, at).code, 0);
  Sql("UPDATE t SET v = 'one' WHERE id <= 10; DELETE FROM t WHERE id > 95;");
  RunResult one = DumpTo(dest, at);
  ASSERT_EQ(one.code, 0) << one.err;
  RunResult ls = RunLakedump("ls --snapshots " + Quote(dest) + at, tmp_, 60);
  ASSERT_EQ(ls.code, 0) << ls.err;
  EXPECT_NE(ls.out.find("public.t: 2 snapshots, at increment 1"), std::string::npos) << ls.out;
  EXPECT_NE(ls.out.find("0 inserts, 10 updates, 5 deletes; 110 records, 1 delete files  "
                        "(current)"),
            std::string::npos)
      << ls.out;
  RunResult compact = RunLakedump("compact " + Quote(dest) + at, tmp_, 600);
  ASSERT_EQ(compact.code, 0) << compact.err;
  EXPECT_NE(compact.out.find("public.t: 2 data files and 1 delete files (15 rows deleted) -> "
                             "1 files, 95 rows"),
            std::string::npos)
      << compact.out;
  RunResult gc = RunLakedump("gc --expire-snapshots " + Quote(dest) + at, tmp_, 600);
  ASSERT_EQ(gc.code, 0) << gc.err;
  EXPECT_NE(gc.out.find("2 snapshots expired in 1 tables"), std::string::npos) << gc.out;
  ls = RunLakedump("ls --snapshots " + Quote(dest) + at, tmp_, 60);
  EXPECT_NE(ls.out.find("replace"), std::string::npos) << ls.out;
  EXPECT_NE(ls.out.find("95 records, 0 delete files  (current)"), std::string::npos) << ls.out;
  RunResult verify = RunLakedump("verify " + Quote(dest) + at, tmp_, 600);
  EXPECT_EQ(verify.code, 0) << verify.out << verify.err;
  s3->Aws(fmt::format("s3 rm --recursive s3://{}/cdc-compact-{}", s3->bucket, src_->name()),
          tmp_);
}

// compact refuses what it cannot compact in one line: a plain Parquet dump.
TEST_F(IcebergCompactTest, APlainDumpIsRefused) {
  Sql("CREATE TABLE t (id int PRIMARY KEY, v text); INSERT INTO t VALUES (1, 'a');");
  RunResult dump = RunLakedump(fmt::format("dump {} {} --progress none", Quote(src_->conninfo()),
                                           Quote(dest_)),
                               tmp_, 600);
  ASSERT_EQ(dump.code, 0) << dump.err;
  RunResult r = RunLakedump("compact " + Quote(dest_), tmp_, 60);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("not an incremental Iceberg dump"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dest_ + "/_lease.json"));
}

}  // namespace
}  // namespace lakedump
