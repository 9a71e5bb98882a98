// The pg_restore --list parser and the selection of archive entries for --tables /
// --exclude (an excluded table loses its partitions, indexes, constraints, triggers,
// defaults and comments; views go by name), and the plain-index subset.
#include "load/postgres/pg_schema_restore.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "load/schema_subset.h"
#include "source/postgres/pg_schema_capture.h"

namespace lakedump {
namespace {

constexpr const char* kListing = R"(;
; Archive created at 2026-12-01 12:16:53 UTC
;
6; 2615 16385 SCHEMA - shop postgres
854; 1247 16390 DOMAIN shop email postgres
227; 1255 16456 FUNCTION shop order_total(bigint) postgres
218; 1259 16402 TABLE shop customers postgres
219; 1259 16413 TABLE shop orders postgres
3420; 0 0 COMMENT shop TABLE orders postgres
224; 1259 16457 VIEW shop customer_orders postgres
221; 1259 16429 TABLE shop events postgres
3421; 0 0 SEQUENCE OWNED BY shop events_id_seq postgres
222; 1259 16435 TABLE shop events_2025 postgres
225; 1259 16461 MATERIALIZED VIEW shop order_counts postgres
3238; 0 0 TABLE ATTACH shop events_2025 postgres
3243; 2604 16432 DEFAULT shop events id postgres
3256; 2606 16434 CONSTRAINT shop events events_pkey postgres
3259; 2606 16440 CONSTRAINT shop events_2025 events_2025_pkey postgres
3254; 1259 16451 INDEX shop events_kind_idx postgres
3257; 1259 16452 INDEX shop events_2025_kind_idx postgres
3264; 0 0 INDEX ATTACH shop events_2025_kind_idx postgres
3250; 1259 16426 INDEX shop orders_customer_idx postgres
3269; 2620 16455 TRIGGER shop orders orders_touch postgres
3268; 2606 16421 FK CONSTRAINT shop orders orders_customer_id_fkey postgres
)";

TEST(PgTocListingTest, ParsesTypesSchemasAndNames) {
  std::vector<PgTocEntry> toc = ParsePgTocListing(kListing);
  ASSERT_EQ(toc.size(), 21u);
  EXPECT_EQ(toc[0].type, "SCHEMA");
  EXPECT_EQ(toc[0].schema, "-");
  EXPECT_EQ(toc[0].name, "shop");
  EXPECT_EQ(toc[2].type, "FUNCTION");
  EXPECT_EQ(toc[2].name, "order_total(bigint)");
  EXPECT_EQ(toc[5].type, "COMMENT");
  EXPECT_EQ(toc[5].name, "TABLE orders");
  EXPECT_EQ(toc[8].type, "SEQUENCE OWNED BY");
  EXPECT_EQ(toc[10].type, "MATERIALIZED VIEW");
  EXPECT_EQ(toc[20].type, "FK CONSTRAINT");
  EXPECT_EQ(toc[20].name, "orders orders_customer_id_fkey");
  EXPECT_EQ(toc[20].line, "3268; 2606 16421 FK CONSTRAINT shop orders orders_customer_id_fkey postgres");
}

SchemaRestorePlan PlanExcludingEvents() {
  SchemaRestorePlan plan;
  plan.schema = nlohmann::json::parse(R"({
    "schema_from": "pg_dump",
    "indexes": [
      {"schema": "shop", "table": "events", "name": "events_kind_idx", "unique": false,
       "primary": false, "constraint": false, "columns": ["kind"]},
      {"schema": "shop", "table": "events_2025", "name": "events_2025_kind_idx", "unique": false,
       "primary": false, "constraint": false, "columns": ["kind"]},
      {"schema": "shop", "table": "orders", "name": "orders_customer_idx", "unique": false,
       "primary": false, "constraint": false, "columns": ["customer_id"]},
      {"schema": "shop", "table": "orders", "name": "orders_pkey", "unique": true,
       "primary": true, "constraint": true, "columns": ["id"]},
      {"schema": "shop", "table": "orders", "name": "orders_lower", "unique": false,
       "primary": false, "constraint": false, "columns": null}],
    "sequences": [{"schema": "shop", "name": "events_id_seq", "table_schema": "shop",
                   "table": "events", "last_value": 3, "is_called": true}],
    "partitions": [{"schema": "shop", "name": "events_2025", "parent_schema": "shop",
                    "parent": "events"}]
  })");
  plan.tables = {{"shop", "customers"}, {"shop", "orders"}};
  plan.excluded = {{"shop", "events"}};
  plan.exclude_patterns = {"shop.events", "shop.order_counts"};
  return plan;
}

