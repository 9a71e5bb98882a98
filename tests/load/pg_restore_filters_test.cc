#include "load/postgres/pg_restore_filters.h"

#include <gtest/gtest.h>

namespace lakedump {
namespace {

PgTocEntry Entry(std::string type, std::string schema, std::string name) {
  PgTocEntry e;
  e.type = std::move(type);
  e.schema = std::move(schema);
  e.name = std::move(name);
  return e;
}

TEST(PgRestoreFiltersTest, LakedumpPublicationNames) {
  EXPECT_TRUE(IsLakedumpPublicationName("lakedump_20261205t043000z_1a2b3c4d"));
  EXPECT_TRUE(IsLakedumpPublicationName("lakedump_0123456789abcdef"));  // before dump-id names
  EXPECT_FALSE(IsLakedumpPublicationName("lakedump_20261205T043000Z_1a2b3c4d"));
  EXPECT_FALSE(IsLakedumpPublicationName("lakedump_20261205t043000z_1a2b3c4"));
  EXPECT_FALSE(IsLakedumpPublicationName("lakedump_mine"));
  EXPECT_FALSE(IsLakedumpPublicationName("app_pub"));
  EXPECT_FALSE(IsLakedumpPublicationName("lakedump_20261205t043000z_1a2b3c4dx"));
}

TEST(PgRestoreFiltersTest, EveryEntryOfLakedumpsPublicationAndNoOther) {
  const std::string pub = "lakedump_20261205t043000z_1a2b3c4d";
  EXPECT_TRUE(IsLakedumpPublicationEntry(Entry("PUBLICATION", "-", pub)));
  EXPECT_TRUE(IsLakedumpPublicationEntry(Entry("PUBLICATION TABLE", "shop", pub + " orders")));
  EXPECT_TRUE(IsLakedumpPublicationEntry(Entry("PUBLICATION TABLES IN SCHEMA", "-", pub + " shop")));
  EXPECT_TRUE(IsLakedumpPublicationEntry(Entry("COMMENT", "-", "PUBLICATION " + pub)));
  EXPECT_FALSE(IsLakedumpPublicationEntry(Entry("PUBLICATION", "-", "app_pub")));
  EXPECT_FALSE(IsLakedumpPublicationEntry(Entry("PUBLICATION TABLE", "shop", "app_pub orders")));
  EXPECT_FALSE(IsLakedumpPublicationEntry(Entry("COMMENT", "-", "PUBLICATION app_pub")));
  // A table that happens to have the name is not a publication.
  EXPECT_FALSE(IsLakedumpPublicationEntry(Entry("TABLE", "shop", pub)));
  EXPECT_FALSE(IsLakedumpPublicationEntry(Entry("COMMENT", "shop", "TABLE " + pub)));
}

TEST(PgRestoreFiltersTest, UnpopulatedMatviewsAsRecorded) {
  const nlohmann::json schema = nlohmann::json::parse(
      R"({"unpopulated_matviews": [{"schema": "shop", "name": "later"}, {"schema": 1}, 7]})");
  EXPECT_TRUE(IsUnpopulatedMatview(schema, "shop", "later"));
  EXPECT_FALSE(IsUnpopulatedMatview(schema, "shop", "order_counts"));
  EXPECT_FALSE(IsUnpopulatedMatview(schema, "other", "later"));
  // Older dumps (no list) and damaged ones: every matview is refreshed.
  EXPECT_FALSE(IsUnpopulatedMatview(nlohmann::json::object(), "shop", "later"));
  EXPECT_FALSE(IsUnpopulatedMatview(nlohmann::json::parse(R"({"unpopulated_matviews": "x"})"),
                                    "shop", "later"));
}

}  // namespace
}  // namespace lakedump
