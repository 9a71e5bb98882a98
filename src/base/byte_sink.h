// ByteSink: where encoded bytes go (a file, an object upload, a memory buffer).
// The format layer writes into a ByteSink and never knows about stores.
// Not thread-safe: one producer.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"

namespace lakedump {

class ByteSink {
 public:
  virtual ~ByteSink() = default;
  // Appends bytes. An error is sticky: the sink is unusable afterwards.
  virtual Status Append(std::string_view data) = 0;
  // Total bytes accepted so far.
  virtual uint64_t bytes_written() const = 0;
  // A hint from the producer: a section that a reader reads on its own (a Parquet row group)
  // ends at bytes_written(). Sinks that checksum sections (ChecksumSink) close one; others
  // ignore it.
  virtual void MarkSectionEnd() {}
};

// Collects everything in memory. For tests and small metadata files.
class StringSink final : public ByteSink {
 public:
  Status Append(std::string_view data) override {
    buffer_.append(data);
    return Status::OK();
  }
  uint64_t bytes_written() const override { return buffer_.size(); }
  const std::string& str() const { return buffer_; }
  std::string& mutable_str() { return buffer_; }

 private:
  std::string buffer_;
};

}  // namespace lakedump