TEST(SelectTocEntriesTest, AnExcludedTableTakesItsObjectsAlong) {
  std::vector<PgTocEntry> kept = SelectTocEntries(ParsePgTocListing(kListing), PlanExcludingEvents());
  std::vector<std::string> names;
  for (const PgTocEntry& e : kept) names.push_back(e.type + " " + e.name);
  EXPECT_EQ(names, (std::vector<std::string>{
                       "SCHEMA shop", "DOMAIN email", "FUNCTION order_total(bigint)",
                       "TABLE customers", "TABLE orders", "COMMENT TABLE orders",
                       "VIEW customer_orders",
                       "INDEX orders_customer_idx", "TRIGGER orders orders_touch",
                       "FK CONSTRAINT orders orders_customer_id_fkey"}));
}

TEST(SelectTocEntriesTest, AForeignKeyToATableNotRestoredIsLeftOutNamingIt) {
  SchemaRestorePlan plan = PlanExcludingEvents();
  plan.schema["fks"] = nlohmann::json::parse(R"([
    {"schema": "shop", "table": "orders", "name": "orders_customer_id_fkey",
     "ref_schema": "shop", "ref_table": "customers"}])");
  std::vector<std::string> skipped;
  // customers selected: the key stays.
  std::vector<PgTocEntry> kept = SelectTocEntries(ParsePgTocListing(kListing), plan, &skipped);
  EXPECT_EQ(kept.back().type, "FK CONSTRAINT");
  EXPECT_TRUE(skipped.empty());
  // customers not in the dump (or excluded at load): the key goes, named in one line.
  plan.tables = {{"shop", "orders"}};
  kept = SelectTocEntries(ParsePgTocListing(kListing), plan, &skipped);
  for (const PgTocEntry& e : kept) EXPECT_NE(e.type, "FK CONSTRAINT") << e.line;
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_EQ(skipped[0],
            "skipped PostgreSQL foreign key orders_customer_id_fkey on shop.orders: it references "
            "shop.customers, which this load does not restore");
  // A key to a partition's parent counts the parent's partitions as the parent.
  plan.schema["fks"][0]["ref_table"] = "events_2025";
  plan.tables = {{"shop", "orders"}, {"shop", "events"}};
  skipped.clear();
  kept = SelectTocEntries(ParsePgTocListing(kListing), plan, &skipped);
  EXPECT_EQ(kept.back().type, "FK CONSTRAINT");
  EXPECT_TRUE(skipped.empty());
}

TEST(SchemaSubsetTest, PlainIndexesOfSelectedTablesOnly) {
  std::vector<PlainIndex> indexes = PlainIndexesToCreate(PlanExcludingEvents());
  ASSERT_EQ(indexes.size(), 1u);
  EXPECT_EQ(indexes[0].name, "orders_customer_idx");
  EXPECT_EQ(CreateIndexStatement(indexes[0], "\"shop\".\"orders\""),
            "CREATE INDEX IF NOT EXISTS \"orders_customer_idx\" ON \"shop\".\"orders\" "
            "(\"customer_id\")");
}

TEST(SchemaSubsetTest, HostileNamesStayQuoted) {
  PlainIndex ix{{"s", "t"}, "i\"; DROP TABLE x; --", true, {"c\"c"}};
  EXPECT_EQ(CreateIndexStatement(ix, "\"s\".\"t\""),
            "CREATE UNIQUE INDEX IF NOT EXISTS \"i\"\"; DROP TABLE x; --\" ON \"s\".\"t\" "
            "(\"c\"\"c\")");
}

TEST(PgTocListingTest, KeepsTheCatalogAndObjectOids) {
  std::vector<PgTocEntry> toc = ParsePgTocListing(kListing);
  ASSERT_EQ(toc.size(), 21u);
  EXPECT_EQ(toc[2].catalog_oid, 1255u);
  EXPECT_EQ(toc[2].object_oid, 16456u);
  EXPECT_EQ(toc[6].catalog_oid, 1259u);
  EXPECT_EQ(toc[6].object_oid, 16457u);
  EXPECT_EQ(toc[5].catalog_oid, 0u);
}

