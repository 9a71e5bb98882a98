// Store wrappers for the tests of the commit point (lake/fenced_commit.h):
// - IgnoresConditionsStore: an S3 endpoint that accepts If-None-Match and If-Match and
//   ignores them (every write is a plain write; create_only_is_atomic() false).
// - DropsWritesStore: answers the write of one key with success and stores nothing (a 200
//   that never reached the disk).
// - HoldingStore: holds the Close() of the first writer of one key (a PUT cut off in the
//   network) until Release(); then the write goes on to the store, late.
// Header-only; each is as thread-safe as its target, which it borrows.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "fakes/sync.h"
#include "store/forwarding_store.h"

namespace lakedump {

class IgnoresConditionsStore final : public ForwardingStore {
 public:
  using ForwardingStore::ForwardingStore;
  Result<std::unique_ptr<ObjectWriter>> NewWriter(std::string_view key,
                                                  WriteOptions = {}) override {
    return target()->NewWriter(key, WriteOptions{});
  }
  bool create_only_is_atomic() const override { return false; }
};

class DropsWritesStore final : public ForwardingStore {
 public:
  DropsWritesStore(ObjectStore* target, std::string key)
      : ForwardingStore(target), key_(std::move(key)) {}
  Result<std::unique_ptr<ObjectWriter>> NewWriter(std::string_view key,
                                                  WriteOptions options = {}) override {
    if (key != key_) return target()->NewWriter(key, options);
    return MakeObjectWriter<Dropping>();
  }

 private:
  class Dropping : public ObjectWriter {
   public:
    Status Append(std::string_view data) override {
      bytes_ += data.size();
      return Status::OK();
    }
    uint64_t bytes_written() const override { return bytes_; }

   protected:
    Status DoClose() override { return Status::OK(); }
    void Abort() override {}

   private:
    uint64_t bytes_ = 0;
  };
  const std::string key_;
};

class HoldingStore final : public ForwardingStore {
 public:
  HoldingStore(ObjectStore* target, std::string key)
      : ForwardingStore(target), key_(std::move(key)) {}

  Result<std::unique_ptr<ObjectWriter>> NewWriter(std::string_view key,
                                                  WriteOptions options = {}) override {
    LD_ASSIGN_OR_RETURN(std::unique_ptr<ObjectWriter> w, target()->NewWriter(key, options));
    {
      std::lock_guard lock(mu_);
      if (key != key_ || used_) return w;
      used_ = true;
    }
    return MakeObjectWriter<Held>(std::move(w), this);
  }
  // Blocks until the held write has reached Close() (false after kEventLimit).
  bool WaitUntilHeld() {
    return event_.WaitUntil([this] { return held_; });
  }
  // Lets the held write go on to the store.
  void Release() {
    event_.Notify([this] { released_ = true; });
  }

 private:
  class Held : public ForwardingWriter {
   public:
    Held(std::unique_ptr<ObjectWriter> target, HoldingStore* store)
        : ForwardingWriter(std::move(target)), store_(store) {}

   protected:
    Status DoClose() override {
      store_->event_.Notify([this] { store_->held_ = true; });
      store_->event_.WaitUntil([this] { return store_->released_; });
      return ForwardingWriter::DoClose();
    }

   private:
    HoldingStore* const store_;
  };

  const std::string key_;
  std::mutex mu_;
  bool used_ = false;  // guarded by mu_
  Event event_;
  bool held_ = false;      // guarded by event_
  bool released_ = false;  // guarded by event_
};

}  // namespace lakedump
