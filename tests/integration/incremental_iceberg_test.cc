// Incremental dumps of an Iceberg base (issue 33, docs/iceberg.md "Increments") against the
// test PostgreSQL (wal_level=logical): each increment becomes one snapshot per changed table
// with position deletes found through the key index, and after every increment icebird (an
// Iceberg reader lakedump did not write, tests/interop) reads each table as the source has
// it, the deletes applied. The same DEST still loads into an exact replica.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <initializer_list>
#include <sstream>

#include "fakes/cli_run.h"
#include "fakes/temp_dir.h"
#include "integration/pg_slot_cleanup.h"
#include "integration/pg_test_util.h"

namespace lakedump {
namespace {

using json = nlohmann::json;
using testing_cli::Quote;
using testing_cli::ReadFile;
using testing_cli::RunLakedump;
using testing_cli::RunResult;
using testing_pg::ScratchDatabase;
using testing_pg::SlotCleanup;

std::string PgBin() {
  const char* bin = std::getenv("LD_TEST_PG_BIN");
  return bin && *bin ? bin : "/usr/lib/postgresql/15/bin";
}

// The rows of every table as pg_dump --data-only prints them, sorted.
std::string DataOf(const std::string& conninfo) {
  TempDir tmp;
  const std::string out = tmp.Sub("data.sql");
  const std::string cmd = fmt::format(
      "{}/pg_dump --data-only --exclude-schema lakedump -d {} > {} 2>&1", PgBin(),
      Quote(conninfo), out);
  EXPECT_EQ(std::system(cmd.c_str()), 0) << ReadFile(out);
  std::istringstream in(ReadFile(out));
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line.starts_with("--") || line.starts_with("\\") ||
        line.starts_with("SET ") || line.starts_with("SELECT pg_catalog.set_config")) {
      continue;
    }
    lines.push_back(line);
  }
  std::sort(lines.begin(), lines.end());
  std::string joined;
  for (const std::string& l : lines) joined += l + "\n";
  return joined;
}

// Rows as sorted JSON texts, so that two reads compare whatever their order.
std::vector<std::string> Canonical(const json& rows) {
  std::vector<std::string> out;
  for (const json& r : rows) out.push_back(r.dump());
  std::sort(out.begin(), out.end());
  return out;
}

class IncrementalIcebergTest : public ::testing::Test {
 protected:
  void SetUp() override {
    LD_REQUIRE_LOGICAL_PG(admin_);
    interop_ = testing_cli::InteropDir();
    if (interop_.empty()) GTEST_SKIP() << "LD_INTEROP_DIR with node_modules not found";
    src_ = std::make_unique<ScratchDatabase>(admin_.get());
    slots_ = std::make_unique<SlotCleanup>(admin_.get(), src_->name());
    dest_ = tmp_.Sub("dest");
  }
  void TearDown() override {
    slots_.reset();
    replicas_.clear();
    src_.reset();
  }
  void Sql(const std::string& sql) {
    auto c = PgConn::Connect(src_->conninfo(), 10);
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    Status s = (*c)->Exec("SET search_path = public; " + sql);
    ASSERT_TRUE(s.ok()) << sql << ": " << s.ToString();
  }
  RunResult Dump(const std::string& extra = "") {
    return RunLakedump(fmt::format("dump {} {} --incremental --table-format iceberg "
                                   "--progress none {}",
                                   Quote(src_->conninfo()), Quote(dest_), extra),
                       tmp_, 600);
  }
  // The table's rows as the source has them (int and text columns: JSON as icebird shows them).
  json SourceRows(const std::string& table) {
    auto c = PgConn::Connect(src_->conninfo(), 10);
    EXPECT_TRUE(c.ok());
    if (!c.ok()) return json::array();
    return json::parse(testing_pg::QueryOne(
        **c, fmt::format("SELECT coalesce(json_agg(t), '[]') FROM public.{} t", table)));
  }
  // The table at its current snapshot, read by icebird.
  json IcebirdRows(const std::string& table) {
    const std::string out = tmp_.Sub("icebird-" + table + ".json");
    const std::string cmd =
        fmt::format("node {}/iceberg_read.mjs {} --rows >{} 2>&1", interop_,
                    Quote("file://" + dest_ + "/public/" + table), out);
    const int rc = std::system(cmd.c_str());
    const std::string text = ReadFile(out);
    EXPECT_EQ(WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, 0) << text.substr(0, 2000);
    const json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
    return j.is_object() && j.contains("values") ? j["values"] : json::array();
  }
  // Every table read by icebird equals the source.
  void ExpectIcebirdReadsSource(const std::string& when,
                                std::initializer_list<const char*> tables = {"t", "c", "nk"}) {
    for (const char* table : tables) {
      const std::vector<std::string> want = Canonical(SourceRows(table));
      const std::vector<std::string> got = Canonical(IcebirdRows(table));
      EXPECT_EQ(got.size(), want.size()) << when << ": table " << table;
      EXPECT_TRUE(got == want) << when << ": table " << table << " differs";
    }
  }
  // The current snapshot of `table` as its metadata names it.
  json CurrentSnapshot(const std::string& table) {
    const std::string meta = dest_ + "/public/" + table + "/metadata/";
    const std::string version = ReadFile(meta + "version-hint.text");
    const json m = json::parse(ReadFile(meta + "v" + version + ".metadata.json"));
    for (const json& s : m["snapshots"]) {
      if (s["snapshot-id"] == m["current-snapshot-id"]) return s;
    }
    return json::object();
  }

