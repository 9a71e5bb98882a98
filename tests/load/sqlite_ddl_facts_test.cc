// What a recorded SQLite CREATE TABLE says beyond its column types, read by SQLite itself in a
// private in-memory database (load/sqlite/sqlite_ddl_facts.h); a recorded statement that does
// anything else is refused.
#include "load/sqlite/sqlite_ddl_facts.h"

#include <gtest/gtest.h>

namespace lakedump {
namespace {

TEST(SqliteDdlFactsTest, ReadsForeignKeysDefaultsChecksCollationsAndGeneratedColumns) {
  const std::string ddl =
      "CREATE TABLE \"order\" (id INTEGER PRIMARY KEY AUTOINCREMENT, "
      "customer INT REFERENCES customer (id) ON DELETE CASCADE, "
      "a INT, b INT, status TEXT DEFAULT 'new' CHECK (status IN ('new', 'done')), "
      "name TEXT COLLATE NOCASE, note TEXT DEFAULT 'CHECK (x)', -- CHECK (comment)\n"
      "total REAL GENERATED ALWAYS AS (a * b) STORED, half GENERATED ALWAYS AS (a / 2), "
      "FOREIGN KEY (a, b) REFERENCES pair, CONSTRAINT positive CHECK (a > 0))";
  Result<SqliteTableFacts> f = ReadSqliteTableFacts(ddl, "order");
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  ASSERT_EQ(f->foreign_keys.size(), 2u);
  const auto& single = f->foreign_keys[0].ref_table == "customer" ? f->foreign_keys[0]
                                                                   : f->foreign_keys[1];
  const auto& pair = &single == &f->foreign_keys[0] ? f->foreign_keys[1] : f->foreign_keys[0];
  EXPECT_EQ(single.columns, std::vector<std::string>{"customer"});
  EXPECT_EQ(single.ref_columns, std::vector<std::string>{"id"});
  EXPECT_EQ(single.on_delete, "CASCADE");
  EXPECT_EQ(pair.columns, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(pair.ref_table, "pair");
  ASSERT_EQ(f->defaults.size(), 2u);
  EXPECT_EQ(f->defaults[0], (std::pair<std::string, std::string>{"status", "'new'"}));
  EXPECT_EQ(f->checks, 2u);  // not the one in a string, nor the one in a comment
  EXPECT_EQ(f->autoincrement, "id");
  ASSERT_EQ(f->collations.size(), 1u);
  EXPECT_EQ(f->collations[0].first, "name");
  EXPECT_EQ(f->collations[0].second, "NOCASE");
  ASSERT_EQ(f->generated.size(), 2u);
  EXPECT_EQ(f->generated[0], (std::pair<std::string, bool>{"total", true}));
  EXPECT_EQ(f->generated[1], (std::pair<std::string, bool>{"half", false}));
}

TEST(SqliteDdlFactsTest, AStatementThatDoesAnythingElseIsRefused) {
  for (const char* ddl : {"CREATE TABLE other (a)", "CREATE TABLE t (a); ATTACH 'x' AS y",
                          "ATTACH '/tmp/x' AS y", "CREATE TEMP TABLE t (a)",
                          "CREATE TABLE t AS SELECT * FROM pragma_database_list"}) {
    Result<SqliteTableFacts> f = ReadSqliteTableFacts(ddl, "t");
    EXPECT_EQ(f.status().code(), Code::kInvalidArgument) << ddl;
  }
}

TEST(SqliteDdlFactsTest, ChecksAreCountedOutsideStringsIdentifiersAndComments) {
  EXPECT_EQ(CountSqliteChecks("CREATE TABLE t (a CHECK(a>0), \"check\" INT, [CHECK] INT, "
                              "`check` INT, b DEFAULT 'check (1)' /* CHECK (2) */, check (b))"),
            2u);
  EXPECT_EQ(CountSqliteChecks("CREATE TABLE checks (checked INT)"), 0u);
}

}  // namespace
}  // namespace lakedump
