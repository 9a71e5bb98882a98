#include "store/s3/s3_multipart_writer.h"

#include <algorithm>
#include <cstring>

#include "base/units.h"

namespace lakedump {
namespace {

// The first part's task sets the upload id; a task skipped because the upload
// was cancelled before it started sets Cancelled instead (when it is destroyed),
// so nobody waits on a broken promise.
struct UploadIdPromise {
  std::promise<Result<std::string>> promise;
  bool set = false;
  void Set(Result<std::string> id) {
    promise.set_value(std::move(id));
    set = true;
  }
  ~UploadIdPromise() {
    if (!set) promise.set_value(Status::Cancelled("multipart upload not created"));
  }
};

}  // namespace

uint64_t PartSizeFor(uint64_t base, int part_number, bool equal_parts) {
  base = std::clamp(base, kMinPartSize, kMaxPartSize);
  if (equal_parts) return base;
  int doublings = std::min((part_number - 1) / kPartsPerSizeStep, 20);
  uint64_t size = base;
  for (int i = 0; i < doublings && size < kMaxPartSize; ++i) size *= 2;
  return std::min(size, kMaxPartSize);
}

S3MultipartWriter::S3MultipartWriter(S3Client* client, ThreadPool* upload_pool,
                                     PartBufferPool* buffers, MemoryBudget* budget, std::string key,
                                     MultipartWriterOptions options)
    : client_(client),
      upload_pool_(upload_pool),
      buffers_(buffers),
      budget_(budget),
      key_(std::move(key)),
      options_(std::move(options)) {}

S3MultipartWriter::~S3MultipartWriter() {
  if (current_) buffers_->Put(std::move(current_->buffer));
}

void S3MultipartWriter::Abort() {
  if (closed_) return;
  if (status_.ok()) status_ = Status::Cancelled("writer destroyed before Close");
  AbortUpload();
}

Status S3MultipartWriter::StartPart() {
  if (next_part_ > kMaxParts) {
    return Status::InvalidArgument(
        "s3://" + client_->bucket() + "/" + key_ + " needs more than " + std::to_string(kMaxParts) +
        " parts of " +
        FormatBytes(PartSizeFor(options_.part_size, next_part_, options_.equal_parts)) +
        ": use a larger --part-size");
  }
  uint64_t size = PartSizeFor(options_.part_size, next_part_, options_.equal_parts);
  Part part;
  if (budget_ != nullptr) {
    LD_RETURN_IF_ERROR(budget_->Acquire(size, options_.stop));
    part.lease = BudgetLease(budget_, size);
  }
  part.buffer = buffers_->Get(size);
  current_.emplace(std::move(part));
  return Status::OK();
}

Status S3MultipartWriter::Append(std::string_view data) {
  if (closed_) return Status::InvalidArgument("Append after Close on s3 object " + key_);
  if (!status_.ok()) return status_;
  bytes_written_ += data.size();
  while (!data.empty()) {
    if (options_.stop.stop_requested()) return Fail(Status::Cancelled("upload of " + key_));
    // A full part is sent only once more bytes arrive, so an object of exactly
    // one part is a single PutObject and the last part is never empty.
    if (current_ && current_->buffer.room() == 0) {
      Status s = FlushPart();
      if (!s.ok()) return Fail(s);
    }
    if (!current_) {
      Status s = StartPart();
      if (!s.ok()) return Fail(s);
    }
    PartBuffer& b = current_->buffer;
    size_t n = std::min(b.room(), data.size());
    std::memcpy(b.data.get() + b.size, data.data(), n);
    b.size += n;
    data.remove_prefix(n);
  }
  return Status::OK();
}

Result<std::string> S3MultipartWriter::CreateUpload() {
  // Never cancelled midway: a CreateMultipartUpload the server received but whose reply was
  // cut off by a cancellation would leave an upload nobody knows the id of, so nobody aborts
  // (it holds no data, but stays listed until gc). Awaited instead (one small request, bounded
  // by the client's timeouts and attempts), its upload is then aborted as any other.
  return client_->CreateMultipartUpload(key_, std::stop_token());
}

Status S3MultipartWriter::UploadPart(int number, const std::string& upload_id, Part part,
                                     std::stop_token stop) {
  Result<UploadedPart> etag =
      client_->UploadPart(key_, upload_id, number, part.buffer.view(), stop);
  buffers_->Put(std::move(part.buffer));
  part.lease.Reset();
  if (!etag.ok()) return etag.status();
  std::lock_guard<std::mutex> lock(mu_);
  etags_[static_cast<size_t>(number - 1)] = std::move(*etag);
  return Status::OK();
}

Status S3MultipartWriter::FlushPart() {
  multipart_ = true;
  const int number = next_part_++;
  {
    std::lock_guard<std::mutex> lock(mu_);
    etags_.resize(static_cast<size_t>(number));
  }
  Part part = std::move(*current_);
  current_.reset();
  if (options_.upload_parallelism <= 0) {
    if (upload_id_.empty()) {
      // Not cancellable (see CreateUpload).
      Result<std::string> id = CreateUpload();
      if (!id.ok()) {
        buffers_->Put(std::move(part.buffer));
        return id.status();
      }
      upload_id_ = std::move(*id);
    }
    return UploadPart(number, upload_id_, std::move(part), options_.stop);
  }

  if (!uploads_) {
    uploads_ = std::make_unique<TaskGroup>(
        upload_pool_, static_cast<size_t>(options_.upload_parallelism), options_.stop);
  }
  // std::function needs a copyable callable: the part travels in a shared_ptr.
  auto shared = std::make_shared<Part>(std::move(part));
  bool spawned = false;
  if (number == 1) {
    // The first task creates the upload: the producer goes on encoding meanwhile.
    // The pool is FIFO, so this task starts before any task that waits for its id.
    auto promise = std::make_shared<UploadIdPromise>();
    upload_id_future_ = promise->promise.get_future().share();
    spawned = uploads_->Spawn([this, shared, promise](std::stop_token stop) {
      Result<std::string> id = CreateUpload();
      promise->Set(id);
      if (!id.ok() || stop.stop_requested()) {
        buffers_->Put(std::move(shared->buffer));
        return id.ok() ? Status::Cancelled("upload of " + key_) : id.status();
      }
      return UploadPart(1, *id, std::move(*shared), stop);
    });
    if (!spawned) upload_id_future_ = {};  // nobody will set it
  } else {
    std::shared_future<Result<std::string>> id = upload_id_future_;
    spawned = uploads_->Spawn([this, number, shared, id](std::stop_token stop) {
      const Result<std::string>& upload_id = id.get();
      if (!upload_id.ok()) {  // the first task reports the error
        buffers_->Put(std::move(shared->buffer));
        return Status::Cancelled("upload of " + key_);
      }
      return UploadPart(number, *upload_id, std::move(*shared), stop);
    });
  }
  if (!spawned) {
    buffers_->Put(std::move(shared->buffer));
    Status s = uploads_->Wait();
    ResolveUploadId();
    return s.ok() ? Status::Cancelled("upload of " + key_) : s;
  }
  return Status::OK();
}

std::string S3MultipartWriter::upload_id() const {
  if (!upload_id_future_.valid()) return upload_id_;
  const Result<std::string>& id = upload_id_future_.get();
  return id.ok() ? *id : std::string();
}

void S3MultipartWriter::ResolveUploadId() {
  if (!upload_id_future_.valid()) return;
  const Result<std::string>& id = upload_id_future_.get();
  if (id.ok()) upload_id_ = *id;
  upload_id_future_ = {};
}

Status S3MultipartWriter::DoClose() {
  if (closed_) return Status::OK();
  if (!status_.ok()) return status_;
  const std::string location = "s3://" + client_->bucket() + "/" + key_;
  if (!multipart_) {
    std::string_view body = current_ ? current_->buffer.view() : std::string_view();
    Status s = client_->PutObject(key_, body, options_.stop, options_.conditions);
    if (current_) {
      buffers_->Put(std::move(current_->buffer));
      current_.reset();
    }
    if (!s.ok()) return Fail(s);
    closed_ = true;
    return Status::OK();
  }
  if (current_ && current_->buffer.size > 0) {
    Status s = FlushPart();
    if (!s.ok()) return Fail(s);
  }
  if (uploads_) {
    Status s = uploads_->Wait();
    ResolveUploadId();
    if (!s.ok()) return Fail(s);
  }
  if (upload_id_.empty()) return Fail(Status::Internal("no upload id for " + location));
  std::vector<UploadedPart> etags;
  {
    std::lock_guard<std::mutex> lock(mu_);
    etags = etags_;
  }
  Status s = client_->CompleteMultipartUpload(key_, upload_id_, etags, bytes_written_,
                                             options_.stop, options_.conditions);
  if (!s.ok()) return Fail(s);
  closed_ = true;  // the upload is complete: nothing left to abort
  // Some servers (radosgw) return an empty ETag on Complete: HEAD confirms.
  Result<ObjectHead> head = client_->HeadObject(key_, options_.stop);
  if (!head.ok()) {
    status_ = head.status().WithContext("confirming " + location);
    return status_;
  }
  if (head->size != bytes_written_) {
    client_->DeleteObjects({key_}).IgnoreError();
    status_ = Status::Corruption(location + " has " + std::to_string(head->size) +
                                 " bytes after upload, expected " + std::to_string(bytes_written_) +
                                 ": deleted it");
    return status_;
  }
  return Status::OK();
}

Status S3MultipartWriter::Fail(Status s) {
  status_ = std::move(s);
  AbortUpload();
  return status_;
}

void S3MultipartWriter::AbortUpload() {
  if (aborted_) return;
  aborted_ = true;
  if (uploads_) {
    uploads_->Cancel();              // in-flight transfers stop at their next callback
    uploads_->Wait().IgnoreError();  // parts settle before the abort
  }
  ResolveUploadId();
  if (current_) {
    buffers_->Put(std::move(current_->buffer));
    current_.reset();
  }
  if (upload_id_.empty()) return;
  Status s = client_->AbortMultipartUpload(key_, upload_id_);
  if (!s.ok()) {
    if (options_.unaborted != nullptr) options_.unaborted->fetch_add(1);
    status_ = Status(status_.code(), status_.message() + "; AbortMultipartUpload also failed (" +
                                         s.message() + "): run lakedump gc on the prefix");
  }
}

}  // namespace lakedump
