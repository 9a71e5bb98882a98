// The pg_restore --list parser (for archives newer than the in-process reader) and the
// plain-index subset. The selection of archive entries: pg_archive_selection_test.cc.
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

}  // namespace
}  // namespace lakedump
