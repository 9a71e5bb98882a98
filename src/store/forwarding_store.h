// The bases of the store seam's wrappers, like leveldb's EnvWrapper: ForwardingStore,
// ForwardingReader and ForwardingWriter forward every virtual to a target, so that a
// wrapper (a key prefix, fault injection, counting) overrides only what it changes.
// A virtual added to ObjectStore, ObjectReader or ObjectWriter is forwarded by one edit
// here, not one per wrapper.
//
// Each is as thread-safe as its target (stores: thread-safe; readers, writers: one owner).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "store/object_store.h"

namespace lakedump {

// Borrows the target, which must outlive this store and what it hands out. A wrapper that
// must keep its target alive holds it beside this base (SharedStoreRef).
class ForwardingStore : public ObjectStore {
 public:
  explicit ForwardingStore(ObjectStore* target) : target_(target) {}
  ForwardingStore(const ForwardingStore&) = delete;
  ForwardingStore& operator=(const ForwardingStore&) = delete;

  ObjectStore* target() const { return target_; }

  Result<std::unique_ptr<ObjectWriter>> NewWriter(std::string_view key,
                                                  WriteOptions options = {}) override {
    return target_->NewWriter(key, options);
  }
  Result<std::unique_ptr<ObjectReader>> NewReader(std::string_view key) override {
    return target_->NewReader(key);
  }
  Result<std::vector<ObjectInfo>> List(std::string_view prefix) override {
    return target_->List(prefix);
  }
  Result<ObjectInfo> Head(std::string_view key) override { return target_->Head(key); }
  Status Delete(std::span<const std::string> keys) override { return target_->Delete(keys); }
  std::string Describe() const override { return target_->Describe(); }
  StoreStats Stats() const override { return target_->Stats(); }
  Status SyncWritten() override { return target_->SyncWritten(); }
  bool create_only_is_atomic() const override { return target_->create_only_is_atomic(); }
  // Forwarded whole: a wrapper that watches or fails reads overrides it too (or calls
  // ObjectStore::ReadWhole, which reads through its own NewReader).
  Result<WholeObject> ReadWhole(std::string_view key, std::optional<uint64_t> max_bytes) override {
    return target_->ReadWhole(key, max_bytes);
  }

 private:
  ObjectStore* const target_;
};

// Borrows its target, or owns it when given a unique_ptr.
class ForwardingReader : public ObjectReader {
 public:
  explicit ForwardingReader(ObjectReader* target) : target_(target) {}
  explicit ForwardingReader(std::unique_ptr<ObjectReader> target)
      : owned_(std::move(target)), target_(owned_.get()) {}
  ForwardingReader(const ForwardingReader&) = delete;
  ForwardingReader& operator=(const ForwardingReader&) = delete;

  uint64_t size() const override { return target_->size(); }
  Status ReadAt(uint64_t offset, uint64_t length, std::string* out) override {
    return target_->ReadAt(offset, length, out);
  }

 protected:
  ObjectReader* target() const { return target_; }

 private:
  std::unique_ptr<ObjectReader> owned_;  // null when the target is borrowed
  ObjectReader* const target_;
};

// Owns the target writer. Close() closes it; a wrapper destroyed unclosed aborts it by
// destroying it (Abort()), before the wrapper's own destructor runs. Like every writer, a
// concrete wrapper is created with MakeObjectWriter<Wrapper>(...).
class ForwardingWriter : public ObjectWriter {
 public:
  explicit ForwardingWriter(std::unique_ptr<ObjectWriter> target) : target_(std::move(target)) {}

  Status Append(std::string_view data) override { return target_->Append(data); }
  uint64_t bytes_written() const override { return target_->bytes_written(); }
  void MarkSectionEnd() override { target_->MarkSectionEnd(); }

 protected:
  ObjectWriter& target() { return *target_; }
  Status DoClose() override { return target_->Close(); }
  void Abort() override { target_.reset(); }  // the target aborts itself

 private:
  std::unique_ptr<ObjectWriter> target_;  // null once aborted
};

}  // namespace lakedump
