#include "base/core_files.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>

namespace lakedump {
namespace {

// Runs `body` in a child process (the limit is the process's) and returns its exit code.
template <typename F>
int InChild(F body) {
  const pid_t pid = ::fork();
  if (pid == 0) ::_exit(body());
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 100;
}

TEST(CoreFilesTest, TheCoreLimitIsZeroSoftAndHard) {
  EXPECT_EQ(InChild([] {
              ::unsetenv("LAKEDUMP_ALLOW_CORE_FILES");
              if (!NoCoreFiles()) return 1;
              struct rlimit r {};
              ::getrlimit(RLIMIT_CORE, &r);
              return r.rlim_cur == 0 && r.rlim_max == 0 ? 0 : 2;
            }),
            0);
}

TEST(CoreFilesTest, TheEnvironmentMayKeepThemForDebugging) {
  EXPECT_EQ(InChild([] {
              struct rlimit before {};
              ::getrlimit(RLIMIT_CORE, &before);
              ::setenv("LAKEDUMP_ALLOW_CORE_FILES", "1", 1);
              if (NoCoreFiles()) return 1;
              struct rlimit after {};
              ::getrlimit(RLIMIT_CORE, &after);
              return after.rlim_cur == before.rlim_cur ? 0 : 2;
            }),
            0);
}

}  // namespace
}  // namespace lakedump