  std::unique_ptr<PgConn> admin_;
  std::unique_ptr<ScratchDatabase> src_;
  std::unique_ptr<SlotCleanup> slots_;
  std::vector<std::unique_ptr<ScratchDatabase>> replicas_;
  TempDir tmp_;
  std::string dest_;
  std::string interop_;
};

// A TOASTed value (stored out of line, uncompressed): an UPDATE that does not touch it sends
// it as "unchanged".
constexpr const char* kBig = "(SELECT string_agg(md5(g::text || '{}'), '') FROM generate_series(1, 300) g)";

TEST_F(IncrementalIcebergTest, EachIncrementIsASnapshotThatIcebirdReadsAsTheSource) {
  Sql("CREATE TABLE t (id int PRIMARY KEY, v text, big text);"
      "ALTER TABLE t ALTER big SET STORAGE EXTERNAL;"
      "CREATE TABLE c (a int, b text, v int, PRIMARY KEY (a, b));"
      "CREATE TABLE nk (x int, y text);"
      "INSERT INTO t SELECT g, 'v' || g, NULL FROM generate_series(1, 50) g;" +
      fmt::format("UPDATE t SET big = {} WHERE id IN (1, 2);", fmt::format(kBig, "base")) +
      "INSERT INTO c SELECT g % 5, 'k' || g, g FROM generate_series(1, 20) g;"
      "INSERT INTO nk VALUES (1, 'a'), (2, 'b');");
  RunResult base = Dump();
  ASSERT_EQ(base.code, 0) << base.err;
  ExpectIcebirdReadsSource("base");

  // Increment 1: inserts, a row updated twice, deletes, a key deleted and inserted again, a
  // row inserted and deleted, an update that leaves a TOASTed value unchanged, composite keys.
  Sql("INSERT INTO t SELECT g, 'new' || g, NULL FROM generate_series(51, 60) g;"
      "BEGIN; UPDATE t SET v = 'once' WHERE id = 3; UPDATE t SET v = 'twice' WHERE id = 3; COMMIT;"
      "DELETE FROM t WHERE id IN (4, 5);"
      "DELETE FROM t WHERE id = 6; INSERT INTO t VALUES (6, 'again', NULL);"
      "INSERT INTO t VALUES (100, 'gone', NULL); DELETE FROM t WHERE id = 100;"
      "UPDATE t SET v = 'toast kept' WHERE id = 1;"
      "UPDATE c SET v = -1 WHERE a = 1; DELETE FROM c WHERE a = 2 AND b = 'k2';"
      "INSERT INTO c VALUES (9, 'k2', 92); INSERT INTO nk VALUES (3, 'c');");
  RunResult one = Dump();
  ASSERT_EQ(one.code, 0) << one.err;
  ExpectIcebirdReadsSource("increment 1");
  const json s1 = CurrentSnapshot("t");
  EXPECT_EQ(s1["summary"].value("lakedump.increment", ""), "1") << s1.dump();
  EXPECT_EQ(s1["summary"].value("operation", ""), "overwrite") << s1.dump();
  EXPECT_EQ(s1["summary"].value("lakedump.inserts", ""), "12") << s1.dump();
  EXPECT_EQ(s1["summary"].value("lakedump.deletes", ""), "4") << s1.dump();
  EXPECT_NE(s1["summary"].value("added-position-deletes", ""), "") << s1.dump();
  EXPECT_TRUE(std::filesystem::exists(dest_ + "/public/t/metadata/" +
                                      s1["summary"].value("lakedump.key-index", "none")));

  // Increment 2: rows whose current version is in increment 1's file (the TOASTed value of
  // row 1 read from its old version there), more updates and deletes.
  Sql("UPDATE t SET v = 'toast kept again' WHERE id = 1;"
      "UPDATE t SET v = 'toast kept too' WHERE id = 2;"
      "UPDATE t SET v = 'third' WHERE id = 3; DELETE FROM t WHERE id = 51;"
      "UPDATE t SET id = 200 WHERE id = 52;"
      "UPDATE c SET v = v + 100 WHERE b = 'k2'; DELETE FROM c WHERE a = 1;");
  RunResult two = Dump();
  ASSERT_EQ(two.code, 0) << two.err;
  ExpectIcebirdReadsSource("increment 2");

  // Increment 3: TRUNCATE is an overwrite of the table; the others go on by their changes.
  Sql("TRUNCATE c; INSERT INTO c VALUES (1, 'x', 1), (2, 'y', 2);"
      "UPDATE t SET big = 'small now' WHERE id = 2; DELETE FROM nk WHERE x = 1;");
  RunResult three = Dump();
  ASSERT_EQ(three.code, 0) << three.err;
  ExpectIcebirdReadsSource("increment 3");
  EXPECT_EQ(CurrentSnapshot("c")["summary"].value("lakedump.increment", ""), "3");

  // Increment 4: changes after the overwrite (its key index built from its files).
  Sql("UPDATE c SET v = 20 WHERE a = 2; INSERT INTO c VALUES (3, 'z', 3);"
      "UPDATE t SET v = 'last' WHERE id = 1;");
  RunResult four = Dump();
  ASSERT_EQ(four.code, 0) << four.err;
  ExpectIcebirdReadsSource("increment 4");

  // The same DEST loads into an exact replica, and verifies.
  replicas_.push_back(std::make_unique<ScratchDatabase>(admin_.get()));
  const std::string replica = replicas_.back()->conninfo();
  RunResult load = RunLakedump(
      fmt::format("load {} {} --trust-dump --progress none", Quote(dest_), Quote(replica)), tmp_,
      600);
  ASSERT_EQ(load.code, 0) << load.err;
  EXPECT_TRUE(DataOf(replica) == DataOf(src_->conninfo()));
  RunResult verify = RunLakedump("verify " + Quote(dest_), tmp_, 600);
  EXPECT_EQ(verify.code, 0) << verify.out << verify.err;
  RunResult ls = RunLakedump("ls " + Quote(dest_), tmp_, 60);
  EXPECT_NE(ls.out.find("at increment 4"), std::string::npos) << ls.out;
  EXPECT_NE(ls.out.find("public.nk: re-dumped whole in every increment, as an Iceberg "
                        "overwrite snapshot"),
            std::string::npos)
      << ls.out;
}

