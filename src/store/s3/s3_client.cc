#include "store/s3/s3_client.h"

#include <algorithm>
#include <cctype>

#include "base/crc32c.h"
#include "store/s3/credentials/environment_provider.h"
#include "store/s3/sigv4.h"

namespace lakedump {
namespace {

bool IsThrottle(long status, std::string_view code) {
  return status == 429 || status == 503 || code == "SlowDown" || code == "Throttling" ||
         code == "ThrottlingException" || code == "RequestLimitExceeded";
}

bool IsHex(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isxdigit(
                                                        static_cast<unsigned char>(c)) != 0; });
}

// The codes by which S3 says the session token has expired (HTTP 400 on AWS; any 4xx here).
// Not RequestTimeTooSkewed (a clock problem that new credentials do not fix), nor
// RequestExpired (not an S3 code: other AWS APIs send it for a request signed too long ago).
bool IsExpiredToken(std::string_view code) {
  return code == "ExpiredToken" || code == "TokenRefreshRequired";
}

// The client's credentials: the config's cache, or one serving its static credentials.
std::shared_ptr<CredentialCache> CacheFor(const S3Config& config) {
  if (config.credential_cache) return config.credential_cache;
  return std::make_shared<CredentialCache>(NewStaticProvider(config.credentials),
                                           ExpiringCredentials{config.credentials, std::nullopt});
}

// A reply that does not parse is treated as cut short in transit: retried.
Status Retryable(const Status& parse) {
  if (parse.ok() || parse.retryable() || parse.code() != Code::kCorruption) return parse;
  return Status::Unavailable("unusable reply (" + parse.message() + ")");
}

}  // namespace

Status StatusFromS3Response(long http_status, std::string_view body, std::string_view op,
                            std::string_view location, std::string_view bucket,
                            std::string_view credentials_source) {
  std::optional<S3Error> error = ParseS3Error(body);
  const std::string code = error ? error->code : "";
  const std::string detail =
      error ? error->code + (error->message.empty() ? "" : ": " + error->message)
            : "HTTP " + std::to_string(http_status);
  const std::string where = std::string(op) + " " + std::string(location);
  const std::string check = "check the credentials (" + std::string(credentials_source) + ")";
  if (http_status >= 500 || http_status == 429 || code == "SlowDown" || code == "RequestTimeout" ||
      code == "InternalError" || code == "ServiceUnavailable") {
    return Status::Unavailable(where + ": " + detail);
  }
  if (code == "ExpiredToken" || code == "TokenRefreshRequired") {
    return Status::PermissionDenied("S3 credentials expired (" + code +
                                    "): renew the session token; " + check);
  }
  if (code == "InvalidAccessKeyId") {
    return Status::PermissionDenied(
        "S3 access key id is not known to the endpoint (InvalidAccessKeyId): " + check);
  }
  if (code == "SignatureDoesNotMatch") {
    return Status::PermissionDenied(
        "S3 secret key does not match the access key id (SignatureDoesNotMatch): " + check);
  }
  if (code == "InvalidToken") {
    return Status::PermissionDenied("S3 session token is not valid (InvalidToken): " + check);
  }
  if (code == "NoSuchBucket") {
    return Status::IOError("bucket '" + std::string(bucket) +
                           "' does not exist: create it or fix the s3:// URL");
  }
  if (http_status == 403 || code == "AccessDenied" || code == "AllAccessDisabled" ||
      code == "AccountProblem") {
    return Status::PermissionDenied("access denied for " + std::string(location) + " (" + detail +
                                    "): " + check + " and the bucket's policy");
  }
  if (code == "NoSuchUpload") return Status::NotFound(where + ": " + detail);
  if (http_status == 404 || code == "NoSuchKey") {
    return Status::NotFound(std::string(location) + " not found");
  }
  // A conditional write (If-None-Match: *, If-Match) whose precondition failed: the key
  // exists, or holds another ETag.
  if (http_status == 412 && (op.starts_with("PutObject") || op == "CompleteMultipartUpload")) {
    return Status::AlreadyExists(std::string(location) +
                                 " already exists or is not the one expected (precondition "
                                 "failed: " + detail + ")");
  }
  // A concurrent conditional write on the same key: S3 asks for a retry.
  if (http_status == 409 && code == "ConditionalRequestConflict") {
    return Status::Unavailable(where + ": " + detail);
  }
  if (http_status == 412) {
    return Status::Corruption(std::string(location) + " changed while being read (" + detail + ")");
  }
  return Status::IOError(where + " failed: " + detail);
}

