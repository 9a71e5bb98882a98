// Small helpers shared by the benchmark executables: `--key=value` flags and the
// process's CPU clock. Header-only; stateless and thread-safe.
#pragma once

#include <time.h>

#include <map>
#include <string>

namespace lakedump::bench {

// `--key=value` -> {key: value}; a bare `--flag` maps to "1"; other arguments are ignored.
inline std::map<std::string, std::string> ParseArgs(int argc, char** argv) {
  std::map<std::string, std::string> out;
  for (int i = 1; i < argc; ++i) {
    const std::string s = argv[i];
    if (s.rfind("--", 0) != 0) continue;
    const size_t eq = s.find('=');
    out[s.substr(2, eq == std::string::npos ? std::string::npos : eq - 2)] =
        eq == std::string::npos ? "1" : s.substr(eq + 1);
  }
  return out;
}

// CPU time of the whole process (every thread, user + system), in seconds.
inline double ProcessCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

}  // namespace lakedump::bench
