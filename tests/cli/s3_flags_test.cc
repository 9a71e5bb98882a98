#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>

#include "cli/cli_util.h"

namespace lakedump::cli {
namespace {

using ::testing::HasSubstr;

TEST(S3FlagsTest, DefaultsFitSlowLinks) {
  S3Flags flags;
  S3Options o;
  ASSERT_TRUE(ApplyS3Flags(flags, &o).ok());
  EXPECT_EQ(o.min_rate, 1024u);
  EXPECT_EQ(o.min_rate_window, std::chrono::seconds(30));
  EXPECT_EQ(o.connect_timeout, std::chrono::seconds(10));
  EXPECT_EQ(o.retry_budget, std::chrono::seconds(60));
  EXPECT_EQ(o.max_attempts, 20);
  EXPECT_FALSE(o.content_md5);
  EXPECT_FALSE(o.checksum_crc32c);
}

TEST(S3FlagsTest, ParsesRatesDurationsAndChecksums) {
  S3Flags flags;
  flags.min_rate = "16KiB/s";
  flags.min_rate_window = "1m";
  flags.connect_timeout = "2500ms";
  flags.retry_budget = "5m";
  flags.max_attempts = 3;
  flags.content_md5 = true;
  flags.checksum = "crc32c";
  S3Options o;
  ASSERT_TRUE(ApplyS3Flags(flags, &o).ok());
  EXPECT_EQ(o.min_rate, 16u << 10);
  EXPECT_EQ(o.min_rate_window, std::chrono::seconds(60));
  EXPECT_EQ(o.connect_timeout, std::chrono::milliseconds(2500));
  EXPECT_EQ(o.retry_budget, std::chrono::minutes(5));
  EXPECT_EQ(o.max_attempts, 3);
  EXPECT_TRUE(o.content_md5);
  EXPECT_TRUE(o.checksum_crc32c);
  flags.min_rate = "0";  // never abandon a slow transfer
  ASSERT_TRUE(ApplyS3Flags(flags, &o).ok());
  EXPECT_EQ(o.min_rate, 0u);
}

TEST(S3FlagsTest, BadValuesNameTheOption) {
  struct Case {
    void (*set)(S3Flags*);
    const char* option;
  };
  const Case cases[] = {
      {[](S3Flags* f) { f->min_rate = "fast"; }, "--s3-min-rate"},
      {[](S3Flags* f) { f->min_rate = "2GiB/s"; }, "--s3-min-rate"},
      {[](S3Flags* f) { f->min_rate_window = "0s"; }, "--s3-min-rate-window"},
      {[](S3Flags* f) { f->min_rate_window = "500ms"; }, "--s3-min-rate-window"},
      {[](S3Flags* f) { f->connect_timeout = "-1s"; }, "--s3-connect-timeout"},
      {[](S3Flags* f) { f->retry_budget = "forever"; }, "--s3-retry-budget"},
      {[](S3Flags* f) { f->retry_budget = "2d"; }, "--s3-retry-budget"},
      {[](S3Flags* f) { f->max_attempts = 0; }, "--s3-max-attempts"},
      {[](S3Flags* f) { f->max_attempts = -3; }, "--s3-max-attempts"},
  };
  for (const Case& c : cases) {
    S3Flags flags;
    c.set(&flags);
    S3Options o;
    Status s = ApplyS3Flags(flags, &o);
    EXPECT_EQ(s.code(), Code::kInvalidArgument) << c.option;
    EXPECT_THAT(s.message(), HasSubstr(c.option));
  }
}

}  // namespace
}  // namespace lakedump::cli
