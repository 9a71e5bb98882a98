#include "format/parquet/row_group_job.h"

#include <algorithm>

#include <fmt/format.h>

namespace lakedump::parquet {
namespace {

// A rough guess of a column's encoding time, to start the heaviest first. Bytes
// dominate (hashing into the dictionary, copying, compressing); variable-length
// values cost a little more per byte than their size says (offsets, hashing a
// string rather than a word).
size_t EstimatedCost(const ColumnBuffer& b) {
  return b.data.size() + b.validity.size() / 4 + 2 * b.arena.size() + 8 * (b.offsets.size() - 1);
}

}  // namespace

LaneTickets::LaneTickets(RowGroupJob* job, size_t lanes)
    : job_(job), lanes_(lanes), claimed_(new std::atomic<bool>[lanes]) {
  for (size_t i = 0; i < lanes; ++i) claimed_[i].store(false, std::memory_order_relaxed);
}

bool LaneTickets::Claim(size_t lane) {
  return !claimed_[lane].exchange(true, std::memory_order_acq_rel);
}

void LaneTickets::RunIfUnclaimed(size_t lane) {
  if (Claim(lane)) job_->RunLane();
}

void RowGroupJob::Reset(size_t ncols) {
  columns.resize(ncols);
  for (auto& c : columns) c.Clear();
  chunks_.resize(ncols);
  statuses_.assign(ncols, Status::OK());
  rows = 0;
  bytes = 0;
  tickets_.reset();
  lanes_ = 0;
}

size_t RowGroupJob::CapacityBytes() const {
  size_t n = 0;
  for (const auto& c : columns) n += c.CapacityBytes();
  for (const auto& c : chunks_) n += c.bytes.capacity();
  return n;
}

std::shared_ptr<LaneTickets> RowGroupJob::Start(const EncodeContext& context, size_t lanes) {
  lanes = std::max<size_t>(1, lanes);
  context_ = &context;
  const size_t ncols = columns.size();
  chunks_.resize(ncols);
  statuses_.assign(ncols, Status::OK());
  order_.resize(ncols);
  for (size_t i = 0; i < ncols; ++i) order_[i] = i;
  if (lanes > 1) {
    std::vector<size_t> cost(ncols);
    for (size_t i = 0; i < ncols; ++i) cost[i] = EstimatedCost(columns[i]);
    std::stable_sort(order_.begin(), order_.end(),
                     [&](size_t a, size_t b) { return cost[a] > cost[b]; });
  }
  lanes_ = lanes;
  next_.store(0, std::memory_order_relaxed);
  {
    std::lock_guard<std::mutex> lock(mu_);
    lanes_ended_ = 0;
  }
  tickets_ = std::make_shared<LaneTickets>(this, lanes);
  return tickets_;
}

void RowGroupJob::RunLane() {
  const EncodeContext& ctx = *context_;
  size_t k = next_.fetch_add(1);
  if (k < order_.size()) {
    std::unique_ptr<ChunkEncoder> encoder = JobPool::Instance().TakeEncoder();
    for (; k < order_.size(); k = next_.fetch_add(1)) {
      const size_t c = order_[k];
      Status s =
          encoder->Encode(ctx.specs[c], columns[c], ctx.encode, ctx.codec.get(), &chunks_[c]);
      if (!s.ok()) statuses_[c] = s.WithContext(fmt::format("column \"{}\"", ctx.specs[c].name));
    }
    JobPool::Instance().GiveEncoder(std::move(encoder));
  }
  LaneEnded();
}

void RowGroupJob::LaneEnded() {
  // Notifying under the lock: once the waiter sees the last lane end, this
  // thread no longer touches the job (the writer may free it right away).
  std::lock_guard<std::mutex> lock(mu_);
  if (++lanes_ended_ == lanes_) cv_.notify_all();
}

void RowGroupJob::WaitLanes() {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return lanes_ended_ == lanes_; });
}

void RowGroupJob::Finish() {
  if (!tickets_) return;
  for (size_t i = 0; i < lanes_; ++i) {
    if (tickets_->Claim(i)) RunLane();
  }
  WaitLanes();
  tickets_.reset();
}

void RowGroupJob::Abandon() {
  if (!tickets_) return;
  next_.store(order_.size());  // running lanes take no further column
  for (size_t i = 0; i < lanes_; ++i) {
    if (tickets_->Claim(i)) LaneEnded();
  }
  WaitLanes();
  tickets_.reset();
}

Status RowGroupJob::status() const {
  for (const Status& s : statuses_) {
    if (!s.ok()) return s;
  }
  return Status::OK();
}

JobPool& JobPool::Instance() {
  static JobPool pool;
  return pool;
}

std::unique_ptr<RowGroupJob> JobPool::Take() {
  std::lock_guard<std::mutex> lock(mu_);
  if (jobs_.empty()) return nullptr;
  std::unique_ptr<RowGroupJob> job = std::move(jobs_.back().first);
  bytes_ -= jobs_.back().second;
  jobs_.pop_back();
  return job;
}

std::unique_ptr<ChunkEncoder> JobPool::TakeEncoder() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!encoders_.empty()) {
      std::unique_ptr<ChunkEncoder> encoder = std::move(encoders_.back().first);
      bytes_ -= encoders_.back().second;
      encoders_.pop_back();
      return encoder;
    }
  }
  return std::make_unique<ChunkEncoder>();
}

void JobPool::GiveEncoder(std::unique_ptr<ChunkEncoder> encoder) {
  const size_t bytes = encoder->CapacityBytes();
  std::lock_guard<std::mutex> lock(mu_);
  if (encoders_.size() >= kMaxEncoders || bytes_ + bytes > kMaxBytes) return;  // freed on return
  bytes_ += bytes;
  encoders_.emplace_back(std::move(encoder), bytes);
}

void JobPool::Give(std::unique_ptr<RowGroupJob> job) {
  const size_t bytes = job->CapacityBytes();
  std::lock_guard<std::mutex> lock(mu_);
  if (jobs_.size() >= kMaxJobs || bytes_ + bytes > kMaxBytes) return;  // freed on return
  bytes_ += bytes;
  jobs_.emplace_back(std::move(job), bytes);
}

}  // namespace lakedump::parquet
