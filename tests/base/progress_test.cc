#include "base/progress.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "fakes/fake_clock.h"

namespace lakedump {
namespace {

std::string Contents(std::FILE* f) {
  std::fflush(f);
  std::rewind(f);
  std::string out;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof(buf), f)) > 0;) out.append(buf, n);
  return out;
}

// Plain lines come every 5 s of the reporter's clock, with the elapsed time and the rate.
TEST(ProgressReporterTest, PrintsAPlainLineEveryIntervalOfItsClock) {
  FakeClock clock;
  DumpProgress progress;
  progress.tables_total = 4;
  std::FILE* out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  {
    ProgressReporter reporter(&progress, ProgressMode::kPlain, out, &clock);
    reporter.Start();
    clock.AdvanceRound(std::chrono::milliseconds(4999), 1);
    EXPECT_EQ(Contents(out), "");  // not yet
    progress.tables_done = 1;
    progress.rows = 1000;
    progress.bytes = 10'000'000;
    clock.AdvanceRound(std::chrono::milliseconds(1), 1);
    progress.tables_done = 3;
    clock.AdvanceRound(std::chrono::seconds(5), 1);
    reporter.Stop();
  }
  const std::string text = Contents(out);
  std::fclose(out);
  // Two lines: at 5 s and at 10 s of fake time, none at Stop() (plain mode).
  const size_t first_end = text.find('\n');
  ASSERT_NE(first_end, std::string::npos) << text;
  const std::string first = text.substr(0, first_end + 1);
  const std::string second = text.substr(first_end + 1);
  EXPECT_EQ(first.rfind("lakedump: tables 1/4  rows 1.0 k  ", 0), 0u) << text;
  EXPECT_NE(first.find("  2.0 MB/s  elapsed 5.0s  eta ?\n"), std::string::npos) << text;
  EXPECT_EQ(second.rfind("lakedump: tables 3/4  rows 1.0 k  ", 0), 0u) << text;
  EXPECT_NE(second.find("  1.0 MB/s  elapsed 10.0s  eta ?\n"), std::string::npos) << text;
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 2) << text;
}

TEST(ProgressReporterTest, StopEndsTheWaitAtOnce) {
  FakeClock clock;
  DumpProgress progress;
  std::FILE* out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  ProgressReporter reporter(&progress, ProgressMode::kPlain, out, &clock);
  reporter.Start();
  clock.WaitForSleepers(1);
  reporter.Stop();  // returns although the fake time never moves
  EXPECT_EQ(clock.sleepers(), 0u);
  EXPECT_EQ(Contents(out), "");
  std::fclose(out);
}

}  // namespace
}  // namespace lakedump
