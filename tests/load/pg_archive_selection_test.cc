// The archive entries a load restores, chosen by dump id and dependency (issue 31):
// an excluded table takes what hangs on it (indexes, constraints, column grants,
// partitions) without a word and each object that needs it with one warning; a subset
// (--tables, -t, -n) restores its tables, what they need and what is on them, and nothing
// else (no unrelated function, event trigger or extension); names with spaces, quotes and
// dots are matched exactly, never split out of a listing line.
#include "load/postgres/pg_archive_selection.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace lakedump {
namespace {

struct E {
  int id;
  uint32_t catalog, oid;
  std::string desc, schema, tag;
  std::vector<int> deps;
};

std::vector<PgArchiveTocEntry> Toc(const std::vector<E>& list) {
  std::vector<PgArchiveTocEntry> out;
  for (const E& e : list) {
    PgArchiveTocEntry a;
    a.dump_id = e.id;
    a.catalog_oid = e.catalog;
    a.object_oid = e.oid;
    a.desc = e.desc;
    a.has_schema = e.schema != "-";
    a.schema = a.has_schema ? e.schema : "";
    a.tag = e.tag;
    a.owner = "postgres";
    a.has_definition = true;
    a.definition = "CREATE ...;";
    a.dependencies = e.deps;
    out.push_back(std::move(a));
  }
  return out;
}

// The rich schema's archive, with the dependencies pg_dump records.
std::vector<PgArchiveTocEntry> Shop() {
  return Toc({
      {6, 2615, 16385, "SCHEMA", "-", "shop", {}},
      {302, 3079, 16300, "EXTENSION", "-", "citext", {}},
      {854, 1247, 16390, "DOMAIN", "shop", "email", {6}},
      {227, 1255, 16456, "FUNCTION", "shop", "order_total(bigint)", {6}},
      {300, 1255, 16470, "FUNCTION", "shop", "unrelated()", {6}},
      {218, 1259, 16402, "TABLE", "shop", "customers", {6, 854}},
      {303, 1255, 16471, "FUNCTION", "shop", "greet(shop.customers)", {6, 218}},
      {219, 1259, 16413, "TABLE", "shop", "orders", {6}},
      {3420, 0, 0, "COMMENT", "shop", "TABLE orders", {219}},
      {224, 1259, 16457, "VIEW", "shop", "customer_orders", {6, 218, 219}},
      {221, 1259, 16429, "TABLE", "shop", "events", {6}},
      {220, 1259, 16428, "SEQUENCE", "shop", "events_id_seq", {6}},
      {3421, 0, 0, "SEQUENCE OWNED BY", "shop", "events_id_seq", {220, 221}},
      {222, 1259, 16435, "TABLE", "shop", "events_2025", {221}},
      {225, 1259, 16461, "MATERIALIZED VIEW", "shop", "order_counts", {219}},
      {3238, 0, 0, "TABLE ATTACH", "shop", "events_2025", {221, 222}},
      {3243, 2604, 16432, "DEFAULT", "shop", "events id", {221, 220}},
      {3256, 2606, 16434, "CONSTRAINT", "shop", "events events_pkey", {221}},
      {3258, 2606, 16420, "CONSTRAINT", "shop", "customers customers_pkey", {218}},
      {3250, 1259, 16426, "INDEX", "shop", "orders_customer_idx", {219}},
      {3269, 2620, 16455, "TRIGGER", "shop", "orders orders_touch", {219, 227}},
      {3268, 2606, 16421, "FK CONSTRAINT", "shop", "orders orders_customer_id_fkey",
       {219, 218, 3258}},
      {3300, 0, 0, "ACL", "shop", "COLUMN customers.email", {218}},
      {3301, 0, 0, "ACL", "shop", "COLUMN orders.qty", {219}},
      {3302, 0, 0, "ACL", "-", "SCHEMA shop", {6}},
      {301, 3466, 16480, "EVENT TRIGGER", "-", "audit_ddl", {300}},
  });
}

SchemaRestorePlan ShopPlan() {
  SchemaRestorePlan plan;
  plan.schema = nlohmann::json::parse(R"({
    "schema_from": "pg_dump",
    "sequences": [{"schema": "shop", "name": "events_id_seq", "table_schema": "shop",
                   "table": "events", "last_value": 3, "is_called": true}],
    "partitions": [{"schema": "shop", "name": "events_2025", "parent_schema": "shop",
                    "parent": "events"}],
    "fks": [{"schema": "shop", "table": "orders", "name": "orders_customer_id_fkey",
             "ref_schema": "shop", "ref_table": "customers"}]
  })");
  plan.tables = {{"shop", "customers"}, {"shop", "orders"}};
  plan.excluded = {{"shop", "events"}};
  return plan;
}

