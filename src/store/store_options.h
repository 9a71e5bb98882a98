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
  std::chrono::milliseconds connect_timeout{10000};
  std::chrono::milliseconds request_timeout{300000};
  // A transfer that moves no byte for this long is abandoned and retried.
  std::chrono::milliseconds stall_timeout{60000};
  int max_attempts = 8;           // per request, first try included
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
