// The S3 endpoint that scripts/test starts (radosgw), for integration tests:
// LD_TEST_S3_{ENDPOINT,ACCESS_KEY,SECRET_KEY,REGION,BUCKET}, credentials exported
// the way a user gives them to lakedump and awscli (AWS_* in the environment),
// and awscli (/usr/bin/aws) as the independent client. Header-only; for tests.
#pragma once

#include <sys/wait.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <random>
#include <string>

#include "fakes/cli_run.h"
#include "fakes/temp_dir.h"

namespace lakedump::testing_s3 {

inline std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

struct TestS3 {
  std::string endpoint;
  std::string bucket;
  std::string secret;  // to check that it appears nowhere

  // awscli against the endpoint: its output (stdout and stderr); `rc` gets the exit code.
  std::string Aws(const std::string& args, const TempDir& tmp, int* rc = nullptr) const {
    const std::string out = tmp.Sub("aws.txt");
    const int status = std::system(
        ("/usr/bin/aws --endpoint-url " + endpoint + " " + args + " >" + out + " 2>&1").c_str());
    if (rc) *rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return testing_cli::ReadFile(out);
  }
};

// n pseudo-random bytes (incompressible test data), the same for the same seed.
inline std::string RandomBytes(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::string s(n, '\0');
  for (size_t i = 0; i < n; i += 8) {
    uint64_t v = rng();
    std::memcpy(s.data() + i, &v, std::min<size_t>(8, n - i));
  }
  return s;
}

// The test endpoint with its credentials exported to AWS_*, or nullopt when
// LD_TEST_S3_ENDPOINT is unset (the caller skips).
inline std::optional<TestS3> UseTestS3() {
  TestS3 s3{Env("LD_TEST_S3_ENDPOINT"), Env("LD_TEST_S3_BUCKET"), Env("LD_TEST_S3_SECRET_KEY")};
  if (s3.endpoint.empty()) return std::nullopt;
  setenv("AWS_ACCESS_KEY_ID", Env("LD_TEST_S3_ACCESS_KEY").c_str(), 1);
  setenv("AWS_SECRET_ACCESS_KEY", s3.secret.c_str(), 1);
  setenv("AWS_REGION", Env("LD_TEST_S3_REGION").c_str(), 1);
  setenv("AWS_DEFAULT_REGION", Env("LD_TEST_S3_REGION").c_str(), 1);
  setenv("AWS_PAGER", "", 1);
  return s3;
}

}  // namespace lakedump::testing_s3
