// An Iceberg increment's memory is bounded by its buffers, not by its table (issue 33;
// docs/iceberg.md "Increments", key_index.h): the key index is streamed, never held, and the
// increment's new row versions go to their data file as they come. The same changes (2,000
// updates, 500 deletes, 500 inserts) are taken as an increment of a table of 50,000 rows and
// of one of 1,000,000 rows: the larger's peak RSS (wait4()'s rusage of the child) stays within
// a few MiB of the smaller's. Holding the index (about 100 bytes a key in a hash map) would add
// some 90 MiB.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <string>

#include "fakes/cli_run.h"
#include "fakes/measured_run.h"
#include "fakes/temp_dir.h"
#include "integration/pg_slot_cleanup.h"
#include "integration/pg_test_util.h"

namespace lakedump {
namespace {

using json = nlohmann::json;
using testing_cli::ChildRun;
using testing_cli::kRssIsMeaningful;
using testing_cli::ReadFile;
using testing_cli::RunMeasured;
using testing_pg::ScratchDatabase;
using testing_pg::SlotCleanup;

class IcebergIndexMemoryTest : public ::testing::Test {
 protected:
  void SetUp() override { LD_REQUIRE_LOGICAL_PG(admin_); }

  // A table of `rows` rows, its Iceberg incremental base, the same changes, and the peak RSS
  // of the increment that takes them.
  long IncrementRssKib(long rows) {
    ScratchDatabase db(admin_.get());
    SlotCleanup slots(admin_.get(), db.name());
    TempDir tmp;
    const std::string dest = tmp.Sub("dest");
    auto c = PgConn::Connect(db.conninfo(), 10);
    EXPECT_TRUE(c.ok());
    if (!c.ok()) return -1;
    const long every = rows / 2000;
    Status made = (*c)->Exec(fmt::format(
        "SET search_path = public; CREATE TABLE t (id int8 PRIMARY KEY, v text, n int8);"
        "INSERT INTO t SELECT g, 'row ' || g, g FROM generate_series(1, {}) g;",
        rows));
    EXPECT_TRUE(made.ok()) << made.ToString();
    const std::vector<std::string> dump = {"dump", db.conninfo(), dest, "--incremental",
                                           "--table-format", "iceberg", "--progress", "none"};
    ChildRun base = RunMeasured(dump, tmp);
    EXPECT_EQ(base.code, 0) << ReadFile(tmp.Sub("mem-stderr.txt"));
    Status changed = (*c)->Exec(fmt::format(
        "SET search_path = public; UPDATE t SET v = 'changed' WHERE id % {0} = 0;"
        "DELETE FROM t WHERE id % {0} = 1 AND id % (4 * {0}) = 1;"
        "INSERT INTO t SELECT g, 'new', g FROM generate_series({1} + 1, {1} + 500) g;",
        every, rows));
    EXPECT_TRUE(changed.ok()) << changed.ToString();
    ChildRun inc = RunMeasured(dump, tmp);
    EXPECT_EQ(inc.code, 0) << ReadFile(tmp.Sub("mem-stderr.txt"));
    const std::string meta = dest + "/public/t/metadata/";
    const json m = json::parse(
        ReadFile(meta + "v" + ReadFile(meta + "version-hint.text") + ".metadata.json"), nullptr,
        false);
    std::string updates;
    for (const json& s : m.is_object() ? m["snapshots"] : json::array()) {
      if (s.is_object() && s["snapshot-id"] == m["current-snapshot-id"]) {
        updates = s["summary"].value("lakedump.updates", "");
      }
    }
    EXPECT_EQ(updates, "2000") << "rows " << rows;
    std::printf("table of %ld rows: base peak RSS %.1f MiB, increment peak RSS %.1f MiB\n", rows,
                static_cast<double>(base.max_rss_kib) / 1024,
                static_cast<double>(inc.max_rss_kib) / 1024);
    return inc.max_rss_kib;
  }

  std::unique_ptr<PgConn> admin_;
};

TEST_F(IcebergIndexMemoryTest, AnIncrementsPeakRssDoesNotGrowWithItsTable) {
  const long small = IncrementRssKib(50'000);
  const long large = IncrementRssKib(1'000'000);
  ASSERT_GT(small, 0);
  ASSERT_GT(large, 0);
  if (kRssIsMeaningful) {
    EXPECT_LT(large - small, 16 * 1024)
        << "increment peak RSS " << small / 1024 << " MiB at 50,000 rows, " << large / 1024
        << " MiB at 1,000,000 rows";
  }
}

}  // namespace
}  // namespace lakedump
