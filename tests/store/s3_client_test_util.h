// Options shared by the S3 client tests: a client on bucket "bkt" with test
// credentials, and retries fast enough for unit tests. Header-only; for tests.
#pragma once

#include <string>
#include <utility>

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

inline RetryOptions FastRetries() {
  RetryOptions r;
  r.base_delay = std::chrono::milliseconds(1);
  r.max_delay = std::chrono::milliseconds(2);
  r.throttle_step = std::chrono::milliseconds(1);
  r.max_throttle = std::chrono::milliseconds(4);
  return r;
}

}  // namespace lakedump
