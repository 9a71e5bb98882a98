// The parallel writer (row groups in flight, and each row group's columns
// encoded by several lanes) must write exactly the serial writer's bytes, stop
// on bad input exactly as it does, and never touch a job after giving it up.
#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "base/thread_pool.h"
#include "format/parquet/parquet_footer.h"
#include "format/parquet/parquet_writer.h"
#include "test_data.h"

namespace lakedump {
namespace {

using testing::NullPattern;

std::string Write(const Schema& schema, const ParquetWriterOptions& options, size_t rows,
                  size_t batch_rows, NullPattern nulls) {
  StringSink sink;
  ParquetWriter w(schema, options, &sink);
  RowBatch batch(schema);
  for (size_t at = 0; at < rows; at += batch_rows) {
    batch.Clear();
    testing::FillRows(schema, nulls, at, std::min(batch_rows, rows - at), 7, &batch);
    Status s = w.Write(batch);
    EXPECT_TRUE(s.ok()) << s.ToString();
  }
  Status s = w.Close();
  EXPECT_TRUE(s.ok()) << s.ToString();
  return sink.str();
}

// Blocks the pool's threads until Release(), so lanes stay queued. The
// destructor releases them and waits until they let go of the blocker.
class PoolBlocker {
 public:
  PoolBlocker(ThreadPool* pool, size_t threads) : threads_(threads) {
    for (size_t i = 0; i < threads; ++i) {
      pool->Submit([this] {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [this] { return released_; });
        ++exited_;
        cv_.notify_all();
      });
    }
  }
  ~PoolBlocker() {
    Release();
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return exited_ == threads_; });
  }
  void Release() {
    std::lock_guard<std::mutex> lock(mu_);
    released_ = true;
    cv_.notify_all();
  }

 private:
  const size_t threads_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool released_ = false;
  size_t exited_ = 0;
};

TEST(ParquetWriterParallelTest, ColumnLanesWriteTheSerialBytes) {
  const size_t rows = 3001;
  for (CodecKind codec : {CodecKind::kNone, CodecKind::kSnappy, CodecKind::kZstd,
                          CodecKind::kGzip, CodecKind::kLz4Raw}) {
    for (NullPattern nulls : {NullPattern::kSome, NullPattern::kNone}) {
      const Schema schema = testing::AllTypesSchema(nulls);
      // 1, 3 and 7 row groups; the 3-group case ends with a short one (1001, 1001, 999).
      for (uint64_t group_rows : {uint64_t{4000}, uint64_t{1001}, uint64_t{450}}) {
        ParquetWriterOptions o;
        o.codec = codec;
        o.row_group_rows = group_rows;
        // Batches of 2100 rows: while no row group is in flight, the writer
        // checks and copies them column by column on the pool too.
        const std::string serial = Write(schema, o, rows, 2100, nulls);
        auto footer = parquet::ReadParquetFooter(serial);
        ASSERT_TRUE(footer.ok()) << footer.status().ToString();
        const size_t groups = (rows + group_rows - 1) / group_rows;
        ASSERT_EQ(footer->row_groups.size(), groups);
        // Pools as large as the writer's threads, and smaller (the producer
        // then encodes the lanes no pool thread took).
        for (auto [threads, pool_threads] : {std::pair{2, 2}, std::pair{4, 4}, std::pair{4, 1}}) {
          ThreadPool pool(static_cast<size_t>(pool_threads));
          ParquetWriterOptions p = o;
          p.threads = threads;
          p.pool = &pool;
          const std::string parallel = Write(schema, p, rows, 2100, nulls);
          EXPECT_TRUE(parallel == serial)
              << fmt::format("codec {} nulls {} row groups {} threads {} pool {}: {} vs {} bytes",
                             CodecName(codec), static_cast<int>(nulls), groups, threads,
                             pool_threads, parallel.size(), serial.size());
        }
      }
    }
  }
}

// Heavy string columns among cheap ones, a dictionary that overflows its limit
// (PLAIN fallback mid-chunk), all-null columns, small pages: the same bytes.
TEST(ParquetWriterParallelTest, FallbackAndAllNullColumnsWriteTheSerialBytes) {
  const Schema schema = testing::AllTypesSchema(NullPattern::kAll);
  const Schema some = testing::AllTypesSchema(NullPattern::kSome);
  for (const Schema* s : {&schema, &some}) {
    const NullPattern nulls = s == &schema ? NullPattern::kAll : NullPattern::kSome;
    ParquetWriterOptions o;
    o.codec = CodecKind::kZstd;
    o.row_group_rows = 2000;
    o.page_bytes = 4096;
    o.dictionary_limit_bytes = 2048;
    const std::string serial = Write(*s, o, 5000, 1234, nulls);
    ThreadPool pool(2);
    o.threads = 2;
    o.pool = &pool;
    EXPECT_TRUE(Write(*s, o, 5000, 1234, nulls) == serial);
  }
}