std::vector<std::string> Names(const std::vector<PgArchiveTocEntry>& toc,
                               const std::vector<size_t>& kept) {
  std::vector<std::string> names;
  for (size_t i : kept) names.push_back(toc[i].desc + " " + toc[i].tag);
  return names;
}

TEST(SelectArchiveEntriesTest, AnExcludedTableTakesItsObjectsAlongWithoutAWord) {
  const auto toc = Shop();
  SchemaRestorePlan plan = ShopPlan();
  plan.exclude_patterns = {"shop.events", "shop.order_counts"};
  std::vector<std::string> skipped;
  EXPECT_EQ(Names(toc, SelectArchiveEntries(toc, plan, &skipped)),
            (std::vector<std::string>{
                "SCHEMA shop", "EXTENSION citext", "DOMAIN email", "FUNCTION order_total(bigint)",
                "FUNCTION unrelated()", "TABLE customers", "FUNCTION greet(shop.customers)",
                "TABLE orders", "COMMENT TABLE orders", "VIEW customer_orders",
                "CONSTRAINT customers customers_pkey", "INDEX orders_customer_idx",
                "TRIGGER orders orders_touch", "FK CONSTRAINT orders orders_customer_id_fkey",
                "ACL COLUMN customers.email", "ACL COLUMN orders.qty", "ACL SCHEMA shop",
                "EVENT TRIGGER audit_ddl"}));
  EXPECT_TRUE(skipped.empty()) << skipped.front();
}

// customers left out: the function taking its row type, the view reading it and the key to
// it would break, each named once; its column grant and constraint go silently.
TEST(SelectArchiveEntriesTest, WhatNeedsAnExcludedTableIsLeftOutWithOneWarningEach) {
  const auto toc = Shop();
  SchemaRestorePlan plan = ShopPlan();
  plan.tables = {{"shop", "orders"}, {"shop", "events"}};
  plan.excluded = {{"shop", "customers"}};
  std::vector<std::string> skipped;
  const std::vector<std::string> names = Names(toc, SelectArchiveEntries(toc, plan, &skipped));
  for (const char* gone : {"TABLE customers", "FUNCTION greet(shop.customers)",
                           "VIEW customer_orders", "ACL COLUMN customers.email",
                           "CONSTRAINT customers customers_pkey",
                           "FK CONSTRAINT orders orders_customer_id_fkey"}) {
    EXPECT_EQ(std::find(names.begin(), names.end(), gone), names.end()) << gone;
  }
  for (const char* kept : {"DOMAIN email", "TABLE orders", "ACL COLUMN orders.qty",
                           "SEQUENCE events_id_seq", "TABLE events_2025"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), kept), names.end()) << kept;
  }
  EXPECT_EQ(skipped, (std::vector<std::string>{
                         "skipped PostgreSQL function shop.greet(shop.customers): it needs "
                         "shop.customers, which this load does not restore",
                         "skipped PostgreSQL view shop.customer_orders: it needs shop.customers, "
                         "which this load does not restore",
                         "skipped PostgreSQL foreign key orders_customer_id_fkey on shop.orders: "
                         "it references shop.customers, which this load does not restore"}));
}

