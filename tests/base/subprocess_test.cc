#include "base/subprocess.h"

#include <gtest/gtest.h>

#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <sstream>
#include <string>

#include "base/byte_sink.h"

namespace lakedump {
namespace {

// The niceness of a child as /proc/<pid>/stat shows it (field 19), read by the child itself
// after a pause (setpriority follows the spawn).
int ChildNiceness(int nice) {
  SubprocessSpec spec;
  spec.argv = {"/bin/sh", "-c", "sleep 0.2; exec cat /proc/self/stat"};
  spec.nice = nice;
  StringSink out;
  auto run = RunSubprocess(spec, &out);
  EXPECT_TRUE(run.ok()) << run.status().ToString();
  if (!run.ok()) return -100;
  EXPECT_EQ(run->exit_code, 0) << run->stderr_tail;
  const std::string& stat = out.str();
  std::istringstream fields(stat.substr(stat.rfind(')') + 2));  // after "pid (comm) "
  std::string field;
  for (int i = 3; i <= 19 && fields >> field; ++i) {
  }
  return std::stoi(field);
}

TEST(SubprocessTest, NiceIsAddedToTheCallersNiceness) {
  errno = 0;
  const int ours = ::getpriority(PRIO_PROCESS, 0);
  ASSERT_EQ(errno, 0);
  EXPECT_EQ(ChildNiceness(0), ours);
  EXPECT_EQ(ChildNiceness(5), std::min(19, ours + 5));
  EXPECT_EQ(ChildNiceness(40), 19);  // capped like nice(1)
}

TEST(SubprocessTest, EnvironmentGoesToTheChildOnly) {
  SubprocessSpec spec;
  spec.argv = {"/bin/sh", "-c", "printf %s \"$LD_SUBPROCESS_TEST\""};
  spec.env = {{"LD_SUBPROCESS_TEST", "secret value"}};
  StringSink out;
  auto run = RunSubprocess(spec, &out);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  EXPECT_EQ(out.str(), "secret value");
  EXPECT_EQ(std::getenv("LD_SUBPROCESS_TEST"), nullptr);
}

}  // namespace
}  // namespace lakedump
