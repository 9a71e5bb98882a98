// The waves in which a restore refreshes materialized views several at once: a view after
// every view it reads, directly or through other entries of the archive.
#include "load/postgres/pg_matview_refresh.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace lakedump {
namespace {

PgArchiveTocEntry Entry(int dump_id, std::string desc, std::string tag, std::vector<int> deps) {
  PgArchiveTocEntry e;
  e.dump_id = dump_id;
  e.desc = std::move(desc);
  e.has_schema = true;
  e.schema = "s";
  e.tag = std::move(tag);
  e.dependencies = std::move(deps);
  return e;
}

TEST(PgMatviewRefreshTest, AViewComesAfterTheViewsItReadsThroughAnyChain) {
  const std::vector<PgArchiveTocEntry> entries = {
      Entry(1, "TABLE", "t", {}),
      Entry(2, "MATERIALIZED VIEW", "m1", {1}),
      Entry(3, "VIEW", "v", {2}),                 // reads m1
      Entry(4, "FUNCTION", "f", {3}),             // reads v
      Entry(5, "MATERIALIZED VIEW", "m2", {4}),   // m1 through v and f
      Entry(6, "MATERIALIZED VIEW", "m3", {1}),   // the table only
      Entry(7, "MATERIALIZED VIEW", "m4", {5, 6}),
      Entry(8, "MATERIALIZED VIEW", "m5", {99}),  // a dependency the archive does not hold
  };
  const std::vector<std::vector<size_t>> waves = PgMatviewRefreshWaves(entries, {1, 4, 5, 6, 7});
  ASSERT_EQ(waves.size(), 3u);
  EXPECT_EQ(waves[0], (std::vector<size_t>{1, 5, 7}));
  EXPECT_EQ(waves[1], (std::vector<size_t>{4}));
  EXPECT_EQ(waves[2], (std::vector<size_t>{6}));
  // A view not selected for refresh is no wave's concern: m2 alone is in the first wave.
  const std::vector<std::vector<size_t>> alone = PgMatviewRefreshWaves(entries, {4});
  ASSERT_EQ(alone.size(), 1u);
  EXPECT_EQ(alone[0], (std::vector<size_t>{4}));
  EXPECT_TRUE(PgMatviewRefreshWaves(entries, {}).empty());
}

}  // namespace
}  // namespace lakedump