// --tables orders: the table, what it needs (its schema, the trigger's function), what is on
// it (comment, index, trigger, column grant, the materialized view reading it); not the
// domain only customers uses, an unrelated function, the event trigger or the extension.
TEST(SelectArchiveEntriesTest, ASubsetRestoresItsTablesWithWhatTheyNeedOnly) {
  const auto toc = Shop();
  SchemaRestorePlan plan = ShopPlan();
  plan.tables = {{"shop", "orders"}};
  plan.excluded = {{"shop", "customers"}, {"shop", "events"}};
  plan.filter.subset = true;
  std::vector<std::string> skipped;
  EXPECT_EQ(Names(toc, SelectArchiveEntries(toc, plan, &skipped)),
            (std::vector<std::string>{
                "SCHEMA shop", "FUNCTION order_total(bigint)", "TABLE orders",
                "COMMENT TABLE orders", "MATERIALIZED VIEW order_counts",
                "INDEX orders_customer_idx", "TRIGGER orders orders_touch",
                "ACL COLUMN orders.qty", "ACL SCHEMA shop"}));
  // Named: what hangs on orders and breaks; not what only the tables left out needed.
  EXPECT_EQ(skipped, (std::vector<std::string>{
                         "skipped PostgreSQL view shop.customer_orders: it needs shop.customers, "
                         "which this load does not restore",
                         "skipped PostgreSQL foreign key orders_customer_id_fkey on shop.orders: "
                         "it references shop.customers, which this load does not restore"}));
  // -n shop: every object of the schema that nothing left out breaks.
  plan.filter.schemas = {"shop"};
  const std::vector<std::string> names = Names(toc, SelectArchiveEntries(toc, plan));
  EXPECT_NE(std::find(names.begin(), names.end(), "FUNCTION unrelated()"), names.end());
  EXPECT_EQ(std::find(names.begin(), names.end(), "EVENT TRIGGER audit_ddl"), names.end());
  EXPECT_EQ(std::find(names.begin(), names.end(), "EXTENSION citext"), names.end());
}

// A dependency of a kept table in a -N schema still comes (the table needs it); the
// schema's other objects do not.
TEST(SelectArchiveEntriesTest, AnExcludedSchemaKeepsWhatAKeptTableNeeds) {
  const auto toc = Toc({
      {1, 2615, 1, "SCHEMA", "-", "types", {}},
      {2, 2615, 2, "SCHEMA", "-", "app", {}},
      {3, 1247, 3, "DOMAIN", "types", "money2", {1}},
      {4, 1247, 4, "DOMAIN", "types", "unused", {1}},
      {5, 1259, 5, "TABLE", "app", "t", {2, 3}},
  });
  SchemaRestorePlan plan;
  plan.schema = nlohmann::json::object();
  plan.tables = {{"app", "t"}};
  plan.filter.exclude_schemas = {"types"};
  EXPECT_EQ(Names(toc, SelectArchiveEntries(toc, plan)),
            (std::vector<std::string>{"SCHEMA types", "SCHEMA app", "DOMAIN money2", "TABLE t"}));
}

// Odd names are one name each: a schema with a space, a table with a quote, a slash and a
// dot; an index on the table is found through its dependency, not its tag.
TEST(SelectArchiveEntriesTest, OddNamesAreMatchedExactly) {
  const auto toc = Toc({
      {1, 2615, 1, "SCHEMA", "-", "odd schema", {}},
      {2, 1259, 2, "TABLE", "odd schema", "Odd \"Name\"/x.y", {1}},
      {3, 1259, 3, "INDEX", "odd schema", "odd idx", {2}},
      {4, 1259, 4, "TABLE", "odd schema", "Odd", {1}},
      {5, 1259, 5, "INDEX", "odd schema", "Odd \"Name\"/x.y_idx", {4}},
  });
  SchemaRestorePlan plan;
  plan.schema = nlohmann::json::object();
  plan.tables = {{"odd schema", "Odd \"Name\"/x.y"}};
  plan.excluded = {{"odd schema", "Odd"}};
  plan.filter.subset = true;
  EXPECT_EQ(Names(toc, SelectArchiveEntries(toc, plan)),
            (std::vector<std::string>{"SCHEMA odd schema", "TABLE Odd \"Name\"/x.y",
                                      "INDEX odd idx"}));
}