// An increment whose run dies after writing a table's snapshot but before its manifest: the
// rerun replaces that snapshot (its parent is the last committed one), so no change is doubled.
TEST_F(IncrementalIcebergTest, ARunThatDiedBeforeItsManifestIsNotAppliedTwice) {
  Sql("CREATE TABLE t (id int PRIMARY KEY, v text, big text);"
      "INSERT INTO t SELECT g, 'v' || g, NULL FROM generate_series(1, 10) g;");
  ASSERT_EQ(Dump().code, 0);
  Sql("UPDATE t SET v = 'changed' WHERE id = 1; DELETE FROM t WHERE id = 2;"
      "INSERT INTO t VALUES (11, 'eleven', NULL);");
  setenv("LAKEDUMP_FAULT", "increment-before-commit", 1);
  RunResult died = Dump();
  unsetenv("LAKEDUMP_FAULT");
  EXPECT_NE(died.code, 0);
  EXPECT_FALSE(std::filesystem::exists(dest_ + "/_increments/000001/_manifest.json"));
  EXPECT_EQ(CurrentSnapshot("t")["summary"].value("lakedump.increment", ""), "1");
  Sql("UPDATE t SET v = 'after' WHERE id = 3;");
  RunResult again = Dump("--wait-for-lock 60s");
  ASSERT_EQ(again.code, 0) << again.err;
  ExpectIcebirdReadsSource("after the rerun", {"t"});
  // The dead run's objects are gone with its snapshot: nothing stray.
  RunResult verify = RunLakedump("verify " + Quote(dest_), tmp_, 600);
  EXPECT_EQ(verify.code, 0) << verify.out << verify.err;
}