std::string MultipartEtag(const std::vector<UploadedPart>& parts) {
  std::string digests;
  for (const UploadedPart& p : parts) {
    std::string hex = UnquoteEtag(p.etag);
    if (hex.size() != 32 || !IsHex(hex)) return "";
    for (size_t i = 0; i < 32; i += 2) {
      digests.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
    }
  }
  return Md5Hex(digests) + "-" + std::to_string(parts.size());
}

bool UsesVirtualHostStyle(const S3ClientOptions& options) {
  const std::string& style = options.config.addressing;
  if (options.virtual_host_style || style == "virtual") return true;
  if (style == "path") return false;
  // auto: path style for custom endpoints (radosgw, MinIO...); on AWS virtual-host
  // style unless the bucket name cannot be a host label.
  return options.config.endpoint.empty() && options.bucket.find('.') == std::string::npos;
}

Status CheckAddressing(std::string_view bucket, const S3Config& config) {
  if (config.addressing != "virtual") return Status::OK();
  bool valid = !bucket.empty() && bucket.size() <= 63 && bucket.front() != '-' &&
               bucket.front() != '.' && bucket.back() != '-' && bucket.back() != '.';
  for (char c : bucket) {
    valid = valid && ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.');
  }
  if (valid) return Status::OK();
  return Status::InvalidArgument("bucket \"" + std::string(bucket) +
                                 "\" cannot be part of a host name (virtual-host addressing): "
                                 "use --s3-addressing path");
}

S3Client::S3Client(S3ClientOptions options, HttpTransport* transport, RetryPolicy* retry)
    : options_(std::move(options)),
      credentials_(CacheFor(options_.config)),
      transport_(transport),
      retry_(retry) {
  std::string endpoint = options_.config.endpoint;
  const bool virtual_host = UsesVirtualHostStyle(options_);
  if (endpoint.empty()) endpoint = "https://s3." + options_.config.region + ".amazonaws.com";
  size_t scheme_end = endpoint.find("://");
  std::string scheme = scheme_end == std::string::npos ? "https" : endpoint.substr(0, scheme_end);
  std::string rest = scheme_end == std::string::npos ? endpoint : endpoint.substr(scheme_end + 3);
  std::string host = rest.substr(0, rest.find('/'));
  std::string base_path = rest.find('/') == std::string::npos ? "" : rest.substr(rest.find('/'));
  while (!base_path.empty() && base_path.back() == '/') base_path.pop_back();
  https_ = scheme != "http";
  if (virtual_host) {
    host = options_.bucket + "." + host;
    path_prefix_ = base_path;
  } else {
    path_prefix_ = base_path + "/" + UriEncode(options_.bucket, true);
  }
  host_header_ = host;
  scheme_host_ = scheme + "://" + host;
}

std::string S3Client::Location(std::string_view key) const {
  // Appended piece by piece: GCC 12 at -O3 warns (-Wrestrict, a false positive) on the
  // equivalent chain of operator+.
  std::string out;
  out.reserve(6 + options_.bucket.size() + key.size());
  out.append("s3://").append(options_.bucket);
  if (!key.empty()) out.append("/").append(key);
  return out;
}

void S3Client::AcquireConnection() {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [this] { return connections_ < std::max(1, options_.max_connections); });
  ++connections_;
}

void S3Client::ReleaseConnection() {
  std::lock_guard<std::mutex> lock(mu_);
  --connections_;
  cv_.notify_one();
}

Result<HttpResponse> S3Client::SendOnce(const Request& request, std::stop_token stop,
                                        Credentials* used) {
  LD_ASSIGN_OR_RETURN(Credentials credentials, credentials_->Current(stop));
  SigningRequest sign;
  sign.method = request.method;
  sign.canonical_uri = path_prefix_ + "/" + UriEncode(request.key, false);
  sign.canonical_query = CanonicalQueryString(request.query);
  sign.headers = request.headers;
  sign.headers.emplace_back("host", host_header_);
  sign.payload_hash = https_ ? std::string(kUnsignedPayload) : Sha256Hex(request.body);
  sign.headers.emplace_back("x-amz-content-sha256", sign.payload_hash);
  auto now = options_.clock ? options_.clock() : std::chrono::system_clock::now();
  SignRequest(&sign, credentials, options_.config.region, "s3", now);
  if (used != nullptr) *used = std::move(credentials);

  HttpRequest http;
  http.method = request.method;
  http.url = scheme_host_ + sign.canonical_uri;
  if (!sign.canonical_query.empty()) http.url += "?" + sign.canonical_query;
  http.headers = std::move(sign.headers);
  http.body = request.body;
  http.max_body = request.max_body;
  http.hurry = options_.hurry;

  AcquireConnection();
  requests_.fetch_add(1);
  Result<HttpResponse> response = transport_->Send(http, stop);
  ReleaseConnection();
  return response;
}

