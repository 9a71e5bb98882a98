#include "store/s3/s3_store.h"

#include "store/object_key.h"

#include <algorithm>

#include "base/interrupt.h"
#include "base/memory_budget.h"
#include "base/thread_pool.h"
#include "store/s3/credentials.h"
#include "store/s3/http_transport.h"
#include "store/s3/part_buffer_pool.h"
#include "store/s3/retry.h"
#include "store/s3/s3_client.h"
#include "store/s3/s3_multipart_writer.h"
#include "store/s3/s3_names.h"

namespace lakedump {
namespace {

RetryOptions MakeRetryOptions(const S3Options& s3) {
  RetryOptions r;
  r.max_attempts = std::max(1, s3.max_attempts);
  r.budget = s3.retry_budget;
  return r;
}

S3ClientOptions MakeClientOptions(std::string bucket, S3Config config, const StoreOptions& store,
                                  int max_connections) {
  const S3Options& s3 = store.s3;
  S3ClientOptions o;
  // What `stop` does not cancel (the aborts of uploads, every request of a handle opened
  // without stop: the lease's removal) is hurried once the process is interrupted.
  o.hurry = ProcessInterruptToken();
  o.bucket = std::move(bucket);
  o.config = std::move(config);
  o.virtual_host_style = s3.virtual_host_style;
  o.max_connections = max_connections;
  o.content_md5 = s3.content_md5;
  o.checksum_crc32c = s3.checksum_crc32c;
  return o;
}

class S3Reader final : public ObjectReader {
 public:
  S3Reader(S3Client* client, std::string key, ObjectHead head, std::stop_token stop)
      : client_(client), key_(std::move(key)), head_(std::move(head)), stop_(std::move(stop)) {}

  uint64_t size() const override { return head_.size; }

  Status ReadAt(uint64_t offset, uint64_t length, std::string* out) override {
    if (offset > head_.size || length > head_.size - offset) {
      return Status::Corruption("read of " + std::to_string(length) + " bytes at offset " +
                                std::to_string(offset) + " is past the end of s3://" +
                                client_->bucket() + "/" + key_ + " (" + std::to_string(head_.size) +
                                " bytes)");
    }
    return client_->GetObject(key_, offset, length, out, head_.etag, stop_);
  }

 private:
  S3Client* const client_;
  const std::string key_;
  const ObjectHead head_;
  const std::stop_token stop_;
};

class S3Store final : public ObjectStore {
 public:
  S3Store(S3Url url, const StoreOptions& options, S3Config config,
          std::unique_ptr<HttpTransport> transport)
      : url_(std::move(url)),
        options_(options),
        transport_(std::move(transport)),
        retry_(MakeRetryOptions(options.s3)),
        client_(MakeClientOptions(url_.bucket, std::move(config), options,
                                  std::max(1, options.s3.max_connections)),
                transport_.get(), &retry_),
        part_size_(options.s3.part_size == 0 ? kDefaultPartSize : options.s3.part_size),
        buffers_(static_cast<size_t>(std::max(1, options.s3.max_connections)) * part_size_),
        upload_pool_(static_cast<size_t>(std::max(1, options.s3.max_connections))) {
    budget_ = options.budget;
    if (budget_ == nullptr) {
      owned_budget_ = std::make_unique<MemoryBudget>(
          static_cast<uint64_t>(std::max(1, options.s3.max_connections)) * part_size_);
      budget_ = owned_budget_.get();
    }
  }

  Result<std::unique_ptr<ObjectWriter>> NewWriter(std::string_view key,
                                                  WriteOptions options = {}) override {
    LD_RETURN_IF_ERROR(CheckKey(key));
    MultipartWriterOptions w;
    w.conditions = options;
    w.part_size = part_size_;
    w.upload_parallelism = options_.s3.upload_parallelism;
    w.equal_parts = options_.s3.equal_parts;
    w.stop = options_.stop;
    w.unaborted = &unaborted_;
    return MakeObjectWriter<S3MultipartWriter>(&client_, &upload_pool_, &buffers_, budget_,
                                               url_.prefix + std::string(key), w);
  }

  Result<std::unique_ptr<ObjectReader>> NewReader(std::string_view key) override {
    LD_RETURN_IF_ERROR(CheckKey(key));
    std::string full = url_.prefix + std::string(key);
    LD_ASSIGN_OR_RETURN(ObjectHead head, client_.HeadObject(full, options_.stop));
    return std::unique_ptr<ObjectReader>(
        std::make_unique<S3Reader>(&client_, std::move(full), std::move(head), options_.stop));
  }

