#include "dump/batch_pump.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "fakes/fake_database.h"

namespace lakedump {
namespace {

std::unique_ptr<TableSource> OpenFake(FakeDatabase* db, FakeTable t) {
  db->AddTable(t);
  WorkUnit unit;
  unit.table.ref = t.ref;
  auto source = db->Open(unit);
  EXPECT_TRUE(source.ok()) << source.status().ToString();
  return std::move(*source);
}

TEST(BatchPumpTest, DeliversEveryRowInOrderOnTheCallingThread) {
  FakeDatabase db;
  auto source = OpenFake(&db, FakeTable{{"main", "t"}, 100'003});
  const auto caller = std::this_thread::get_id();
  int64_t next = 0;
  size_t batches = 0;
  Status s = PumpBatches(*source, 1000, 3, {}, [&](const RowBatch& b) {
    EXPECT_EQ(std::this_thread::get_id(), caller);
    for (size_t i = 0; i < b.num_rows(); ++i) {
      EXPECT_EQ(b.column(0).ValueAt<int64_t>(i), next);
      ++next;
    }
    ++batches;
    return Status::OK();
  });
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(next, 100'003);
  EXPECT_EQ(batches, 101u);
}

TEST(BatchPumpTest, ConsumerErrorStopsTheReaderAndIsReturned) {
  FakeDatabase db;
  auto source = OpenFake(&db, FakeTable{{"main", "t"}, 1'000'000});
  int calls = 0;
  Status s = PumpBatches(*source, 100, 2, {}, [&](const RowBatch&) {
    return ++calls == 5 ? Status::IOError("disk on fire") : Status::OK();
  });
  EXPECT_EQ(s.code(), Code::kIOError);
  EXPECT_EQ(s.message(), "disk on fire");
  EXPECT_EQ(calls, 5);
}

TEST(BatchPumpTest, SourceErrorIsReturnedAfterTheBatchesBeforeIt) {
  FakeDatabase db;
  FakeTable t{{"main", "t"}, 100'000};
  t.fail_at_row = 25'000;
  auto source = OpenFake(&db, t);
  uint64_t rows = 0;
  Status s = PumpBatches(*source, 1000, 3, {}, [&](const RowBatch& b) {
    rows += b.num_rows();
    return Status::OK();
  });
  EXPECT_EQ(s.code(), Code::kIOError);
  EXPECT_NE(s.message().find("row 25000"), std::string::npos) << s.ToString();
  EXPECT_EQ(rows, 25'000u);
}

TEST(BatchPumpTest, StopRequestCancels) {
  FakeDatabase db;
  auto source = OpenFake(&db, FakeTable{{"main", "t"}, 1'000'000});
  std::stop_source stop;
  int calls = 0;
  Status s = PumpBatches(*source, 100, 3, stop.get_token(), [&](const RowBatch&) {
    if (++calls == 3) stop.request_stop();
    return Status::OK();
  });
  EXPECT_EQ(s.code(), Code::kCancelled);
  EXPECT_LE(calls, 3);
}

TEST(BatchPumpTest, EmptySourceCallsNothing) {
  FakeDatabase db;
  auto source = OpenFake(&db, FakeTable{{"main", "t"}, 0});
  int calls = 0;
  Status s = PumpBatches(*source, 100, 2, {}, [&](const RowBatch&) {
    ++calls;
    return Status::OK();
  });
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(calls, 0);
}

}  // namespace
}  // namespace lakedump