Result<HttpResponse> S3Client::Execute(const Request& request, std::stop_token stop,
                                       RetryPolicy* policy) {
  const std::string location = Location(request.key);
  RetryPolicy* const used = policy != nullptr ? policy : retry_;
  RetryState state(used);
  bool refreshed = false;  // one retry with fresh credentials after an expired token
  for (;;) {
    LD_RETURN_IF_ERROR(retry_->Sleep(retry_->throttle_delay(), stop));
    Credentials signed_with;
    Result<HttpResponse> response = SendOnce(request, stop, &signed_with);
    bool throttled = false;
    Status last;
    std::string code;
    if (response.ok()) {
      retry_->OnContact();  // an HTTP reply: the endpoint is right and reachable
      used->OnContact();
      const long status = response->status;
      if (status >= 200 && status < 300) {
        last = request.check ? Retryable(request.check(*response)) : Status::OK();
        if (last.ok()) {
          retry_->OnSuccess();
          return response;
        }
        last = last.WithContext(request.op + " " + location);
      } else if (status == 416 && request.accept_416) {
        retry_->OnSuccess();
        return response;
      } else if (request.method == "HEAD" && response->body.empty() && status >= 400 &&
                 status < 500 && status != 412) {
        last = DiagnoseHead(request, status, stop, &code);
      } else {
        last = StatusFromS3Response(status, response->body, request.op, location,
                                    options_.bucket, credentials_->Describe());
        std::optional<S3Error> error = ParseS3Error(response->body);
        code = error ? error->code : "";
        throttled = IsThrottle(status, code);
      }
    } else {
      if (response.status().code() == Code::kCancelled) return response.status();
      last = response.status().WithContext(request.op + " " + location);
    }
    // Refused as expired: refreshed once (the other requests of the run share the refresh),
    // and retried at once, outside the retry budget.
    if (!refreshed && IsExpiredToken(code) && credentials_->Invalidate(signed_with)) {
      refreshed = true;
      continue;
    }
    // An interrupted run does not retry what it was not told to cancel.
    if (options_.hurry.stop_requested() && last.retryable()) return last;
    LD_RETURN_IF_ERROR(state.Failed(last, throttled, stop));
  }
}

Status S3Client::DiagnoseHead(const Request& head, long http_status, std::stop_token stop,
                              std::string* code) {
  const std::string location = Location(head.key);
  // A HEAD reply has no body, so it cannot say why (an expired token, a missing
  // bucket and a missing key all look alike): the same key asked with a GET of
  // one byte carries the <Error> document.
  Request get{"GET", head.key, {}, {{"Range", "bytes=0-0"}}, {}, head.op, {}};
  Result<HttpResponse> response = SendOnce(get, stop);
  std::optional<S3Error> error;
  if (response.ok() && response->status >= 400) error = ParseS3Error(response->body);
  if (error) {
    *code = error->code;
    return StatusFromS3Response(response->status, response->body, head.op, location,
                                options_.bucket, credentials_->Describe());
  }
  return StatusFromS3Response(http_status, "", head.op, location, options_.bucket,
                              credentials_->Describe());
}

void S3Client::AddPayloadChecksums(std::string_view body, Request* request) const {
  if (options_.content_md5) request->headers.emplace_back("Content-MD5", Md5Base64(body));
  if (options_.checksum_crc32c) {
    request->headers.emplace_back("x-amz-checksum-crc32c", Crc32cBase64(body));
    request->headers.emplace_back("x-amz-sdk-checksum-algorithm", "CRC32C");
  }
}

