// The memory bound of issue 4 against a real S3 endpoint (skipped unless
// LD_TEST_S3_* are set): while `lakedump dump` uploads, its peak RSS stays
// under 74 MiB (64 of base, 10 of read-ahead batches) + (P + 1) x part size for
// the one object in flight, at upload parallelism 0, 4 and 16. The peak comes
// from wait4()'s rusage of the child. Data is small (about 16 MB of Parquet, four 5 MiB parts) so it suits memstore.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "fakes/cli_run.h"
#include "fakes/measured_run.h"
#include "fakes/temp_dir.h"
#include "integration/s3_test_env.h"

namespace lakedump {
namespace {

using testing_cli::RunLakedump;
using testing_cli::RunResult;

using testing_s3::Env;

using testing_cli::ChildRun;
using testing_cli::kRssIsMeaningful;
using testing_cli::RunMeasured;

class S3MemoryTest : public testing_cli::DemoDatabaseSuite<S3MemoryTest> {
 public:
  // 450,000 fact rows: a data file of about 16 MB, four 5 MiB parts.
  static constexpr const char* kDemoArgs = "--rows 450000 --seed 5";
  static bool SkipDemo() { return Env("LD_TEST_S3_ENDPOINT").empty(); }

 protected:
  void SetUp() override {
    auto s3 = testing_s3::UseTestS3();
    if (!s3) GTEST_SKIP() << "LD_TEST_S3_* not set";
    s3_ = *s3;
  }

  testing_s3::TestS3 s3_;
};


TEST_F(S3MemoryTest, PeakRssStaysUnderBaseplusPartsInFlight) {
  constexpr long kPartMiB = 5;
  const std::string& bucket = s3_.bucket;
  const std::string prefix = "mem-" + std::to_string(::getpid());
  for (int p : {0, 4, 16}) {
    SCOPED_TRACE("upload parallelism " + std::to_string(p));
    const std::string url = "s3://" + bucket + "/" + prefix + "/p" + std::to_string(p);
    ChildRun r = RunMeasured({"dump", db_, url, "--tables", "store_orders_fact", "--endpoint",
                              s3_.endpoint, "--upload-parallelism", std::to_string(p), "--part-size",
                              std::to_string(kPartMiB) + "MiB", "-j", "1", "--progress", "none"},
                             *tmp_);
    ASSERT_EQ(r.code, 0) << testing_cli::ReadFile(tmp_->Sub("mem-stderr.txt"));
    // 64 MiB of base (code, the encoder's row groups, 3 read-ahead batches) and the 5 more
    // read-ahead batches of the default 8 (16,384 rows of this table: about 2 MiB each).
    const long limit_kib = (74 + (p + 1) * kPartMiB) * 1024;
    if (kRssIsMeaningful) {
      EXPECT_LT(r.max_rss_kib, limit_kib) << "peak RSS " << r.max_rss_kib / 1024 << " MiB";
    }
    std::printf("P=%d part %ld MiB: peak RSS %.1f MiB (bound %ld MiB)\n", p, kPartMiB,
                static_cast<double>(r.max_rss_kib) / 1024, limit_kib / 1024);
  }
  // Keep memstore small: remove what the dumps wrote.
  int rc = -1;
  const std::string out = s3_.Aws("s3 rm --quiet --recursive s3://" + bucket + "/" + prefix + "/",
                                  *tmp_, &rc);
  EXPECT_EQ(rc, 0) << out;
}

}  // namespace
}  // namespace lakedump