// Bad input while row groups are being encoded on the pool: the same error
// (column and row named), nothing more written, and the writer stays failed.
TEST(ParquetWriterParallelTest, BadInputWithRowGroupsInFlightStopsTheFile) {
  const Schema schema({Column{"id", LogicalType::Of(TypeId::kInt64), false, ""},
                       Column{"name", LogicalType::Of(TypeId::kString), true, ""}});
  ThreadPool pool(2);
  PoolBlocker blocker(&pool, 2);  // the last row group handed over stays queued
  ParquetWriterOptions o;
  o.row_group_rows = 100;
  o.threads = 2;
  o.pool = &pool;
  StringSink sink;
  ParquetWriter w(schema, o, &sink);
  RowBatch good(schema);
  for (int64_t i = 0; i < 250; ++i) {
    good.column(0).Append<int64_t>(i);
    good.column(1).AppendBytes("ok");
  }
  ASSERT_TRUE(w.Write(good).ok());
  RowBatch bad(schema);
  bad.column(0).Append<int64_t>(250);
  bad.column(1).AppendBytes("ok");
  bad.column(0).Append<int64_t>(251);
  bad.column(1).AppendBytes("bad \xC3(");
  Status s = w.Write(bad);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("column \"name\", row 251: invalid UTF-8"), std::string::npos)
      << s.message();
  const size_t before = sink.str().size();
  EXPECT_FALSE(w.Write(good).ok());
  EXPECT_FALSE(w.Close().ok());
  EXPECT_EQ(sink.str().size(), before);
  blocker.Release();
}

// Batches big enough to be checked column by column on the pool: the error
// is still the first bad column's in column order, as the serial writer's.
TEST(ParquetWriterParallelTest, BadInputCheckedOnThePoolNamesTheFirstBadColumn) {
  const Schema schema({Column{"id", LogicalType::Of(TypeId::kInt64), false, ""},
                       Column{"price", LogicalType::Decimal(5, 2), true, ""},
                       Column{"name", LogicalType::Of(TypeId::kString), true, ""}});
  ThreadPool pool(2);
  for (int threads : {1, 2}) {
    ParquetWriterOptions o;
    o.threads = threads;
    o.pool = &pool;
    StringSink sink;
    ParquetWriter w(schema, o, &sink);
    RowBatch good(schema), bad(schema);
    for (int64_t i = 0; i < 5000; ++i) {
      good.column(0).Append<int64_t>(i);
      good.column(1).Append<int128_t>(i);
      good.column(2).AppendBytes("ok");
      bad.column(0).Append<int64_t>(5000 + i);
      bad.column(1).Append<int128_t>(i == 4000 ? 100000 : i);  // row 9000: 1000.00 > 999.99
      bad.column(2).AppendBytes(i == 10 ? "bad \xC3(" : "ok");  // row 5010
    }
    ASSERT_TRUE(w.Write(good).ok());
    Status s = w.Write(bad);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find("column \"price\", row 9000: decimal value 1000.00"),
              std::string::npos)
        << threads << ": " << s.message();
    EXPECT_FALSE(w.Close().ok());
    EXPECT_TRUE(sink.str().empty()) << "no row group was complete";
  }
}

// A writer given up with lanes still queued returns its jobs to the shared
// pool; the next writer reuses them while the stale pool tasks run. Those must
// not touch the recycled jobs (TSan/ASan watch this test).
TEST(ParquetWriterParallelTest, AbandonedLanesDoNotTouchRecycledJobs) {
  const Schema schema = testing::AllTypesSchema(NullPattern::kSome);
  ParquetWriterOptions o;
  o.row_group_rows = 300;
  o.codec = CodecKind::kSnappy;
  const std::string expected = Write(schema, o, 2000, 400, NullPattern::kSome);
  ThreadPool pool(2);
  for (int round = 0; round < 3; ++round) {
    {
      PoolBlocker blocker(&pool, 2);
      ParquetWriterOptions p = o;
      p.threads = 3;
      p.pool = &pool;
      StringSink sink;
      ParquetWriter w(schema, p, &sink);
      RowBatch b(schema);
      testing::FillRows(schema, NullPattern::kSome, 0, 1000, 7, &b);
      ASSERT_TRUE(w.Write(b).ok());  // the 3rd row group in flight, its lanes queued
    }  // abandoned; blocker released after the writer is gone
    ParquetWriterOptions p = o;
    p.threads = 2;
    p.pool = &pool;
    EXPECT_TRUE(Write(schema, p, 2000, 400, NullPattern::kSome) == expected) << round;
  }
}

}  // namespace
}  // namespace lakedump