Status S3Client::ConfirmByHead(std::string_view key, uint64_t size, std::string_view etag,
                               std::chrono::system_clock::time_point started,
                               const Status& failure, std::stop_token stop) {
  // A few quick attempts: when the endpoint is gone, the request's own retries
  // have already spent the budget.
  RetryOptions quick = retry_->options();
  quick.max_attempts = std::min(quick.max_attempts, 3);
  quick.budget = std::min(quick.budget, std::chrono::milliseconds(5000));
  RetryPolicy policy(quick);
  if (retry_->contacted()) policy.OnContact();
  Result<ObjectHead> head = Head(key, stop, &policy);
  if (!head.ok()) {
    if (head.status().code() == Code::kNotFound) return failure;
    return Status(failure.code(), failure.message() + "; HEAD could not check whether it " +
                                      "was stored either (" + head.status().message() + ")");
  }
  const std::string found = UnquoteEtag(head->etag);
  if (head->size == size && !etag.empty() && found == etag) return Status::OK();
  const bool etag_says_no = !etag.empty() && !found.empty() &&
                            found.size() >= 32 && IsHex(found.substr(0, 32)) &&
                            (found.size() == 32) == (etag.size() == 32);
  if (head->size == size && !etag_says_no && head->last_modified &&
      *head->last_modified >= started - std::chrono::seconds(2)) {
    return Status::OK();  // the ETag says nothing (SSE-KMS): size and time do
  }
  return Status(failure.code(), failure.message() + "; " + Location(key) + " holds another " +
                                    "object (" + std::to_string(head->size) + " bytes)");
}

namespace {

void AddWriteConditions(const WriteOptions& conditions,
                        std::vector<std::pair<std::string, std::string>>* headers) {
  if (conditions.create_only) headers->push_back({"If-None-Match", "*"});
  // Unquoted: radosgw compares the header with its stored ETag as it is (a quoted one never
  // matches: tested on the CI's radosgw), and AWS S3 accepts either form.
  if (!conditions.if_match.empty()) headers->push_back({"If-Match", conditions.if_match});
}

}  // namespace

Status S3Client::PutObject(std::string_view key, std::string_view body, std::stop_token stop,
                           const WriteOptions& conditions) {
  Request r{"PUT", std::string(key), {}, {}, body, "PutObject", {}};
  AddPayloadChecksums(body, &r);
  AddWriteConditions(conditions, &r.headers);
  const auto started = std::chrono::system_clock::now();
  Status s = Execute(r, stop).status();
  // An interrupted run does not spend time finding out (nothing it writes then is a commit).
  if (s.ok() || !s.retryable() || options_.hurry.stop_requested()) return s;
  // Every attempt failed without a clear answer: the reply of one that stored
  // the object may have been lost. The MD5 is computed only here, where it is rare.
  return ConfirmByHead(key, body.size(), Md5Hex(body), started, s, stop);
}

Result<std::string> S3Client::CreateMultipartUpload(std::string_view key, std::stop_token stop) {
  std::string id;
  Request r{"POST", std::string(key), {{"uploads", ""}}, {}, {}, "CreateMultipartUpload",
            [&id](const HttpResponse& response) {
              LD_ASSIGN_OR_RETURN(id, ParseUploadId(response.body));
              return Status::OK();
            }};
  if (options_.checksum_crc32c) r.headers.emplace_back("x-amz-checksum-algorithm", "CRC32C");
  LD_RETURN_IF_ERROR(Execute(r, stop).status());
  return id;
}

Result<UploadedPart> S3Client::UploadPart(std::string_view key, std::string_view upload_id,
                                          int part_number, std::string_view body,
                                          std::stop_token stop) {
  Request r{"PUT",
            std::string(key),
            {{"partNumber", std::to_string(part_number)}, {"uploadId", std::string(upload_id)}},
            {},
            body,
            "UploadPart " + std::to_string(part_number),
            {}};
  AddPayloadChecksums(body, &r);
  LD_ASSIGN_OR_RETURN(HttpResponse response, Execute(r, stop));
  UploadedPart part;
  part.etag = response.Header("etag");
  if (part.etag.empty()) {
    return Status::Corruption("UploadPart " + std::to_string(part_number) + " of " + Location(key) +
                              " returned no ETag");
  }
  if (options_.checksum_crc32c) {
    for (const auto& [name, value] : r.headers) {
      if (name == "x-amz-checksum-crc32c") part.checksum_crc32c = value;
    }
  }
  return part;
}