  Result<WholeObject> ReadWhole(std::string_view key, std::optional<uint64_t> max_bytes) override {
    LD_RETURN_IF_ERROR(CheckKey(key));
    LD_ASSIGN_OR_RETURN(S3Client::Whole whole,
                        client_.GetWholeObject(url_.prefix + std::string(key), max_bytes,
                                               options_.stop));
    return WholeObject{whole.size, std::move(whole.bytes)};
  }

  Result<std::vector<ObjectInfo>> List(std::string_view prefix) override {
    LD_RETURN_IF_ERROR(ValidateKeyPrefix(prefix).WithContext(Describe()));
    std::vector<ObjectInfo> out;
    std::string token;
    do {
      LD_ASSIGN_OR_RETURN(
          ListObjectsPage page,
          client_.ListObjectsV2(url_.prefix + std::string(prefix), token, options_.stop));
      for (ListedObject& o : page.objects) {
        if (!o.key.starts_with(url_.prefix)) continue;
        out.push_back({o.key.substr(url_.prefix.size()), o.size, std::move(o.etag)});
      }
      if (page.truncated && page.next_continuation_token.empty()) {
        return Status::Corruption("ListObjectsV2 on " + Describe() +
                                  " is truncated but has no continuation token");
      }
      token = page.truncated ? page.next_continuation_token : "";
    } while (!token.empty());
    std::sort(out.begin(), out.end(),
              [](const ObjectInfo& a, const ObjectInfo& b) { return a.key < b.key; });
    return out;
  }

  Result<ObjectInfo> Head(std::string_view key) override {
    LD_RETURN_IF_ERROR(CheckKey(key));
    LD_ASSIGN_OR_RETURN(ObjectHead head,
                        client_.HeadObject(url_.prefix + std::string(key), options_.stop));
    return ObjectInfo{std::string(key), head.size, UnquoteEtag(head.etag)};
  }

  Status Delete(std::span<const std::string> keys) override {
    std::vector<std::string> full;
    full.reserve(keys.size());
    for (const std::string& k : keys) {
      // A listed key is deleted as it is, even "a/../b": S3 keys are literal (the XML body and
      // the signed path, sent as is, carry it unresolved), so the stray a hostile upload left is
      // removed instead of failing `--if-exists overwrite`.
      if (k.empty() || k.find('\0') != std::string::npos) {
        return Status::InvalidArgument("cannot delete an empty key or a key with NUL in " +
                                       Describe());
      }
      full.push_back(url_.prefix + k);
    }
    return client_.DeleteObjects(full, options_.stop);
  }

  bool create_only_is_atomic() const override { return false; }
  StoreStats Stats() const override {
    return {retry_.retries(), retry_.throttles(), unaborted_.load(), client_.requests()};
  }
  std::string Describe() const override {
    std::string p = url_.prefix;
    if (!p.empty()) p.pop_back();
    return "s3://" + url_.bucket + (p.empty() ? "" : "/" + p);
  }

 private:
  // The same rules as every store (store/object_key.h), so that a key from a dump cannot
  // address another object than the local store would ("a/../b" is refused, not resolved).
  Status CheckKey(std::string_view key) const {
    if (key.empty()) return Status::InvalidArgument("empty object key in " + Describe());
    return ValidateObjectKey(key).WithContext(Describe());
  }

