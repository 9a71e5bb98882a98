// FaultInjectionStore: wraps another ObjectStore and fails chosen calls, for
// tests of failure paths ("the 3rd Append fails with IOError"). It also counts
// writers: opened, committed, and aborted (destroyed without a successful Close).
//
// Thread-safe. The wrapped store is borrowed and must outlive this store and
// every writer and reader it hands out.
#pragma once

#include <array>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "store/forwarding_store.h"

namespace lakedump {

enum class FaultPoint : uint8_t {
  kNewWriter,
  kAppend,  // ObjectWriter::Append
  kClose,   // ObjectWriter::Close
  kNewReader,
  kRead,  // ObjectReader::ReadAt
  kList,
  kHead,
  kDelete,
  kWriterAppend = kAppend,  // older spelling
};
inline constexpr size_t kFaultPointCount = 8;

class FaultInjectionStore final : public ForwardingStore {
 public:
  explicit FaultInjectionStore(ObjectStore* target) : ForwardingStore(target) {}

  // The nth call (1-based, counted from the store's creation) at `point` fails
  // with `status` instead of reaching the wrapped store. n = 0 never fails.
  // Replaces any earlier rule for `point`.
  void FailNth(FaultPoint point, int n, Status status);
  // The nth call at `point` and every later one fail.
  void FailFrom(FaultPoint point, int n, Status status);
  // Removes the rule for `point`.
  void Clear(FaultPoint point);
  // Every NewWriter for exactly `key` fails with `status` (nothing reaches the
  // wrapped store); counted at kNewWriter like any other call.
  void FailWritesTo(std::string key, Status status);

  // Calls made at `point` so far (failed ones included).
  int calls(FaultPoint point) const;
  int opened_writers() const;
  int committed_writers() const;
  // Writers destroyed without a successful Close() (an injected Close failure
  // counts: the wrapped writer is then destroyed unclosed and aborts).
  int aborted_writers() const;

  Result<std::unique_ptr<ObjectWriter>> NewWriter(std::string_view key,
                                                  WriteOptions options = {}) override;
  Result<std::unique_ptr<ObjectReader>> NewReader(std::string_view key) override;
  Result<std::vector<ObjectInfo>> List(std::string_view prefix) override;
  Result<ObjectInfo> Head(std::string_view key) override;
  Status Delete(std::span<const std::string> keys) override;
  // Reads through NewReader(), so that whole-object reads meet the read faults too.
  Result<WholeObject> ReadWhole(std::string_view key, std::optional<uint64_t> max_bytes) override {
    return ObjectStore::ReadWhole(key, max_bytes);
  }

 private:
  class Writer;
  class Reader;
  struct Rule {
    int n = 0;
    bool and_later = false;
    Status status;
  };
  // Counts a call at `point`; returns the status to fail it with, or OK.
  Status Hit(FaultPoint point);
  void WriterEnded(bool committed);

  mutable std::mutex mu_;
  std::array<int, kFaultPointCount> calls_{};                   // guarded by mu_
  std::array<std::optional<Rule>, kFaultPointCount> rules_{};  // guarded by mu_
  int opened_ = 0;                                             // guarded by mu_
  int committed_ = 0;                                          // guarded by mu_
  int aborted_ = 0;                                            // guarded by mu_
  std::optional<std::pair<std::string, Status>> failing_key_;  // guarded by mu_
};

}  // namespace lakedump