Status S3Client::CompleteMultipartUpload(std::string_view key, std::string_view upload_id,
                                         const std::vector<UploadedPart>& parts,
                                         uint64_t total_size, std::stop_token stop,
                                         const WriteOptions& conditions) {
  std::string body = BuildCompleteMultipartXml(parts);
  Request r{"POST",
            std::string(key),
            {{"uploadId", std::string(upload_id)}},
            {{"Content-MD5", Md5Base64(body)}},
            body,
            "CompleteMultipartUpload",
            // A 200 may carry an <Error> (transient ones are retried) or be cut short.
            [](const HttpResponse& response) { return ParseCompleteResult(response.body); }};
  AddWriteConditions(conditions, &r.headers);
  Status s = Execute(r, stop).status();
  if (s.ok()) return s;
  // NoSuchUpload after a lost reply: the first attempt completed the upload.
  // Attempts that all failed: one may have completed it. HEAD decides either way.
  if (s.retryable() || s.code() == Code::kNotFound) {
    return ConfirmByHead(key, total_size, MultipartEtag(parts),
                         std::chrono::system_clock::time_point::max(), s, stop);
  }
  return s;
}

Status S3Client::AbortMultipartUpload(std::string_view key, std::string_view upload_id) {
  Request r{"DELETE", std::string(key), {{"uploadId", std::string(upload_id)}}, {}, {},
            "AbortMultipartUpload", {}};
  Result<HttpResponse> response = Execute(r, {});
  if (!response.ok() && response.status().code() == Code::kNotFound) return Status::OK();
  return response.status();
}

Result<ObjectHead> S3Client::HeadObject(std::string_view key, std::stop_token stop) {
  return Head(key, stop, nullptr);
}

Result<ObjectHead> S3Client::Head(std::string_view key, std::stop_token stop,
                                  RetryPolicy* policy) {
  Request r{"HEAD", std::string(key), {}, {}, {}, "HeadObject", {}};
  LD_ASSIGN_OR_RETURN(HttpResponse response, Execute(r, stop, policy));
  ObjectHead head;
  std::string length = response.Header("content-length");
  if (length.empty() || length.size() > 19 || !std::all_of(length.begin(), length.end(), [](char c) {
        return c >= '0' && c <= '9';
      })) {
    return Status::Corruption("HeadObject " + Location(key) + ": no valid size");
  }
  head.size = std::stoull(length);
  head.etag = response.Header("etag");
  head.last_modified = ParseHttpDate(response.Header("last-modified"));
  return head;
}

Status S3Client::GetObject(std::string_view key, uint64_t offset, uint64_t length, std::string* out,
                           std::string_view if_match, std::stop_token stop) {
  out->clear();
  if (length == 0) return Status::OK();
  Request r{
      "GET",
      std::string(key),
      {},
      {{"Range", "bytes=" + std::to_string(offset) + "-" + std::to_string(offset + length - 1)}},
      {},
      "GetObject",
      // A short body is a transfer cut short: retried.
      [length](const HttpResponse& response) {
        if (response.body.size() == length) return Status::OK();
        return Status::Unavailable("returned " + std::to_string(response.body.size()) +
                                   " bytes for a range of " + std::to_string(length));
      }};
  if (!if_match.empty()) r.headers.emplace_back("If-Match", std::string(if_match));
  r.max_body = length;
  LD_ASSIGN_OR_RETURN(HttpResponse response, Execute(r, stop));
  *out = std::move(response.body);
  return Status::OK();
}

