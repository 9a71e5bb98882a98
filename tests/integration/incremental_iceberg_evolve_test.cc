// Iceberg increments (issue 33, docs/iceberg.md "Increments") against the test PostgreSQL
// (wal_level=logical), read back by icebird (an Iceberg reader lakedump did not write):
//  - schema changes between increments (a column added with and without a default, types
//    widened) continue the table's history as Iceberg schema evolution: a new schema id,
//    the kept columns' field ids, new ids for the added ones, and the earlier snapshot still
//    reads with its own schema;
//  - columns read through their text form (interval, inet, cidr, macaddr, xml, ranges...)
//    are followed by their changes, in plain increments and in Iceberg ones;
//  - a base and increments while pgbench writes;
//  - a run killed after each step of its Iceberg commit, then a rerun;
//  - a new base over an Iceberg incremental DEST.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>
#include <thread>

#include "fakes/cli_run.h"
#include "integration/incremental_fixture.h"

namespace lakedump {
namespace {

using json = nlohmann::json;
using testing_cli::Quote;
using testing_cli::ReadFile;
using testing_cli::RunLakedump;
using testing_cli::RunResult;
using testing_inc::Canonical;
using testing_inc::DataOf;

// `rows` with every string that is a whole integer as that number (icebird prints 64-bit
// integers as strings, 32-bit ones as numbers: a widened column holds both).
json NumbersAsNumbers(json rows) {
  for (json& row : rows) {
    for (auto& [k, v] : row.items()) {
      if (!v.is_string()) continue;
      const std::string s = v.get<std::string>();
      if (s.empty() || s.size() > 18 ||
          s.find_first_not_of("-0123456789") != std::string::npos || s.find('-', 1) != s.npos) {
        continue;
      }
      v = std::stoll(s);
    }
  }
  return rows;
}

// The field ids of the schema `schema_id` of metadata `m`, by column name.
std::map<std::string, int> FieldIds(const json& m, int schema_id) {
  std::map<std::string, int> ids;
  for (const json& s : m["schemas"]) {
    if (s["schema-id"] != schema_id) continue;
    for (const json& f : s["fields"]) ids[f["name"].get<std::string>()] = f["id"].get<int>();
  }
  return ids;
}

class IcebergEvolveTest : public testing_inc::IcebergIncrementalFixture {
 protected:
  // icebird's rows of `table` (with `args`) equal the source's (`row_expr`, numbers unified).
  // `leave_out`: columns of icebird's rows that `row_expr` does not have.
  void ExpectTableReads(const std::string& when, const std::string& table,
                        const std::string& row_expr = "t", const std::string& args = "",
                        const std::vector<std::string>& leave_out = {}) {
    const auto want = Canonical(NumbersAsNumbers(SourceRows(table, row_expr)));
    json read = IcebirdRows(table, args);
    for (json& row : read) {
      for (const std::string& c : leave_out) row.erase(c);
    }
    const auto got = Canonical(NumbersAsNumbers(std::move(read)));
    EXPECT_EQ(got.size(), want.size()) << when << ": table " << table;
    EXPECT_TRUE(got == want) << when << ": table " << table << " differs:\n"
                             << (got.empty() ? "" : got[0]) << "\n"
                             << (want.empty() ? "" : want[0]);
  }
  RunResult Increment(const std::string& when) {
    RunResult r = Dump();
    EXPECT_EQ(r.code, 0) << when << ": " << r.err;
    EXPECT_EQ(r.err.find("history is not continued"), std::string::npos) << when << ": " << r.err;
    return r;
  }
};

TEST_F(IcebergEvolveTest, SchemaChangesAreSchemaEvolutionAndTheOldSnapshotKeepsItsSchema) {
  Sql("CREATE TABLE e (id int PRIMARY KEY, n int, f real, d numeric(5,2), v text);"
      "INSERT INTO e SELECT g, g * 10, g + 0.5, g + 0.25, 'v' || g FROM generate_series(1, 20) g;");
  ASSERT_EQ(Dump().code, 0);
  const json base_rows = SourceRows("e");
  const json m0 = Metadata("e");
  const int64_t base_snapshot = m0["current-snapshot-id"].get<int64_t>();
  const auto ids0 = FieldIds(m0, m0["current-schema-id"].get<int>());
  ASSERT_EQ(ids0.size(), 5u);

  // A column added without a default (NULL in every existing row), and rows changed after.
  Sql("ALTER TABLE e ADD COLUMN a text; UPDATE e SET a = 'x' || id WHERE id <= 5;"
      "INSERT INTO e VALUES (21, 210, 21.5, 21.25, 'v21', 'new');");
  Increment("column added");
  ExpectTableReads("column added", "e");
  const json m1 = Metadata("e");
  EXPECT_EQ(m1["table-uuid"], m0["table-uuid"]) << "the history was not continued";
  EXPECT_NE(m1["current-schema-id"], m0["current-schema-id"]);
  EXPECT_EQ(CurrentSnapshot("e")["schema-id"], m1["current-schema-id"]);
  const auto ids1 = FieldIds(m1, m1["current-schema-id"].get<int>());
  for (const auto& [name, id] : ids0) EXPECT_EQ(ids1.at(name), id) << name;
  EXPECT_GT(ids1.at("a"), 5);

  // A column added with a default (every existing row has it), then types widened.
  Sql("ALTER TABLE e ADD COLUMN b int NOT NULL DEFAULT 7; UPDATE e SET b = 8 WHERE id = 1;");
  Increment("column added with a default");
  ExpectTableReads("column added with a default", "e");
  Sql("ALTER TABLE e ALTER n TYPE bigint, ALTER f TYPE double precision,"
      " ALTER d TYPE numeric(9,2); UPDATE e SET n = 5000000000 WHERE id = 2;");
  Increment("types widened");
  ExpectTableReads("types widened", "e");
  const json m3 = Metadata("e");
  EXPECT_EQ(m3["table-uuid"], m0["table-uuid"]);
  const auto ids3 = FieldIds(m3, m3["current-schema-id"].get<int>());
  for (const auto& [name, id] : ids0) EXPECT_EQ(ids3.at(name), id) << name << " kept its id";
  EXPECT_EQ(ids3.at("a"), ids1.at("a"));
  EXPECT_GT(ids3.at("b"), ids1.at("a"));
  EXPECT_GE(m3["schemas"].size(), 4u);

  // Changes by the stream go on after the evolution.
  Sql("UPDATE e SET a = 'later' WHERE id = 3; DELETE FROM e WHERE id = 4;");
  Increment("after the evolution");
  ExpectTableReads("after the evolution", "e");

  // The base's snapshot still reads as the source was then, with its own schema.
  const auto then = Canonical(NumbersAsNumbers(base_rows));
  const auto old = Canonical(
      NumbersAsNumbers(IcebirdRows("e", fmt::format("--snapshot {}", base_snapshot))));
  EXPECT_TRUE(old == then) << "the base snapshot differs: " << (old.empty() ? "" : old[0]);
  // And a load of the same DEST is the source; the dump verifies.
  EXPECT_TRUE(DataOf(Replica()) == DataOf(src_->conninfo()));
  RunResult verify = Verify();
  EXPECT_EQ(verify.code, 0) << verify.out << verify.err;
}

// The text-form types, as the dump prints them (its own expressions: docs/type-mapping.md).
constexpr const char* kTextFormTable =
    "CREATE TABLE k (id int PRIMARY KEY, i interval, ip inet, c cidr, m macaddr,"
    " m8 macaddr8, x xml, b bit(4), vb varbit, tz timetz, r int4range, ips inet[],"
    " ivs interval[]);";
constexpr const char* kTextFormRow =
    "json_build_object('id', id, 'i', i::text, 'ip', textin(inet_out(ip)),"
    " 'c', textin(cidr_out(c)), 'm', m::text, 'm8', m8::text, 'x', textin(xml_out(x)),"
    " 'b', b::text, 'vb', vb::text, 'tz', tz::text, 'r', r::text,"
    " 'ips', textin(array_out(ips))::text[], 'ivs', ivs::text[])";

std::string TextFormRows(int from, int to) {
  return fmt::format(
      "INSERT INTO k SELECT g, make_interval(months => g, days => g, secs => g * 1.5),"
      " ('10.0.' || g || '.1')::inet, ('10.' || g || '.0.0/16')::cidr,"
      " ('08:00:2b:01:02:' || lpad(to_hex(g), 2, '0'))::macaddr,"
      " ('08:00:2b:01:02:03:04:' || lpad(to_hex(g), 2, '0'))::macaddr8,"
      " ('<a n=\"' || g || '\">t</a>')::xml, (g % 16)::bit(4), repeat('10', g)::varbit,"
      " ('12:00:0' || (g % 10) || '+02')::timetz, int4range(g, g + 10),"
      " ARRAY[('192.168.0.' || g)::inet, '::1'::inet], ARRAY[make_interval(hours => g)]"
      " FROM generate_series({}, {}) g;",
      from, to);
}

TEST_F(IcebergEvolveTest, TextFormTypesAreFollowedByTheirChanges) {
  // md's arrays have several dimensions at the base: read as text, and followed so; ls's are
  // lists until an update gives one a second dimension (that increment re-dumps ls, whose
  // array becomes text; the next follows it by its changes again).
  Sql(std::string(kTextFormTable) + TextFormRows(1, 30) +
      "CREATE TABLE md (id int PRIMARY KEY, a int[]);"
      "INSERT INTO md VALUES (1, '{{1,2},{3,4}}'), (2, '{5}'), (3, '[0:1]={6,7}');"
      "CREATE TABLE ls (id int PRIMARY KEY, a int[]);"
      "INSERT INTO ls VALUES (1, '{1,2}'), (2, '{3}');");
  ASSERT_EQ(Dump().code, 0);
  ExpectTableReads("base", "k", kTextFormRow);
  const char* md_row = "json_build_object('id', id, 'a', a::text)";
  ExpectTableReads("base", "md", md_row);
  Sql(TextFormRows(31, 40) +
      "UPDATE k SET i = i * 2, ip = ('2001:db8::' || id)::inet, c = '2001:db8::/32', m = NULL,"
      " x = '<b/>', r = 'empty', ips = ARRAY['10.1.1.1/8'::inet] WHERE id % 3 = 0;"
      "DELETE FROM k WHERE id % 7 = 0; UPDATE k SET id = id + 1000 WHERE id = 5;"
      "UPDATE md SET a = '{{9}}' WHERE id = 2; INSERT INTO md VALUES (4, '{8}'), (5, NULL);"
      "DELETE FROM md WHERE id = 1; UPDATE ls SET a = '{4,5}' WHERE id = 2;");
  RunResult one = Increment("increment 1");
  // Every table follows by its changes.
  EXPECT_EQ(one.out.find("re-dumped"), std::string::npos) << one.out;
  const json inc = json::parse(ReadFile(dest_ + "/_increments/000001/_manifest.json"));
  std::set<std::string> changed;
  for (const json& f : inc["change_files"]) changed.insert(f["table"].get<std::string>());
  EXPECT_EQ(changed, (std::set<std::string>{"k", "md", "ls"})) << inc.dump();
  ExpectTableReads("increment 1", "k", kTextFormRow);
  ExpectTableReads("increment 1", "md", md_row);
  EXPECT_EQ(CurrentSnapshot("k")["summary"].value("lakedump.redump", ""), "");
  EXPECT_EQ(CurrentSnapshot("md")["summary"].value("lakedump.redump", ""), "");
  // The replica loaded from base + increment (the change path) equals the source.
  EXPECT_TRUE(DataOf(Replica()) == DataOf(src_->conninfo()));

  Sql("UPDATE ls SET a = '{{1},{2}}' WHERE id = 1;");
  RunResult two = Increment("increment 2");
  EXPECT_NE(two.out.find("public.ls: a change could not be decoded"), std::string::npos)
      << two.out;
  ExpectTableReads("increment 2", "ls", md_row);
  Sql("UPDATE ls SET a = '{7}' WHERE id = 2; INSERT INTO ls VALUES (3, '{{3}}');"
      "UPDATE md SET a = '[2:2]={1}' WHERE id = 3;");
  RunResult three = Increment("increment 3");
  EXPECT_EQ(three.out.find("re-dumped"), std::string::npos) << three.out;
  ExpectTableReads("increment 3", "ls", md_row);
  ExpectTableReads("increment 3", "md", md_row);
  EXPECT_TRUE(DataOf(Replica()) == DataOf(src_->conninfo()));
  RunResult verify = Verify();
  EXPECT_EQ(verify.code, 0) << verify.out << verify.err;
}

// IncrementalTest.IncrementsWhilePgbenchWritesMakeAnExactReplica over an Iceberg base: with
// the writers paused, every table icebird reads equals the source; while they write (the
// source moves on after the increment's end), the tables followed by their changes agree
// with each other as of the increment's end: pgbench moves the same delta into an account,
// its teller and its branch in one transaction, so the three sums are equal at any commit.
TEST_F(IcebergEvolveTest, IncrementsWhilePgbenchWritesReadAsTheSource) {
  const std::string pgbench = testing_inc::PgBin() + "/pgbench";
  ASSERT_EQ(std::system(fmt::format("{} -i -s 1 -q {} >/dev/null 2>&1", pgbench,
                                    Quote(src_->conninfo()))
                            .c_str()),
            0);
  ASSERT_EQ(Dump().code, 0);
  auto bench = [&](int seconds) {
    return std::thread([=, this] {
      std::system(fmt::format("{} -n -c 2 -j 1 -T {} {} >/dev/null 2>&1", pgbench, seconds,
                              Quote(src_->conninfo()))
                      .c_str());
    });
  };
  const char* history_row =
      "json_build_object('tid', tid, 'bid', bid, 'aid', aid, 'delta', delta)";
  auto expect_sums_agree = [&](const std::string& when) {
    int64_t sums[3] = {0, 0, 0};
    const char* tables[3] = {"pgbench_accounts", "pgbench_tellers", "pgbench_branches"};
    const char* columns[3] = {"abalance", "tbalance", "bbalance"};
    for (int i = 0; i < 3; ++i) {
      std::set<int64_t> keys;
      const json rows = NumbersAsNumbers(IcebirdRows(tables[i]));
      for (const json& r : rows) {
        sums[i] += r[columns[i]].get<int64_t>();
        keys.insert(r[i == 0 ? "aid" : i == 1 ? "tid" : "bid"].get<int64_t>());
      }
      EXPECT_EQ(keys.size(), rows.size()) << when << ": a key twice in " << tables[i];
      EXPECT_EQ(rows.size(), i == 0 ? 100000u : i == 1 ? 10u : 1u) << when << tables[i];
    }
    EXPECT_EQ(sums[0], sums[1]) << when;
    EXPECT_EQ(sums[1], sums[2]) << when;
  };
  auto expect_all_read = [&](const std::string& when) {
    for (const char* t : {"pgbench_accounts", "pgbench_tellers", "pgbench_branches"}) {
      ExpectTableReads(when, t);
    }
    ExpectTableReads(when, "pgbench_history", history_row, "", {"mtime", "filler"});
  };
  for (int round = 1; round <= 2; ++round) {
    std::thread writers = bench(4);
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    RunResult under = Dump();
    writers.join();
    ASSERT_EQ(under.code, 0) << under.err;
    expect_sums_agree(fmt::format("round {} under writes", round));
    // The writers stopped: the next increment reads as the source does now.
    ASSERT_EQ(Dump().code, 0);
    expect_all_read(fmt::format("round {} paused", round));
  }
  EXPECT_GE(CurrentSnapshot("pgbench_accounts")["summary"].value("lakedump.increment", ""),
            "3");
  RunResult verify = Verify();
  EXPECT_EQ(verify.code, 0) << verify.out << verify.err;
}

// Killed after each step of an increment's Iceberg commit (each object written: data file,
// delete file, key index, manifests, manifest list, metadata, version hint; each delete),
// then rerun: every table reads as the source, no increment is committed twice or lost,
// each table's snapshots are those of the committed increments, and the dump verifies.
TEST_F(IcebergEvolveTest, KilledAtEachCommitStepThenRerunLosesAndDoublesNothing) {
  Sql("CREATE TABLE t (id int PRIMARY KEY, v text);"
      "CREATE TABLE nk (x int, y text);"
      "INSERT INTO t SELECT g, 'v' || g FROM generate_series(1, 50) g;"
      "INSERT INTO nk VALUES (1, 'a');");
  ASSERT_EQ(Dump().code, 0);
  int committed = 0;
  for (int step = 1; step < 60; ++step) {
    Sql(fmt::format("INSERT INTO t VALUES ({0}, 'new'); UPDATE t SET v = v || '+' WHERE id % 5 "
                    "= {1}; DELETE FROM t WHERE id = {1} + 10; INSERT INTO nk VALUES ({0}, 'n');",
                    1000 + step, step % 5));
    setenv("LAKEDUMP_FAULT", fmt::format("iceberg-step-{}", step).c_str(), 1);
    RunResult died = Dump("--wait-for-lock 60s");
    unsetenv("LAKEDUMP_FAULT");
    const bool finished = died.code == 0;
    if (!finished) {
      EXPECT_FALSE(std::filesystem::exists(
          fmt::format("{}/_increments/{:06d}/_manifest.json", dest_, committed + 1)))
          << "step " << step;
      RunResult again = Dump("--wait-for-lock 60s");
      ASSERT_EQ(again.code, 0) << "step " << step << ": " << again.err;
    }
    ++committed;
    ExpectTableReads(fmt::format("after a kill at step {}", step), "t");
    ExpectTableReads(fmt::format("after a kill at step {}", step), "nk");
    // One snapshot per committed increment after the base's (both tables change every
    // time): none of a run that did not commit.
    for (const char* table : {"t", "nk"}) {
      EXPECT_EQ(Metadata(table)["snapshots"].size(), static_cast<size_t>(committed + 1))
          << "step " << step << ", table " << table;
    }
    EXPECT_EQ(CurrentSnapshot("t")["summary"].value("lakedump.increment", ""),
              std::to_string(committed));
    if (finished) break;  // past the last step: the run was not killed
  }
  EXPECT_GT(committed, 8) << "fewer commit steps than expected";
  EXPECT_TRUE(DataOf(Replica()) == DataOf(src_->conninfo()));
  RunResult verify = Verify();
  EXPECT_EQ(verify.code, 0) << verify.out << verify.err;
}

// A new base (--incremental --if-exists overwrite) over an Iceberg incremental DEST: the
// old base's slot goes, the tables read as the source, later increments go on from the new
// base, and the dump verifies.
TEST_F(IcebergEvolveTest, NewBaseOverAnIcebergIncrementalDest) {
  Sql("CREATE TABLE t (id int PRIMARY KEY, v text);"
      "INSERT INTO t SELECT g, 'v' || g FROM generate_series(1, 20) g;");
  ASSERT_EQ(Dump().code, 0);
  Sql("UPDATE t SET v = 'one' WHERE id < 5; DELETE FROM t WHERE id = 10;");
  ASSERT_EQ(Dump().code, 0);
  Sql("UPDATE t SET v = 'two' WHERE id = 1;");
  ASSERT_EQ(Dump().code, 0);
  Sql("INSERT INTO t VALUES (100, 'new base');");
  RunResult base = Dump("--if-exists overwrite");
  ASSERT_EQ(base.code, 0) << base.err;
  EXPECT_FALSE(std::filesystem::exists(dest_ + "/_increments/000001/_manifest.json"));
  ExpectTableReads("new base", "t");
  EXPECT_EQ(CurrentSnapshot("t")["summary"].value("lakedump.increment", ""), "");
  RunResult verify = Verify();
  EXPECT_EQ(verify.code, 0) << verify.out << verify.err;
  EXPECT_EQ(testing_pg::QueryOne(*admin_, fmt::format("SELECT count(*) FROM pg_replication_slots "
                                                      "WHERE database = '{}'",
                                                      src_->name())),
            "1");
  Sql("UPDATE t SET v = 'after' WHERE id = 2; DELETE FROM t WHERE id = 3;");
  ASSERT_EQ(Dump().code, 0);
  ExpectTableReads("increment 1 of the new base", "t");
  EXPECT_EQ(CurrentSnapshot("t")["summary"].value("lakedump.increment", ""), "1");
  EXPECT_TRUE(DataOf(Replica()) == DataOf(src_->conninfo()));
  verify = Verify();
  EXPECT_EQ(verify.code, 0) << verify.out << verify.err;
}

}  // namespace
}  // namespace lakedump
