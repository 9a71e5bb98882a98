// RowGroupJob: one row group of a ParquetWriter, from its column buffers
// (filled by the producer) to its encoded column chunks.
//
// Encoding runs in lanes. A running lane holds a ChunkEncoder (scratch
// buffers, dictionaries; taken from JobPool when the lane starts, given back
// when it ends, so there are only as many as lanes running at once) and takes
// columns from a shared cursor, largest first, until none is left; a row group's columns are thus encoded by as many threads as
// run its lanes, and a few heavy columns do not end up queued behind each
// other. Every chunk lands at its column's index whichever lane encoded it, so
// the bytes do not depend on the schedule.
//
// Ownership and threads: the writer owns a job (unique_ptr) and fills its
// buffers alone. Start() hands it to lanes; the pool tasks that run lanes hold
// the returned LaneTickets (shared_ptr), never the job itself: a task whose
// lane someone else claimed returns without touching the job, which may then
// have been recycled or freed. While lanes run, the writer touches nothing but
// Finish()/Abandon(), which return once every lane that started has ended;
// only then may it read the chunks, reset, recycle or destroy the job.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

#include "base/status.h"
#include "format/codec/codec.h"
#include "format/parquet/column_chunk.h"

namespace lakedump::parquet {

// What the lanes of every job of one writer share. Immutable once encoding starts.
struct EncodeContext {
  std::vector<ColumnSpec> specs;
  EncodeOptions encode;
  std::unique_ptr<lakedump::Codec> codec;  // null for uncompressed
};

class RowGroupJob;

// The claim flags of one Start() of a job, one per lane. Thread-safe.
class LaneTickets {
 public:
  LaneTickets(RowGroupJob* job, size_t lanes);
  // Claims lane `lane` and runs it, unless another thread claimed it first
  // (then returns at once without touching the job).
  void RunIfUnclaimed(size_t lane);
  // True for the single caller that claims the lane.
  bool Claim(size_t lane);
  size_t lanes() const { return lanes_; }

 private:
  RowGroupJob* const job_;
  const size_t lanes_;
  std::unique_ptr<std::atomic<bool>[]> claimed_;
};

class RowGroupJob {
 public:
  RowGroupJob() = default;
  RowGroupJob(const RowGroupJob&) = delete;
  RowGroupJob& operator=(const RowGroupJob&) = delete;

  // Producer side, before Start().
  std::vector<ColumnBuffer> columns;
  size_t rows = 0;
  size_t bytes = 0;  // buffered bytes when the row group was closed

  // Empties the buffers for a new row group of `ncols` columns (keeps capacity).
  // REQUIRES: no lane running (never started, or after Finish()/Abandon()).
  void Reset(size_t ncols);
  // Heap bytes held by buffers and chunks (what a recycled job retains).
  size_t CapacityBytes() const;

  // Prepares encoding of the buffered columns by `lanes` (>= 1) lanes and
  // returns their tickets, for pool tasks to call RunIfUnclaimed(i).
  // `context` must outlive Finish()/Abandon().
  std::shared_ptr<LaneTickets> Start(const EncodeContext& context, size_t lanes);
  // Runs every lane nobody claimed yet on the calling thread, then waits for
  // the lanes other threads run. After it, chunks() and status() are final.
  void Finish();
  // Stops early: unclaimed lanes are cancelled, running lanes take no new
  // column; waits for them. The chunks are then incomplete.
  void Abandon();

  // After Finish(): the error of the first failing column in column order
  // (named), as a serial encoder would have stopped at it; OK if none failed.
  Status status() const;
  const std::vector<EncodedChunk>& chunks() const { return chunks_; }

 private:
  friend class LaneTickets;
  void RunLane();
  void LaneEnded();
  void WaitLanes();

  std::vector<EncodedChunk> chunks_;
  std::vector<Status> statuses_;  // per column
  std::vector<size_t> order_;     // column indices, largest first
  const EncodeContext* context_ = nullptr;
  std::shared_ptr<LaneTickets> tickets_;
  size_t lanes_ = 0;
  std::atomic<size_t> next_{0};   // cursor into order_

  std::mutex mu_;
  std::condition_variable cv_;
  size_t lanes_ended_ = 0;  // GUARDED_BY(mu_)
};

// Process-wide free lists of idle jobs (finished writers') and idle chunk
// encoders, so the next row group or writer starts with warm buffers. Bounded:
// at most kMaxJobs jobs, kMaxEncoders encoders, and kMaxBytes of their
// capacity together; what does not fit is freed. Thread-safe.
class JobPool {
 public:
  static JobPool& Instance();

  // A recycled job, or null.
  std::unique_ptr<RowGroupJob> Take();
  // REQUIRES: no lane of the job is running.
  void Give(std::unique_ptr<RowGroupJob> job);
  // A recycled encoder, or a new one.
  std::unique_ptr<ChunkEncoder> TakeEncoder();
  void GiveEncoder(std::unique_ptr<ChunkEncoder> encoder);

 private:
  static constexpr size_t kMaxJobs = 8;
  static constexpr size_t kMaxEncoders = 8;
  static constexpr size_t kMaxBytes = size_t{256} << 20;

  std::mutex mu_;
  std::vector<std::pair<std::unique_ptr<RowGroupJob>, size_t>> jobs_;  // GUARDED_BY(mu_)
  std::vector<std::pair<std::unique_ptr<ChunkEncoder>, size_t>> encoders_;  // GUARDED_BY(mu_)
  size_t bytes_ = 0;  // GUARDED_BY(mu_)
};

}  // namespace lakedump::parquet
