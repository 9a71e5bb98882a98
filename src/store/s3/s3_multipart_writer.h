// S3MultipartWriter: an ObjectWriter that streams one S3 object. Bytes are
// buffered into part buffers (from a PartBufferPool, each reserved from a
// MemoryBudget before it is filled, so a full budget blocks the producer).
// An object smaller than one part is one PutObject at Close(); a larger one is
// a multipart upload with at most `upload_parallelism` parts in flight on the
// upload pool (0 = each part is uploaded inline, before Append returns).
// With upload_parallelism > 0 CreateMultipartUpload runs in the first part's
// upload task, so the producer never waits for it (the other parts' tasks wait
// for its upload id); at 0 it is sent inline before the first part.
// Close() waits for the parts, completes, and HEADs to confirm the size.
// Failure, cancellation, or destruction without a successful Close() waits for
// the parts in flight, then sends AbortMultipartUpload.
//
// Not thread-safe (one producer). Borrows the client, pools and budget: they
// must outlive the writer. Append/Close/destructor must not run on a thread
// of the upload pool.
#pragma once

#include <cstdint>
#include <future>
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "base/memory_budget.h"
#include "base/thread_pool.h"
#include "store/object_store.h"
#include "store/s3/part_buffer_pool.h"
#include "store/s3/s3_client.h"

namespace lakedump {

inline constexpr uint64_t kDefaultPartSize = 8ull << 20;
inline constexpr uint64_t kMinPartSize = 5ull << 20;
inline constexpr uint64_t kMaxPartSize = 5ull << 30;
inline constexpr int kMaxParts = 10000;
// Without equal_parts the part size doubles every this many parts, so a stream
// of unknown length never needs more than kMaxParts parts.
inline constexpr int kPartsPerSizeStep = 1000;

struct MultipartWriterOptions {
  uint64_t part_size = kDefaultPartSize;
  int upload_parallelism = 4;
  bool equal_parts = false;
  std::stop_token stop;  // cancels the upload (then the writer aborts)
  // WriteOptions::create_only and if_match: the single PutObject of an object smaller than
  // one part is conditional (If-None-Match: *, If-Match), and so is the completion of a
  // multipart one (AWS S3 honours conditions there; where an endpoint does not, the caller's
  // read-back decides, see lake/fenced_commit.h).
  WriteOptions conditions;
  // Counts uploads this writer could not abort (StoreStats::unaborted_uploads); may be null.
  std::atomic<uint64_t>* unaborted = nullptr;
};

// The size of part `part_number` (1-based) for a base part size.
uint64_t PartSizeFor(uint64_t base, int part_number, bool equal_parts);

class S3MultipartWriter : public ObjectWriter {
 public:
  S3MultipartWriter(S3Client* client, ThreadPool* upload_pool, PartBufferPool* buffers,
                    MemoryBudget* budget, std::string key, MultipartWriterOptions options);
  ~S3MultipartWriter() override;

  Status Append(std::string_view data) override;
  uint64_t bytes_written() const override { return bytes_written_; }

  int parts() const { return next_part_ - 1; }
  // The multipart upload's id ("" before the first part, or when creating it
  // failed); waits for the first part's task to create it.
  std::string upload_id() const;

 protected:
  Status DoClose() override;
  // Unless the upload completed: waits for the parts in flight, then aborts the upload.
  void Abort() override;

 private:
  struct Part {
    PartBuffer buffer;
    BudgetLease lease;
  };

  Status StartPart();  // reserves budget, takes a buffer
  Status FlushPart();  // hands current_ to the upload
  Result<std::string> CreateUpload();  // CreateMultipartUpload, not cancellable
  Status UploadPart(int number, const std::string& upload_id, Part part, std::stop_token stop);
  // After the part tasks settled: takes the upload id from the first task.
  void ResolveUploadId();
  Status Fail(Status s);  // sticky error; aborts
  void AbortUpload();

  S3Client* const client_;
  ThreadPool* const upload_pool_;
  PartBufferPool* const buffers_;
  MemoryBudget* const budget_;
  const std::string key_;
  const MultipartWriterOptions options_;

  // Owning thread only.
  std::optional<Part> current_;
  int next_part_ = 1;
  uint64_t bytes_written_ = 0;
  std::string upload_id_;
  bool multipart_ = false;  // a part was flushed: this is a multipart upload
  // Set by the first part's task (upload_parallelism > 0); read by the others.
  std::shared_future<Result<std::string>> upload_id_future_;
  Status status_;
  bool closed_ = false;  // the object is complete (a failed HEAD may still fail Close())
  bool aborted_ = false;
  std::unique_ptr<TaskGroup> uploads_;  // when upload_parallelism > 0

  std::mutex mu_;
  std::vector<UploadedPart> etags_;  // GUARDED_BY(mu_); etags_[i] is part i+1
};

}  // namespace lakedump
