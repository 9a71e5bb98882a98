// Runs the lakedump binary (LAKEDUMP_BINARY) as a child and measures its peak resident set size
// from wait4()'s rusage: the memory bounds' tests (s3_memory_test, iceberg_index_memory_test).
// Header-only; for tests.
#pragma once

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "fakes/temp_dir.h"

namespace lakedump::testing_cli {

struct ChildRun {
  int code = -1;
  long max_rss_kib = 0;
};

// Runs LAKEDUMP_BINARY with `args` (stdout/stderr to mem-stdout.txt / mem-stderr.txt in `dir`)
// and returns its exit code and peak resident set size.
inline ChildRun RunMeasured(const std::vector<std::string>& args, const TempDir& dir) {
  const std::string out = dir.Sub("mem-stdout.txt"), err = dir.Sub("mem-stderr.txt");
  std::fflush(nullptr);  // or the child's freopen would flush our buffered output again
  pid_t pid = fork();
  if (pid == 0) {
    if (!freopen(out.c_str(), "w", stdout) || !freopen(err.c_str(), "w", stderr)) _exit(126);
    std::vector<char*> argv;
    std::string binary = LAKEDUMP_BINARY;
    argv.push_back(binary.data());
    std::vector<std::string> copy = args;
    for (std::string& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(binary.c_str(), argv.data());
    _exit(127);
  }
  ChildRun r;
  int status = 0;
  rusage usage{};
  if (pid < 0 || wait4(pid, &status, 0, &usage) != pid) return r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.max_rss_kib = usage.ru_maxrss;  // KiB on Linux
  return r;
}

// Sanitizer builds keep freed memory in quarantine and map shadow memory: their RSS says
// nothing about our buffers, so there the commands still run but bounds are not checked.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool kRssIsMeaningful = false;
#else
inline constexpr bool kRssIsMeaningful = true;
#endif

}  // namespace lakedump::testing_cli
