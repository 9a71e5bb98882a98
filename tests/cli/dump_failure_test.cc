// DumpFailureStatus: the line `lakedump dump` prints for a failed or interrupted
// run keeps the `lakedump gc` hint for uploads it could not abort.
#include "cli/dump_failure.h"

#include <gtest/gtest.h>

#include "store/memory/memory_store.h"

namespace lakedump::cli {
namespace {

TEST(DumpFailureStatusTest, InterruptedKeepsTheGcHintForUploadsNotAborted) {
  MemoryStore store;
  Status s = DumpFailureStatus(Status::Cancelled("cancelled"), true, store, "run1", 2,
                               "s3://b/p");
  EXPECT_EQ(s.code(), Code::kCancelled);
  EXPECT_EQ(s.message(),
            "interrupted: nothing was committed; 2 multipart uploads could not be aborted: run "
            "lakedump gc s3://b/p");
  s = DumpFailureStatus(Status::Cancelled("cancelled"), true, store, "run1", 0, "s3://b/p");
  EXPECT_EQ(s.message(), "interrupted: nothing was committed");
}

TEST(DumpFailureStatusTest, AFailureCarriesTheHintOnce) {
  MemoryStore store;
  Status s = DumpFailureStatus(Status::IOError("table x: boom"), false, store, "run1", 1,
                               "s3://b/p");
  EXPECT_EQ(s.message(),
            "table x: boom; 1 multipart upload could not be aborted: run lakedump gc s3://b/p");
  const Status named = Status::IOError(
      "table x: boom; AbortMultipartUpload also failed (down): run lakedump gc on the prefix");
  EXPECT_EQ(DumpFailureStatus(named, false, store, "run1", 1, "s3://b/p").message(),
            named.message());
  // Interrupted, with only the error's own hint: it is kept.
  EXPECT_EQ(DumpFailureStatus(named, true, store, "run1", 0, "s3://b/p").message(),
            "interrupted: nothing was committed; some uploads could not be aborted: run lakedump "
            "gc on the prefix");
}

}  // namespace
}  // namespace lakedump::cli
