#include "store/s3/s3_client.h"

#include <algorithm>

#include "store/s3/sigv4.h"

namespace lakedump {
namespace {

bool IsThrottle(long status, std::string_view code) {
  return status == 429 || status == 503 || code == "SlowDown" || code == "Throttling" ||
         code == "ThrottlingException" || code == "RequestLimitExceeded";
}

}  // namespace

Status StatusFromS3Response(long http_status, std::string_view body, std::string_view op,
                            std::string_view location, std::string_view bucket,
                            std::string_view credentials_source) {
  std::optional<S3Error> error = ParseS3Error(body);
  std::string code = error ? error->code : "";
  std::string detail = error ? error->code + (error->message.empty() ? "" : ": " + error->message)
                             : "HTTP " + std::to_string(http_status);
  std::string where = std::string(op) + " " + std::string(location);
  if (http_status >= 500 || http_status == 429 || code == "SlowDown" || code == "RequestTimeout" ||
      code == "InternalError") {
    return Status::Unavailable(where + ": " + detail);
  }
  if (http_status == 403) {
    return Status::PermissionDenied("access denied for " + std::string(location) + " (" + detail +
                                    "): check the credentials (" + std::string(credentials_source) +
                                    ")");
  }
  if (code == "NoSuchBucket") {
    return Status::NotFound("bucket " + std::string(bucket) +
                            " does not exist: create it or fix the s3:// URL");
  }
  if (http_status == 404 || code == "NoSuchKey") {
    return Status::NotFound(std::string(location) + " not found");
  }
  if (http_status == 412) {
    return Status::Corruption(std::string(location) + " changed while being read (" + detail + ")");
  }
  return Status::InvalidArgument(where + " failed: " + detail);
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
    : options_(std::move(options)), transport_(transport), retry_(retry) {
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

Result<HttpResponse> S3Client::SendOnce(const Request& request, std::stop_token stop) {
  SigningRequest sign;
  sign.method = request.method;
  sign.canonical_uri = path_prefix_ + "/" + UriEncode(request.key, false);
  sign.canonical_query = CanonicalQueryString(request.query);
  sign.headers = request.headers;
  sign.headers.emplace_back("host", host_header_);
  sign.payload_hash = https_ ? std::string(kUnsignedPayload) : Sha256Hex(request.body);
  sign.headers.emplace_back("x-amz-content-sha256", sign.payload_hash);
  auto now = options_.clock ? options_.clock() : std::chrono::system_clock::now();
  SignRequest(&sign, options_.config.credentials, options_.config.region, "s3", now);

  HttpRequest http;
  http.method = request.method;
  http.url = scheme_host_ + sign.canonical_uri;
  if (!sign.canonical_query.empty()) http.url += "?" + sign.canonical_query;
  http.headers = std::move(sign.headers);
  http.body = request.body;

  AcquireConnection();
  requests_.fetch_add(1);
  Result<HttpResponse> response = transport_->Send(http, stop);
  ReleaseConnection();
  return response;
}

Result<HttpResponse> S3Client::Execute(const Request& request, std::stop_token stop) {
  const std::string location = Location(request.key);
  Status last;
  for (int attempt = 1;; ++attempt) {
    LD_RETURN_IF_ERROR(RetryPolicy::Sleep(retry_->throttle_delay(), stop));
    Result<HttpResponse> response = SendOnce(request, stop);
    bool throttled = false;
    if (response.ok()) {
      long status = response->status;
      if (status >= 200 && status < 300) {
        retry_->OnSuccess();
        return response;
      }
      last = StatusFromS3Response(status, response->body, request.op, location, options_.bucket,
                                  options_.config.credentials.source);
      std::optional<S3Error> error = ParseS3Error(response->body);
      throttled = IsThrottle(status, error ? error->code : "");
    } else {
      last = response.status().WithContext(request.op + " " + location);
    }
    if (!last.retryable()) return last;
    if (throttled) retry_->OnThrottled();
    if (attempt >= retry_->options().max_attempts) {
      return Status::Unavailable(last.message() + " (gave up after " + std::to_string(attempt) +
                                 " attempts)");
    }
    if (!retry_->TryAcquireRetry()) {
      return Status::Unavailable(last.message() +
                                 " (retry budget exhausted: the server keeps failing)");
    }
    LD_RETURN_IF_ERROR(RetryPolicy::Sleep(retry_->Backoff(attempt + 1), stop));
  }
}

Status S3Client::PutObject(std::string_view key, std::string_view body, std::stop_token stop) {
  Request r{"PUT", std::string(key), {}, {{"Content-MD5", Md5Base64(body)}}, body, "PutObject"};
  return Execute(r, stop).status();
}

Result<std::string> S3Client::CreateMultipartUpload(std::string_view key, std::stop_token stop) {
  Request r{"POST", std::string(key), {{"uploads", ""}}, {}, {}, "CreateMultipartUpload"};
  LD_ASSIGN_OR_RETURN(HttpResponse response, Execute(r, stop));
  return ParseUploadId(response.body);
}

Result<std::string> S3Client::UploadPart(std::string_view key, std::string_view upload_id,
                                         int part_number, std::string_view body,
                                         std::stop_token stop) {
  Request r{"PUT",
            std::string(key),
            {{"partNumber", std::to_string(part_number)}, {"uploadId", std::string(upload_id)}},
            {{"Content-MD5", Md5Base64(body)}},
            body,
            "UploadPart " + std::to_string(part_number)};
  LD_ASSIGN_OR_RETURN(HttpResponse response, Execute(r, stop));
  std::string etag = response.Header("etag");
  if (etag.empty()) {
    return Status::Corruption("UploadPart " + std::to_string(part_number) + " of " + Location(key) +
                              " returned no ETag");
  }
  return etag;
}

Status S3Client::CompleteMultipartUpload(std::string_view key, std::string_view upload_id,
                                         const std::vector<std::string>& etags,
                                         std::stop_token stop) {
  std::string body = BuildCompleteMultipartXml(etags);
  Request r{"POST",
            std::string(key),
            {{"uploadId", std::string(upload_id)}},
            {{"Content-MD5", Md5Base64(body)}},
            body,
            "CompleteMultipartUpload"};
  // Complete is idempotent for the same part list, so retrying it is safe; a
  // 200 carrying <Error> is retried like a 5xx when the error is transient.
  for (int attempt = 1;; ++attempt) {
    LD_ASSIGN_OR_RETURN(HttpResponse response, Execute(r, stop));
    Status s = ParseCompleteResult(response.body).WithContext(Location(key));
    if (s.ok() || !s.retryable() || attempt >= retry_->options().max_attempts ||
        !retry_->TryAcquireRetry()) {
      return s;
    }
    LD_RETURN_IF_ERROR(RetryPolicy::Sleep(retry_->Backoff(attempt + 1), stop));
  }
}

Status S3Client::AbortMultipartUpload(std::string_view key, std::string_view upload_id) {
  Request r{"DELETE", std::string(key),      {{"uploadId", std::string(upload_id)}}, {},
            {},       "AbortMultipartUpload"};
  Result<HttpResponse> response = Execute(r, {});
  if (!response.ok() && response.status().code() == Code::kNotFound) return Status::OK();
  return response.status();
}

Result<ObjectHead> S3Client::HeadObject(std::string_view key, std::stop_token stop) {
  Request r{"HEAD", std::string(key), {}, {}, {}, "HeadObject"};
  LD_ASSIGN_OR_RETURN(HttpResponse response, Execute(r, stop));
  ObjectHead head;
  std::string length = response.Header("content-length");
  if (length.empty()) return Status::Corruption("HeadObject " + Location(key) + ": no size");
  head.size = std::stoull(length);
  head.etag = response.Header("etag");
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
      "GetObject"};
  if (!if_match.empty()) r.headers.emplace_back("If-Match", std::string(if_match));
  LD_ASSIGN_OR_RETURN(HttpResponse response, Execute(r, stop));
  if (response.body.size() != length) {
    return Status::Corruption("GetObject " + Location(key) + " returned " +
                              std::to_string(response.body.size()) + " bytes for a range of " +
                              std::to_string(length) + " at offset " + std::to_string(offset));
  }
  *out = std::move(response.body);
  return Status::OK();
}

Result<ListObjectsPage> S3Client::ListObjectsV2(std::string_view prefix, std::string_view token,
                                                std::stop_token stop) {
  Request r{"GET", "", {{"list-type", "2"}, {"prefix", std::string(prefix)}},
            {},    {}, "ListObjectsV2"};
  if (!token.empty()) r.query.emplace_back("continuation-token", std::string(token));
  LD_ASSIGN_OR_RETURN(HttpResponse response, Execute(r, stop));
  return ParseListObjectsV2(response.body);
}

Status S3Client::DeleteObjects(const std::vector<std::string>& keys, std::stop_token stop) {
  for (size_t begin = 0; begin < keys.size(); begin += 1000) {
    size_t end = std::min(keys.size(), begin + 1000);
    std::string body = BuildDeleteObjectsXml({keys.begin() + begin, keys.begin() + end});
    Request r{"POST",         "", {{"delete", ""}}, {{"Content-MD5", Md5Base64(body)}}, body,
              "DeleteObjects"};
    LD_ASSIGN_OR_RETURN(HttpResponse response, Execute(r, stop));
    LD_RETURN_IF_ERROR(ParseDeleteResult(response.body).WithContext(Location("")));
  }
  return Status::OK();
}

Result<ListUploadsPage> S3Client::ListMultipartUploads(std::string_view prefix,
                                                       std::string_view key_marker,
                                                       std::string_view upload_id_marker,
                                                       std::stop_token stop) {
  Request r{"GET", "", {{"uploads", ""}, {"prefix", std::string(prefix)}},
            {},    {}, "ListMultipartUploads"};
  if (!key_marker.empty()) r.query.emplace_back("key-marker", std::string(key_marker));
  if (!upload_id_marker.empty()) {
    r.query.emplace_back("upload-id-marker", std::string(upload_id_marker));
  }
  LD_ASSIGN_OR_RETURN(HttpResponse response, Execute(r, stop));
  return ParseListMultipartUploads(response.body);
}

}  // namespace lakedump
