// S3Client: the S3 operations lakedump needs, on one bucket, over an
// HttpTransport: signing (SigV4), retries (RetryPolicy), a cap on concurrent
// requests (max_connections) and the one mapping from HTTP/S3 errors to Status.
// Thread-safe. Borrows the transport and the retry policy (owned by the store).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "store/object_store.h"
#include "store/s3/credentials.h"
#include "store/s3/credentials/credential_provider.h"
#include "store/s3/http_transport.h"
#include "store/s3/retry.h"
#include "store/s3/s3_xml.h"

namespace lakedump {

struct S3ClientOptions {
  std::string bucket;
  // config.addressing: auto, path or virtual. Requests sign with config.credential_cache's
  // Current() credentials (null: config.credentials, static).
  S3Config config;
  bool virtual_host_style = false;  // forces virtual-host style (as addressing = virtual)
  int max_connections = 16;
  // Payload checksums beyond SigV4 (docs/s3.md): Content-MD5 on PutObject and
  // UploadPart (--s3-content-md5; object-lock buckets demand it), and/or the
  // flexible checksum CRC32C (--s3-checksum crc32c).
  bool content_md5 = false;
  bool checksum_crc32c = false;
  // SIGINT/SIGTERM, for the requests that are not cancelled (HttpRequest::hurry): they get one
  // attempt, ended within kHurryGrace. Empty: none.
  std::stop_token hurry;
  // For tests: the signing clock. Default: system_clock::now.
  std::function<std::chrono::system_clock::time_point()> clock;
};

struct ObjectHead {
  uint64_t size = 0;
  std::string etag;
  // From Last-Modified (1 s resolution); nullopt when absent or malformed.
  std::optional<std::chrono::system_clock::time_point> last_modified;
};

class S3Client {
 public:
  // REQUIRES: transport and retry outlive the client.
  S3Client(S3ClientOptions options, HttpTransport* transport, RetryPolicy* retry);

  // When every attempt failed without an answer (the reply may have been lost
  // after the server stored the object), a HEAD decides: the object is there
  // with this size (and this MD5 when Content-MD5 is on), modified since the
  // request started -> OK.
  // conditions (WriteOptions): create_only is sent as If-None-Match: *, if_match as
  // If-Match: <etag> (unquoted: radosgw matches only that); a server that honours them
  // answers 412 when the key exists, or does not hold that ETag (AlreadyExists,
  // "precondition failed").
  Status PutObject(std::string_view key, std::string_view body, std::stop_token stop = {},
                   const WriteOptions& conditions = {});
  Result<std::string> CreateMultipartUpload(std::string_view key, std::stop_token stop = {});
  // Returns the part's ETag (and its CRC32C when that checksum is on).
  Result<UploadedPart> UploadPart(std::string_view key, std::string_view upload_id,
                                  int part_number, std::string_view body,
                                  std::stop_token stop = {});
  // parts[i] is part i+1, total_size their bytes. A 200 whose body is an <Error>
  // is an error. A lost reply is retried; a retry answered NoSuchUpload (the
  // first attempt completed it), or attempts that all failed without an answer,
  // are settled by a HEAD: the object with total_size bytes and the multipart
  // ETag of these parts -> OK.
  // conditions: as for PutObject, sent with the completion (AWS S3 honours them there).
  Status CompleteMultipartUpload(std::string_view key, std::string_view upload_id,
                                 const std::vector<UploadedPart>& parts, uint64_t total_size,
                                 std::stop_token stop = {}, const WriteOptions& conditions = {});
  // A missing upload (NoSuchUpload) is OK: it is gone either way.
  Status AbortMultipartUpload(std::string_view key, std::string_view upload_id);
  Result<ObjectHead> HeadObject(std::string_view key, std::stop_token stop = {});
  // Bytes [offset, offset+length) into *out. A non-empty if_match fails the read
  // (Corruption) when the object changed.
  Status GetObject(std::string_view key, uint64_t offset, uint64_t length, std::string* out,
                   std::string_view if_match = {}, std::stop_token stop = {});
  // A whole object in one GET (no HEAD first). With max_bytes, the GET asks for bytes
  // [0, max_bytes] only, so an object larger than max_bytes costs at most max_bytes + 1 bytes:
  // `size` is then the object's size (from Content-Range) and `bytes` is not the whole object.
  // An empty object answers such a range with 416: it is returned as size 0.
  struct Whole {
    uint64_t size = 0;
    std::string bytes;
  };
  Result<Whole> GetWholeObject(std::string_view key, std::optional<uint64_t> max_bytes,
                               std::stop_token stop = {});
  Result<ListObjectsPage> ListObjectsV2(std::string_view prefix, std::string_view token,
                                        std::stop_token stop = {});
  // Any number of keys, sent in batches of 1000; a key XML cannot carry (XmlCanCarry) goes
  // alone through DeleteObject. Per-key errors in the answer fail the call, naming the keys.
  Status DeleteObjects(const std::vector<std::string>& keys, std::stop_token stop = {});
  // One DELETE; a missing object is OK.
  Status DeleteObject(std::string_view key, std::stop_token stop = {});
  Result<ListUploadsPage> ListMultipartUploads(std::string_view prefix, std::string_view key_marker,
                                               std::string_view upload_id_marker,
                                               std::stop_token stop = {});

