// Options for opening a store. Values; thread-safe to read. Credentials held
// here never go to logs, errors or metadata.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <stop_token>
#include <string>

namespace lakedump {

class MemoryBudget;

struct S3Options {
  std::string endpoint;           // --endpoint / AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL
  std::string region;             // --region / AWS_REGION / profile
  std::string profile;            // --profile / AWS_PROFILE
  std::string access_key_id;      // flags, else environment, else profile
  std::string secret_access_key;
  std::string session_token;
  std::string ca_bundle;          // --ca-bundle / AWS_CA_BUNDLE
  bool virtual_host_style = false;  // deprecated spelling of addressing = "virtual"
  // --s3-addressing / s3.addressing_style in the AWS config: "" or "auto" (path style
  // for custom endpoints, virtual-host for AWS), "path", or "virtual" (bucket.host).
  std::string addressing;
  uint64_t part_size = 0;         // 0 = default
  int upload_parallelism = 4;     // parts of one object in flight; 0 = inline
  int max_connections = 16;       // whole dump
  bool equal_parts = false;
  // Timeouts and retries (docs/s3.md): no wall-clock cap per request; a
  // transfer slower than min_rate bytes/s over min_rate_window is abandoned and
  // retried; a failed request is retried with backoff while its time spent
  // failing is under retry_budget and its attempts under max_attempts.
  std::chrono::milliseconds connect_timeout{10000};  // --s3-connect-timeout
  uint64_t min_rate = 1024;                          // --s3-min-rate RATE[/WINDOW]
  std::chrono::seconds min_rate_window{30};
  std::chrono::milliseconds retry_budget{60000};     // --s3-retry-budget
  int max_attempts = 20;                             // --s3-max-attempts, first try included
  // Payload checksums besides SigV4's (docs/s3.md): --s3-content-md5, --s3-checksum crc32c.
  bool content_md5 = false;
  bool checksum_crc32c = false;
};

struct StoreOptions {
  S3Options s3;
  // Caps bytes buffered in flight across every writer of the store; may be null.
  MemoryBudget* budget = nullptr;
  // Cancels the store's work in flight (SIGINT): writers abort their uploads.
  std::stop_token stop;
  // Local folders: Close() renames without fsync and SyncWritten() makes the
  // files durable in one batch (see LocalStore).
  bool local_deferred_sync = false;
};

}  // namespace lakedump
