// Options shared by the S3 client tests: a client on bucket "bkt" with test
// credentials, and retries fast enough for unit tests: their backoff sleeps on a fake clock
// that moves to each sleep's end at once (no test waits on the wall clock for a retry).
// Header-only; for tests.
#pragma once

#include <string>
#include <utility>

#include "fakes/fake_clock.h"
#include "store/s3/retry.h"
#include "store/s3/s3_client.h"

namespace lakedump {

inline S3ClientOptions TestClientOptions(std::string endpoint = "http://fake:7480") {
  S3ClientOptions o;
  o.bucket = "bkt";
  o.config.credentials = {"AKIDTEST", "supersecretkey", "",
                          "profile ci in /home/x/.aws/credentials"};
  o.config.region = "us-east-1";
  o.config.endpoint = std::move(endpoint);
  return o;
}

// The clock of FastRetries(): shared by the tests of a binary, it only moves forward.
inline FakeClock& RetryClock() {
  static FakeClock* const clock = new FakeClock(FakeClock::kAutoAdvance);
  return *clock;
}

inline RetryOptions FastRetries() {
  RetryOptions r;
  r.clock = &RetryClock();
  r.base_delay = std::chrono::milliseconds(1);
  r.max_delay = std::chrono::milliseconds(2);
  r.throttle_step = std::chrono::milliseconds(1);
  r.max_throttle = std::chrono::milliseconds(4);
  return r;
}

}  // namespace lakedump