namespace {

// The total of a Content-Range "bytes 0-E/TOTAL"; nullopt when absent or malformed.
std::optional<uint64_t> RangeTotal(const std::string& content_range) {
  size_t slash = content_range.rfind('/');
  if (slash == std::string::npos) return std::nullopt;
  std::string_view total = std::string_view(content_range).substr(slash + 1);
  if (total.empty() || total.size() > 19 ||
      !std::all_of(total.begin(), total.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  return std::stoull(std::string(total));
}

}  // namespace

Result<S3Client::Whole> S3Client::GetWholeObject(std::string_view key,
                                                 std::optional<uint64_t> max_bytes,
                                                 std::stop_token stop) {
  Whole whole;
  Request r{"GET", std::string(key), {}, {}, {}, "GetObject",
            [&whole, max_bytes](const HttpResponse& response) -> Status {
              if (response.status != 206) {  // the whole object (a server may ignore Range)
                whole.size = response.body.size();
                return Status::OK();
              }
              std::optional<uint64_t> total = RangeTotal(response.Header("content-range"));
              if (!total) return Status::Corruption("a partial answer without a valid Content-Range");
              whole.size = *total;
              const uint64_t expected = max_bytes ? std::min(*total, *max_bytes + 1) : *total;
              if (response.body.size() == expected) return Status::OK();
              // A short body is a transfer cut short: retried.
              return Status::Unavailable("returned " + std::to_string(response.body.size()) +
                                         " bytes of " + std::to_string(expected));
            }};
  // The caller's bound, or none: GetObject(key) without one reads what the object holds.
  r.max_body = max_bytes ? *max_bytes + 1 : UINT64_MAX;
  if (max_bytes) {
    r.headers.emplace_back("Range", "bytes=0-" + std::to_string(*max_bytes));
    r.accept_416 = true;
  }
  LD_ASSIGN_OR_RETURN(HttpResponse response, Execute(r, stop));
  if (response.status == 416) return Whole{};  // no byte 0: an empty object
  whole.bytes = std::move(response.body);
  return whole;
}

Result<ListObjectsPage> S3Client::ListObjectsV2(std::string_view prefix, std::string_view token,
                                                std::stop_token stop) {
  ListObjectsPage page;
  Request r{"GET", "", {{"list-type", "2"}, {"prefix", std::string(prefix)}}, {}, {},
            "ListObjectsV2", [&page](const HttpResponse& response) {
              LD_ASSIGN_OR_RETURN(page, ParseListObjectsV2(response.body));
              return Status::OK();
            }};
  if (!token.empty()) r.query.emplace_back("continuation-token", std::string(token));
  LD_RETURN_IF_ERROR(Execute(r, stop).status());
  return page;
}

Status S3Client::DeleteObject(std::string_view key, std::stop_token stop) {
  Request r{"DELETE", std::string(key), {}, {}, {}, "DeleteObject"};
  Result<HttpResponse> response = Execute(r, stop);
  if (!response.ok() && response.status().code() == Code::kNotFound) return Status::OK();
  return response.status();
}

Status S3Client::DeleteObjects(const std::vector<std::string>& all_keys, std::stop_token stop) {
  std::vector<std::string> keys;
  keys.reserve(all_keys.size());
  for (const std::string& k : all_keys) {
    if (XmlCanCarry(k)) {
      keys.push_back(k);
    } else {
      LD_RETURN_IF_ERROR(DeleteObject(k, stop));
    }
  }
  for (size_t begin = 0; begin < keys.size(); begin += 1000) {
    size_t end = std::min(keys.size(), begin + 1000);
    std::string body = BuildDeleteObjectsXml({keys.begin() + begin, keys.begin() + end});
    Status result;
    // DeleteObjects needs Content-MD5 (or a flexible checksum) on AWS.
    Request r{"POST", "", {{"delete", ""}}, {{"Content-MD5", Md5Base64(body)}}, body,
              "DeleteObjects", [&result](const HttpResponse& response) {
                result = ParseDeleteResult(response.body);
                // An unparsable reply is retried; per-key errors are the answer.
                return result.code() == Code::kCorruption ? result : Status::OK();
              }};
    LD_RETURN_IF_ERROR(Execute(r, stop).status());
    LD_RETURN_IF_ERROR(result.WithContext(Location("")));
  }
  return Status::OK();
}

Result<ListUploadsPage> S3Client::ListMultipartUploads(std::string_view prefix,
                                                       std::string_view key_marker,
                                                       std::string_view upload_id_marker,
                                                       std::stop_token stop) {
  ListUploadsPage page;
  Request r{"GET", "", {{"uploads", ""}, {"prefix", std::string(prefix)}}, {}, {},
            "ListMultipartUploads", [&page](const HttpResponse& response) {
              LD_ASSIGN_OR_RETURN(page, ParseListMultipartUploads(response.body));
              return Status::OK();
            }};
  if (!key_marker.empty()) r.query.emplace_back("key-marker", std::string(key_marker));
  if (!upload_id_marker.empty()) {
    r.query.emplace_back("upload-id-marker", std::string(upload_id_marker));
  }
  LD_RETURN_IF_ERROR(Execute(r, stop).status());
  return page;
}

}  // namespace lakedump
