// Test helpers for Parquet writer tests: write batches to memory, temp dirs,
// file output, and locating the interop oracle (tests/interop).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "base/status.h"
#include "format/parquet/parquet_writer.h"

namespace lakedump::testing {

inline std::string MakeTempDir(const std::string& prefix) {
  std::string tmpl = (std::filesystem::temp_directory_path() / (prefix + "XXXXXX")).string();
  char* d = mkdtemp(tmpl.data());
  return d == nullptr ? std::string() : std::string(d);
}

inline void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// tests/interop with its node_modules, or "" when not installed.
inline std::string InteropDir() {
  const char* env = std::getenv("LD_INTEROP_DIR");
  std::filesystem::path dir = env != nullptr && *env != '\0'
                                  ? std::filesystem::path(env)
                                  : std::filesystem::path(LAKEDUMP_SOURCE_DIR) / "tests" / "interop";
  if (!std::filesystem::exists(dir / "node_modules") || !std::filesystem::exists(dir / "check.mjs")) {
    return "";
  }
  return dir.string();
}

// Runs a shell command, returning its exit status and combined output.
inline int RunCommand(const std::string& cmd, std::string* output) {
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (p == nullptr) return -1;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) output->append(buf, n);
  int rc = pclose(p);
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

}  // namespace lakedump::testing