  const std::string& bucket() const { return options_.bucket; }
  const S3Config& config() const { return options_.config; }
  uint64_t requests() const { return requests_.load(); }

 private:
  struct Request {
    std::string method;
    std::string key;  // "" = the bucket
    std::vector<std::pair<std::string, std::string>> query;
    std::vector<std::pair<std::string, std::string>> headers;
    std::string_view body;
    std::string op;  // for messages: "PutObject"
    // Checks a 2xx reply (a body that parses); a retryable Status retries it.
    std::function<Status(const HttpResponse&)> check;
    // A 416 (Range Not Satisfiable) is returned as a response, not an error.
    bool accept_416 = false;
    uint64_t max_body = kMaxReplyBody;  // the cap on a 2xx reply's body (HttpRequest)
  };

  // Signs and sends with retries (RetryState); a 2xx response that passes
  // request.check, or the mapped error.
  // `policy` overrides the client's retry policy (null: the client's).
  Result<HttpResponse> Execute(const Request& request, std::stop_token stop,
                               RetryPolicy* policy = nullptr);
  Result<ObjectHead> Head(std::string_view key, std::stop_token stop, RetryPolicy* policy);
  // Adds the payload checksum headers the options ask for.
  void AddPayloadChecksums(std::string_view body, Request* request) const;
  // After a PUT/Complete whose outcome is unknown: OK when HEAD shows the
  // object as that request would have left it.
  Status ConfirmByHead(std::string_view key, uint64_t size, std::string_view etag,
                       std::chrono::system_clock::time_point started, const Status& failure,
                       std::stop_token stop);
  // The error a HEAD cannot carry (no body): asks the same key with a 1-byte GET.
  // *code: the S3 error code the GET answered ("" if none).
  Status DiagnoseHead(const Request& head, long http_status, std::stop_token stop,
                      std::string* code);
  // Signs with the cache's current credentials (*used: which ones) and sends.
  Result<HttpResponse> SendOnce(const Request& request, std::stop_token stop,
                                Credentials* used = nullptr);
  Status MapError(const Request& request, const HttpResponse& response) const;
  std::string Location(std::string_view key) const;

  void AcquireConnection();
  void ReleaseConnection();

  const S3ClientOptions options_;
  const std::shared_ptr<CredentialCache> credentials_;
  HttpTransport* const transport_;
  RetryPolicy* const retry_;
  bool https_ = true;
  std::string scheme_host_;  // "http://127.0.0.1:7480" (with the bucket for virtual-host)
  std::string host_header_;
  std::string path_prefix_;  // "/bucket" for path style, "" for virtual-host

  std::mutex mu_;
  std::condition_variable cv_;
  int connections_ = 0;  // GUARDED_BY(mu_)
  std::atomic<uint64_t> requests_{0};
};

// Virtual-host style (https://bucket.host/key) or path style (https://host/bucket/key)
// for these options: config.addressing "virtual" or "path" decides; "auto" is path
// style for a custom endpoint, virtual-host style on AWS unless the bucket has a dot.
bool UsesVirtualHostStyle(const S3ClientOptions& options);
// InvalidArgument when config.addressing is "virtual" and the bucket cannot be a
// host label (upper case, '_', too long...).
Status CheckAddressing(std::string_view bucket, const S3Config& config);

// Status for an HTTP response that is not 2xx (exposed for tests).
// location is "s3://bucket/key"; credentials_source names where keys came from.
// One classification for every S3 error reply (docs/s3.md, "Errors"):
//   Unavailable       5xx, 429, SlowDown, RequestTimeout... (retried)
//   PermissionDenied  ExpiredToken, InvalidAccessKeyId, SignatureDoesNotMatch,
//                     AccessDenied and other 403s: a message naming the cause
//   IOError           NoSuchBucket ("bucket 'x' does not exist": never "not found",
//                     which callers read as "no such object") and other 4xx
//   NotFound          NoSuchKey / 404 on an object, NoSuchUpload
//   Corruption        412 (the object changed while read)
// Never InvalidArgument: what the server answered is a failure (exit 1), not
// bad usage (exit 2).
Status StatusFromS3Response(long http_status, std::string_view body, std::string_view op,
                            std::string_view location, std::string_view bucket,
                            std::string_view credentials_source);

// The S3 multipart ETag of these parts, "<hex>-N" without quotes (hex: the MD5
// of the parts' binary MD5s), or "" when a part's ETag is not an MD5 (SSE-KMS).
std::string MultipartEtag(const std::vector<UploadedPart>& parts);

}  // namespace lakedump
