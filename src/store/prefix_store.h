// PrefixStore: a folder of another store seen as a store of its own: every key is
// prefixed on the way in and the prefix removed from listings on the way out. Incremental
// dumps keep each increment in DEST/_increments/NNNNNN/ (docs/incremental.md) and write or
// read it through one of these, so the dump and load machinery work on it unchanged.
//
// Borrows the target, which must outlive it. Thread-safe when the target is.
#pragma once

#include <string>

#include "store/forwarding_store.h"

namespace lakedump {

class PrefixStore final : public ForwardingStore {
 public:
  // REQUIRES: prefix is empty or ends with '/'.
  PrefixStore(ObjectStore* target, std::string prefix)
      : ForwardingStore(target), prefix_(std::move(prefix)) {}

  // Every call that names a key; the rest (Stats, SyncWritten...) is forwarded as is.
  Result<std::unique_ptr<ObjectWriter>> NewWriter(std::string_view key,
                                                  WriteOptions options = {}) override {
    return target()->NewWriter(prefix_ + std::string(key), options);
  }
  Result<std::unique_ptr<ObjectReader>> NewReader(std::string_view key) override {
    return target()->NewReader(prefix_ + std::string(key));
  }
  Result<WholeObject> ReadWhole(std::string_view key, std::optional<uint64_t> max_bytes) override {
    return target()->ReadWhole(prefix_ + std::string(key), max_bytes);
  }
  Result<std::vector<ObjectInfo>> List(std::string_view prefix) override;
  Result<ObjectInfo> Head(std::string_view key) override;
  Status Delete(std::span<const std::string> keys) override;
  std::string Describe() const override;

 private:
  const std::string prefix_;
};

}  // namespace lakedump
