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
#include "integration/incremental_fixture.h"

namespace lakedump {
namespace {

using json = nlohmann::json;
using testing_cli::Quote;
using testing_cli::RunLakedump;
using testing_cli::RunResult;
using testing_pg::ScratchDatabase;

using testing_inc::DataOf;

class IncrementalIcebergTest : public testing_inc::IcebergIncrementalFixture {
 protected:
  // Every table read by icebird equals the source.
  void ExpectIcebirdReadsSource(const std::string& when,
                                std::initializer_list<const char*> tables = {"t", "c", "nk"}) {
    IcebergIncrementalFixture::ExpectIcebirdReadsSource(when, tables);
  }
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
  // The base's snapshot of a table keyed by one integer column names its key index, written
  // with it, so that the first increment reads it instead of every key of the table. The
  // composite key's table (c) and the keyless one (nk) have none: c's first increment builds
  // its runs from the base's files.
  const std::string index = CurrentSnapshot("t")["summary"].value("lakedump.key-index", "");
  EXPECT_TRUE(index.starts_with("keyindex-")) << index;
  EXPECT_TRUE(std::filesystem::exists(dest_ + "/public/t/metadata/" + index)) << index;
  EXPECT_FALSE(CurrentSnapshot("c")["summary"].contains("lakedump.key-index"));
  EXPECT_FALSE(CurrentSnapshot("nk")["summary"].contains("lakedump.key-index"));

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

// A delete file longer than one of its row groups (16,384 rows): 17,000 updates spread over a
// base file of 100,000 rows (17%: under copy-on-write's fifth) give a delete file of two row
// groups (counted by hyparquet), which icebird applies whole.
TEST_F(IncrementalIcebergTest, ADeleteFileOfSeveralRowGroupsIsAppliedWhole) {
  Sql("CREATE TABLE t (id int PRIMARY KEY, v text);"
      "INSERT INTO t SELECT g, 'v' || g FROM generate_series(1, 100000) g;");
  ASSERT_EQ(Dump().code, 0);
  Sql("UPDATE t SET v = 'updated' WHERE id % 100 < 17;");
  RunResult one = Dump();
  ASSERT_EQ(one.code, 0) << one.err;
  const json s = CurrentSnapshot("t")["summary"];
  EXPECT_EQ(s.value("total-position-deletes", ""), "17000") << s.dump();
  EXPECT_EQ(s.value("total-delete-files", ""), "1") << s.dump();
  std::string deletes;
  for (const auto& e : std::filesystem::directory_iterator(dest_ + "/public/t")) {
    if (e.path().filename().string().ends_with("-deletes.parquet")) deletes = e.path().string();
  }
  ASSERT_FALSE(deletes.empty());
  const std::string out = tmp_.Sub("row-groups.txt");
  const std::string cmd = fmt::format(
      "cd {} && node --input-type=module -e \"import {{ parquetMetadataAsync, "
      "asyncBufferFromFile }} from 'hyparquet'; const m = await parquetMetadataAsync(await "
      "asyncBufferFromFile(process.argv[1])); console.log(m.row_groups.length)\" {} >{} 2>&1",
      Quote(interop_), Quote(deletes), out);
  ASSERT_EQ(std::system(cmd.c_str()), 0) << testing_cli::ReadFile(out);
  EXPECT_EQ(testing_cli::ReadFile(out), "2\n");
  ExpectIcebirdReadsSource("17,000 updates", {"t"});
}

}  // namespace
}  // namespace lakedump