// A hostile or damaged `dependents` entry is ignored, never trusted to reach out of range;
// a dependency on an id the archive does not hold is ignored.
TEST(SelectArchiveEntriesTest, MalformedDependentsAreIgnored) {
  auto toc = Shop();
  toc[3].dependencies.push_back(99999);
  SchemaRestorePlan plan = ShopPlan();
  plan.schema["dependents"] = nlohmann::json::parse(R"([
    1, {"catalog": -1, "oid": 16456, "tables": []}, {"catalog": 1255, "oid": 4294983752,
    "tables": [{"schema": "shop", "name": "events"}]}, {"catalog": 1255, "oid": 16456,
    "tables": "shop.events"}])");
  std::vector<std::string> skipped;
  const std::vector<std::string> names = Names(toc, SelectArchiveEntries(toc, plan, &skipped));
  EXPECT_TRUE(skipped.empty());
  EXPECT_NE(std::find(names.begin(), names.end(), "FUNCTION order_total(bigint)"), names.end());
}

// A function in the dump whose table was left out of the dump (no dependency in the archive):
// the manifest's `dependents` leaves it out, with what needs it, naming it once.
TEST(SelectArchiveEntriesTest, DependentsOfATableNotInTheDumpAreLeftOut) {
  const auto toc = Shop();
  SchemaRestorePlan plan = ShopPlan();
  plan.schema["dependents"] = nlohmann::json::parse(R"([
    {"catalog": 1255, "oid": 16456, "tables": [{"schema": "shop", "name": "audit"}]}])");
  std::vector<std::string> skipped;
  const std::vector<std::string> names = Names(toc, SelectArchiveEntries(toc, plan, &skipped));
  EXPECT_EQ(std::find(names.begin(), names.end(), "FUNCTION order_total(bigint)"), names.end());
  EXPECT_EQ(std::find(names.begin(), names.end(), "TRIGGER orders orders_touch"), names.end());
  EXPECT_EQ(skipped, (std::vector<std::string>{
                         "skipped PostgreSQL function shop.order_total(bigint): it needs "
                         "shop.audit, which this load does not restore",
                         "skipped PostgreSQL trigger shop.orders orders_touch: it needs "
                         "shop.audit, which this load does not restore"}));
}

// A function whose quoted body mentions a table the load does not restore (a partition counts
// as its parent) is named in one line; one mentioning only restored tables, or not restored
// itself, is not; a malformed entry is ignored.
TEST(QuotedBodyWarningsTest, NamesRestoredFunctionsMentioningATableNotRestored) {
  SchemaRestorePlan plan = ShopPlan();
  plan.schema["mentions"] = nlohmann::json::parse(R"([
    {"catalog": 1255, "oid": 16456, "tables": [{"schema": "shop", "name": "orders"},
      {"schema": "shop", "name": "events_2025"}, {"schema": "other", "name": "t"}]},
    {"catalog": 1255, "oid": 16470, "tables": [{"schema": "shop", "name": "customers"}]},
    {"catalog": 1255, "oid": 16999, "tables": [{"schema": "shop", "name": "events"}]},
    {"catalog": "1255", "oid": 16456, "tables": [{"schema": "shop", "name": "events"}]}])");
  const auto toc = Shop();
  EXPECT_EQ(QuotedBodyWarnings(toc, {3, 4}, plan),
            (std::vector<std::string>{
                "PostgreSQL function shop.order_total(bigint) was restored, but its body (in "
                "quotes, no recorded dependencies) mentions shop.events_2025, other.t, which "
                "this load does not restore: it may fail when called"}));
}

}  // namespace
}  // namespace lakedump