  const S3Url url_;
  const StoreOptions options_;
  std::unique_ptr<HttpTransport> transport_;
  RetryPolicy retry_;
  std::atomic<uint64_t> unaborted_{0};
  S3Client client_;
  const uint64_t part_size_;
  PartBufferPool buffers_;
  std::unique_ptr<MemoryBudget> owned_budget_;
  MemoryBudget* budget_ = nullptr;
  ThreadPool upload_pool_;  // last: its threads stop before the rest is destroyed
};

CurlTransportOptions TransportOptions(const StoreOptions& options, const S3Config& config) {
  CurlTransportOptions t;
  t.ca_bundle = config.ca_bundle;
  t.connect_timeout = options.s3.connect_timeout;
  t.min_rate = options.s3.min_rate;
  t.min_rate_window = options.s3.min_rate_window;
  return t;
}

}  // namespace

Result<S3Url> ParseS3Url(std::string_view url) {
  constexpr std::string_view kScheme = "s3://";
  if (!url.starts_with(kScheme)) {
    return Status::InvalidArgument("not an S3 URL: \"" + std::string(url) +
                                   "\": expected s3://bucket/prefix");
  }
  std::string_view rest = url.substr(kScheme.size());
  size_t slash = rest.find('/');
  S3Url out;
  out.bucket = std::string(rest.substr(0, slash));
  if (out.bucket.empty() || out.bucket.find_first_of(" ?#\\:@") != std::string::npos) {
    return Status::InvalidArgument("malformed S3 URL \"" + std::string(url) +
                                   "\": expected s3://bucket/prefix with a valid bucket name");
  }
  std::string prefix = slash == std::string_view::npos ? "" : std::string(rest.substr(slash + 1));
  while (!prefix.empty() && prefix.front() == '/') prefix.erase(0, 1);
  while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
  if (prefix.find("//") != std::string::npos) {
    return Status::InvalidArgument("malformed S3 URL \"" + std::string(url) +
                                   "\": empty path segment in the prefix");
  }
  out.prefix = prefix.empty() ? "" : prefix + "/";
  LD_RETURN_IF_ERROR(CheckBucketName(out.bucket));
  return out;
}

Result<std::unique_ptr<ObjectStore>> OpenS3StoreWithTransport(
    std::string_view url, const StoreOptions& options, std::unique_ptr<HttpTransport> transport) {
  LD_ASSIGN_OR_RETURN(S3Url parsed, ParseS3Url(url));
  LD_ASSIGN_OR_RETURN(S3Config config, ResolveS3Config(options.s3));
  LD_RETURN_IF_ERROR(CheckAddressing(parsed.bucket, config));
  if (!transport) transport = NewCurlTransport(TransportOptions(options, config));
  return std::unique_ptr<ObjectStore>(std::make_unique<S3Store>(
      std::move(parsed), options, std::move(config), std::move(transport)));
}

Result<std::unique_ptr<ObjectStore>> OpenS3Store(std::string_view url,
                                                 const StoreOptions& options) {
  return OpenS3StoreWithTransport(url, options, nullptr);
}

namespace {

// A client for the listing and aborts of uploads under `parsed`'s bucket.
struct UploadClient {
  std::unique_ptr<HttpTransport> transport;
  std::unique_ptr<RetryPolicy> retry;
  std::unique_ptr<S3Client> client;
};

Result<UploadClient> OpenUploadClient(const S3Url& parsed, const StoreOptions& options) {
  LD_ASSIGN_OR_RETURN(S3Config config, ResolveS3Config(options.s3));
  LD_RETURN_IF_ERROR(CheckAddressing(parsed.bucket, config));
  UploadClient c;
  c.transport = NewCurlTransport(TransportOptions(options, config));
  c.retry = std::make_unique<RetryPolicy>(MakeRetryOptions(options.s3));
  c.client = std::make_unique<S3Client>(
      MakeClientOptions(parsed.bucket, std::move(config), options, 4), c.transport.get(),
      c.retry.get());
  return c;
}

}  // namespace

Result<std::vector<IncompleteUpload>> ListUploadsUnder(std::string_view url,
                                                       const StoreOptions& options) {
  LD_ASSIGN_OR_RETURN(S3Url parsed, ParseS3Url(url));
  LD_ASSIGN_OR_RETURN(UploadClient c, OpenUploadClient(parsed, options));
  std::vector<IncompleteUpload> out;
  std::string key_marker, id_marker;
  for (;;) {
    LD_ASSIGN_OR_RETURN(ListUploadsPage page, c.client->ListMultipartUploads(
                                                  parsed.prefix, key_marker, id_marker,
                                                  options.stop));
    for (MultipartUpload& u : page.uploads) {
      if (!u.key.starts_with(parsed.prefix)) continue;
      out.push_back({u.key.substr(parsed.prefix.size()), std::move(u.upload_id), u.initiated});
    }
    if (!page.truncated) break;
    if (page.next_key_marker == key_marker && page.next_upload_id_marker == id_marker) {
      return Status::Corruption("ListMultipartUploads does not advance its markers");
    }
    key_marker = page.next_key_marker;
    id_marker = page.next_upload_id_marker;
  }
  return out;
}

Status AbortUploadsUnder(std::string_view url, const StoreOptions& options,
                         const std::vector<IncompleteUpload>& uploads) {
  if (uploads.empty()) return Status::OK();
  LD_ASSIGN_OR_RETURN(S3Url parsed, ParseS3Url(url));
  LD_ASSIGN_OR_RETURN(UploadClient c, OpenUploadClient(parsed, options));
  for (const IncompleteUpload& u : uploads) {
    if (options.stop.stop_requested()) return Status::Cancelled("cancelled");
    LD_RETURN_IF_ERROR(c.client->AbortMultipartUpload(parsed.prefix + u.key, u.upload_id));
  }
  return Status::OK();
}

}  // namespace lakedump
