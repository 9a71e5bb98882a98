// HashingSink: forwards bytes to another ByteSink while computing their
// XXH64 (seed 0) and counting them: the per-file checksum of the manifest.
// Borrows the target. Not thread-safe.
#pragma once

#include <xxhash.h>

#include <fmt/format.h>

#include <memory>
#include <string>

#include "base/byte_sink.h"

namespace lakedump {

class HashingSink final : public ByteSink {
 public:
  explicit HashingSink(ByteSink* target) : target_(target), state_(XXH64_createState()) {
    XXH64_reset(state_.get(), 0);
  }
  Status Append(std::string_view data) override {
    XXH64_update(state_.get(), data.data(), data.size());
    bytes_ += data.size();
    return target_->Append(data);
  }
  uint64_t bytes_written() const override { return bytes_; }
  // 16 lower-case hex digits.
  std::string HexDigest() const { return fmt::format("{:016x}", XXH64_digest(state_.get())); }

 private:
  struct Free {
    void operator()(XXH64_state_t* s) const { XXH64_freeState(s); }
  };
  ByteSink* target_;
  std::unique_ptr<XXH64_state_t, Free> state_;
  uint64_t bytes_ = 0;
};

// XXH64 of a whole object, read back in chunks (for resume).
Result<std::string> HashObject(class ObjectReader& reader, uint64_t size);

}  // namespace lakedump