// Copy-on-write at 20% (docs/iceberg.md "Copy-on-write"): a data file that has lost a fifth of
// its rows (its earlier delete files counted) is rewritten without them in the increment's
// snapshot; its delete files go with it, and the key index follows the moved rows.
TEST_F(IncrementalIcebergTest, AFileThatLostAFifthOfItsRowsIsRewrittenWithoutThem) {
  Sql("CREATE TABLE t (id int PRIMARY KEY, v text, big text);"
      "INSERT INTO t SELECT g, 'v' || g, NULL FROM generate_series(1, 100) g;");
  ASSERT_EQ(Dump().code, 0);
  // 10% of the base file: position deletes.
  Sql("DELETE FROM t WHERE id <= 10;");
  RunResult one = Dump();
  ASSERT_EQ(one.code, 0) << one.err;
  ExpectIcebirdReadsSource("10% deleted", {"t"});
  EXPECT_EQ(CurrentSnapshot("t")["summary"].value("total-delete-files", ""), "1");
  // 12% more, and 5 rows updated: 27% of the base file lost, counting the first delete file.
  Sql("DELETE FROM t WHERE id BETWEEN 11 AND 22;"
      "UPDATE t SET v = 'moved on' WHERE id BETWEEN 50 AND 54;");
  RunResult two = Dump();
  ASSERT_EQ(two.code, 0) << two.err;
  ExpectIcebirdReadsSource("27% lost: rewritten", {"t"});
  const json s2 = CurrentSnapshot("t")["summary"];
  EXPECT_EQ(s2.value("operation", ""), "overwrite") << s2.dump();
  EXPECT_EQ(s2.value("deleted-data-files", ""), "1") << s2.dump();
  EXPECT_EQ(s2.value("deleted-records", ""), "100") << s2.dump();
  EXPECT_EQ(s2.value("removed-delete-files", ""), "1") << s2.dump();
  EXPECT_EQ(s2.value("total-delete-files", ""), "0") << s2.dump();
  EXPECT_EQ(s2.value("total-position-deletes", ""), "0") << s2.dump();
  EXPECT_EQ(s2.value("total-data-files", ""), "2") << s2.dump();  // rewritten + increment's
  EXPECT_EQ(s2.value("total-records", ""), "78") << s2.dump();   // 73 + 5
  // Rows whose places the rewrite moved, changed again: found through the index.
  Sql("UPDATE t SET v = 'after the rewrite' WHERE id IN (23, 60, 100);"
      "DELETE FROM t WHERE id = 99; UPDATE t SET v = 'again' WHERE id = 50;");
  RunResult three = Dump();
  ASSERT_EQ(three.code, 0) << three.err;
  ExpectIcebirdReadsSource("changes after the rewrite", {"t"});
  EXPECT_EQ(CurrentSnapshot("t")["summary"].value("total-delete-files", ""), "1");
  RunResult verify = RunLakedump("verify " + Quote(dest_), tmp_, 600);
  EXPECT_EQ(verify.code, 0) << verify.out << verify.err;
}

}  // namespace
}  // namespace lakedump