// A view and a function whose `dependents` entry names a table the load does not restore
// go, with the comments and grants on them; what needs only restored tables stays.
TEST(SelectTocEntriesTest, ViewsAndFunctionsNeedingATableNotRestoredAreLeftOutNamingThem) {
  const std::string listing = std::string(kListing) +
                              "3422; 0 0 COMMENT shop FUNCTION order_total(bigint) postgres\n"
                              "3423; 0 0 ACL shop FUNCTION order_total(bigint) postgres\n"
                              "3424; 0 0 COMMENT shop VIEW customer_orders postgres\n"
                              "3425; 0 0 ACL shop TABLE customer_orders postgres\n";
  SchemaRestorePlan plan = PlanExcludingEvents();
  plan.schema["dependents"] = nlohmann::json::parse(R"([
    {"catalog": 1255, "oid": 16456, "tables": [{"schema": "shop", "name": "orders"}]},
    {"catalog": 1259, "oid": 16457, "tables": [{"schema": "shop", "name": "customers"},
                                               {"schema": "shop", "name": "orders"}]},
    {"catalog": 1259, "oid": 16461, "tables": [{"schema": "shop", "name": "events_2025"}]}])");
  auto names_of = [](const std::vector<PgTocEntry>& kept) {
    std::vector<std::string> names;
    for (const PgTocEntry& e : kept) names.push_back(e.type + " " + e.name);
    return names;
  };
  // Every table they need is restored: all stay.
  std::vector<std::string> skipped;
  std::vector<std::string> names = names_of(SelectTocEntries(ParsePgTocListing(listing), plan, &skipped));
  EXPECT_TRUE(skipped.empty());
  EXPECT_NE(std::find(names.begin(), names.end(), "VIEW customer_orders"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "ACL FUNCTION order_total(bigint)"), names.end());
  // Without orders: the function and the view go, with their comments and grants.
  plan.tables = {{"shop", "customers"}};
  names = names_of(SelectTocEntries(ParsePgTocListing(listing), plan, &skipped));
  for (const char* gone :
       {"FUNCTION order_total(bigint)", "COMMENT FUNCTION order_total(bigint)",
        "ACL FUNCTION order_total(bigint)", "VIEW customer_orders",
        "COMMENT VIEW customer_orders", "ACL TABLE customer_orders"}) {
    EXPECT_EQ(std::find(names.begin(), names.end(), gone), names.end()) << gone;
  }
  EXPECT_NE(std::find(names.begin(), names.end(), "TABLE customers"), names.end());
  EXPECT_EQ(skipped, (std::vector<std::string>{
                         "skipped PostgreSQL function shop.order_total(bigint): it needs "
                         "shop.orders, which this load does not restore",
                         "skipped PostgreSQL view shop.customer_orders: it needs shop.orders, "
                         "which this load does not restore"}));
}

// A hostile or damaged `dependents` entry is ignored, never trusted to reach out of range.
TEST(SelectTocEntriesTest, MalformedDependentsAreIgnored) {
  SchemaRestorePlan plan = PlanExcludingEvents();
  plan.tables = {{"shop", "customers"}};
  plan.schema["dependents"] = nlohmann::json::parse(R"([
    1, {"catalog": -1, "oid": 16456, "tables": []}, {"catalog": 1255, "oid": 4294983752,
    "tables": [{"schema": "shop", "name": "orders"}]}, {"catalog": 1255, "oid": 16456,
    "tables": "shop.orders"}])");
  std::vector<std::string> skipped;
  std::vector<PgTocEntry> kept = SelectTocEntries(ParsePgTocListing(kListing), plan, &skipped);
  EXPECT_TRUE(skipped.empty());
  EXPECT_TRUE(std::any_of(kept.begin(), kept.end(),
                          [](const PgTocEntry& e) { return e.type == "FUNCTION"; }));
}

// A function whose quoted body mentions a table the load does not restore (a partition counts
// as its parent) is named in one line; one mentioning only restored tables, or not restored
// itself, is not; a malformed entry is ignored.
TEST(QuotedBodyWarningsTest, NamesRestoredFunctionsMentioningATableNotRestored) {
  SchemaRestorePlan plan = PlanExcludingEvents();
  plan.schema["mentions"] = nlohmann::json::parse(R"([
    {"catalog": 1255, "oid": 16456, "tables": [{"schema": "shop", "name": "orders"},
      {"schema": "shop", "name": "events_2025"}, {"schema": "other", "name": "t"}]},
    {"catalog": 1255, "oid": 16457, "tables": [{"schema": "shop", "name": "customers"}]},
    {"catalog": 1255, "oid": 16999, "tables": [{"schema": "shop", "name": "events"}]},
    {"catalog": "1255", "oid": 16456, "tables": [{"schema": "shop", "name": "events"}]}])");
  std::vector<PgTocEntry> toc = ParsePgTocListing(
      "227; 1255 16456 FUNCTION shop order_total(bigint) postgres\n"
      "228; 1255 16457 FUNCTION shop customer_count() postgres\n");
  EXPECT_EQ(QuotedBodyWarnings(toc, plan),
            (std::vector<std::string>{
                "PostgreSQL function shop.order_total(bigint) was restored, but its body (in "
                "quotes, no recorded dependencies) mentions shop.events_2025, other.t, which "
                "this load does not restore: it may fail when called"}));
}

}  // namespace
}  // namespace lakedump
