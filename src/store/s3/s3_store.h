// The S3 ObjectStore: s3://bucket/prefix on any S3-compatible endpoint (AWS,
// Ceph radosgw, MinIO), our own client on libcurl + OpenSSL. Thread-safe.
// Writers and readers it returns borrow the store: destroy them first.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "store/object_store.h"
#include "store/store_options.h"

namespace lakedump {

class HttpTransport;

Result<std::unique_ptr<ObjectStore>> OpenS3Store(std::string_view url, const StoreOptions& options);

// Same, over a given transport (tests use FakeHttpTransport).
Result<std::unique_ptr<ObjectStore>> OpenS3StoreWithTransport(
    std::string_view url, const StoreOptions& options, std::unique_ptr<HttpTransport> transport);

// "s3://bucket/some/prefix" -> bucket "bucket", prefix "some/prefix/" ("" for none).
struct S3Url {
  std::string bucket;
  std::string prefix;
};
Result<S3Url> ParseS3Url(std::string_view url);

// One multipart upload under a URL's prefix: its key relative to the prefix, its id, and when
// it was initiated.
struct IncompleteUpload {
  std::string key;
  std::string upload_id;
  std::chrono::system_clock::time_point initiated;
};
// gc (by the run journal): every multipart upload under the URL's prefix.
Result<std::vector<IncompleteUpload>> ListUploadsUnder(std::string_view url,
                                                       const StoreOptions& options);
// Aborts these uploads (keys relative to the URL's prefix); one already gone is no error.
Status AbortUploadsUnder(std::string_view url, const StoreOptions& options,
                         const std::vector<IncompleteUpload>& uploads);

}  // namespace lakedump
