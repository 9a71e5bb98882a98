// MemoryStore: an ObjectStore in process memory, for tests and for the
// memory://name destinations that tests open through OpenStore().
//
// Objects become visible only when their writer's Close() returns OK; a writer
// destroyed without Close() is counted as aborted and leaves nothing. Keys
// follow the same rules as every store (ValidateObjectKey).
//
// Thread-safe (one mutex). Writers and readers are not thread-safe and must not
// outlive the store. Readers see a snapshot of the object taken at NewReader().
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "store/forwarding_store.h"
#include "store/object_store.h"

namespace lakedump {

class MemoryStore final : public ObjectStore {
 public:
  explicit MemoryStore(std::string name = "memory") : name_(std::move(name)) {}

  Result<std::unique_ptr<ObjectWriter>> NewWriter(std::string_view key,
                                                  WriteOptions options = {}) override;
  Result<std::unique_ptr<ObjectReader>> NewReader(std::string_view key) override;
  Result<std::vector<ObjectInfo>> List(std::string_view prefix) override;
  Result<ObjectInfo> Head(std::string_view key) override;
  Status Delete(std::span<const std::string> keys) override;
  std::string Describe() const override { return "memory://" + name_; }

  // For tests: every key, sorted.
  std::vector<std::string> Keys() const;
  // Writers destroyed without a successful Close().
  int aborted_writers() const;
  // Writers created and not yet closed or destroyed.
  int open_writers() const;
  // Writers whose Close() succeeded.
  int committed_writers() const;

 private:
  class Writer;
  // AlreadyExists (and nothing changed) when create_only and the key exists, or if_match
  // and the object is missing or has another ETag.
  Status Commit(std::string key, std::shared_ptr<const std::string> data,
                const WriteOptions& options);
  void WriterAborted();

  const std::string name_;
  mutable std::mutex mu_;
  // shared_ptr: a reader keeps reading the version it opened even if the
  // object is overwritten or deleted meanwhile.
  std::map<std::string, std::shared_ptr<const std::string>> objects_;  // guarded by mu_
  int open_ = 0;                                                       // guarded by mu_
  int aborted_ = 0;                                                    // guarded by mu_
  int committed_ = 0;                                                  // guarded by mu_
};

// The process-wide MemoryStore named `name`, created on first use; every
// memory://name destination opened by OpenStore() shares it. shared_ptr: the
// registry and each opener hold it. Thread-safe.
std::shared_ptr<MemoryStore> NamedMemoryStore(std::string_view name);
// Forgets every named store (tests call it between cases).
void ClearNamedMemoryStores();

// An ObjectStore that forwards to a shared store, which it keeps alive; what
// OpenStore("memory://x") returns. Thread-safe when the target is.
class SharedStoreRef final : public ForwardingStore {
 public:
  explicit SharedStoreRef(std::shared_ptr<ObjectStore> target)
      : ForwardingStore(target.get()), keep_alive_(std::move(target)) {}

 private:
  const std::shared_ptr<ObjectStore> keep_alive_;
};

}  // namespace lakedump
