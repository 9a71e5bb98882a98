// FaultFileOps: LocalFileOps that fail chosen system calls with a chosen errno
// (the 2nd fsync fails with EIO, rename fails with EXDEV, writes hit ENOSPC
// after N bytes), so LocalStore's failure paths run without a full disk or a
// non-root user. Calls that are not failed go to the real system calls.
// Thread-safe. Header-only.
#pragma once

#include <array>
#include <cerrno>
#include <cstdint>
#include <mutex>
#include <optional>

#include "store/local/local_file_ops.h"

namespace lakedump {

class FaultFileOps final : public LocalFileOps {
 public:
  enum class Op : uint8_t { kOpen, kWrite, kFsync, kRename, kMkdir, kSyncfs, kStartWriteback };

  // The nth call of `op` (1-based) fails with `err`; n = 0 never fails.
  void FailNth(Op op, int n, int err) { Set(op, n, false, err); }
  // The nth call of `op` and every later one fail with `err`.
  void FailFrom(Op op, int n, int err) { Set(op, n, true, err); }
  // After `bytes` bytes in total, writes are short and then fail with ENOSPC,
  // like a full disk.
  void SetWriteLimit(uint64_t bytes) {
    std::lock_guard lock(mu_);
    write_limit_ = bytes;
  }
  int calls(Op op) const {
    std::lock_guard lock(mu_);
    return calls_[static_cast<size_t>(op)];
  }

  int Open(const std::string& path, int flags, mode_t mode, int* fd) override {
    if (int err = Hit(Op::kOpen); err != 0) return err;
    return LocalFileOps::Open(path, flags, mode, fd);
  }
  int Write(int fd, const char* data, size_t size, size_t* written) override {
    if (int err = Hit(Op::kWrite); err != 0) return err;
    {
      std::lock_guard lock(mu_);
      if (write_limit_) {
        const uint64_t room = *write_limit_ > written_ ? *write_limit_ - written_ : 0;
        if (room == 0) return ENOSPC;
        if (size > room) size = room;
      }
    }
    const int err = LocalFileOps::Write(fd, data, size, written);
    if (err == 0) {
      std::lock_guard lock(mu_);
      written_ += *written;
    }
    return err;
  }
  int Fsync(int fd) override {
    if (int err = Hit(Op::kFsync); err != 0) return err;
    return LocalFileOps::Fsync(fd);
  }
  int Rename(const std::string& from, const std::string& to) override {
    if (int err = Hit(Op::kRename); err != 0) return err;
    return LocalFileOps::Rename(from, to);
  }
  int Mkdir(const std::string& path, mode_t mode) override {
    if (int err = Hit(Op::kMkdir); err != 0) return err;
    return LocalFileOps::Mkdir(path, mode);
  }
  int Syncfs(int fd) override {
    if (int err = Hit(Op::kSyncfs); err != 0) return err;
    return LocalFileOps::Syncfs(fd);
  }
  int StartWriteback(int fd, off_t offset, off_t size) override {
    if (int err = Hit(Op::kStartWriteback); err != 0) return err;
    return LocalFileOps::StartWriteback(fd, offset, size);
  }

 private:
  struct Rule {
    int n = 0;
    bool and_later = false;
    int err = 0;
  };
  void Set(Op op, int n, bool and_later, int err) {
    std::lock_guard lock(mu_);
    rules_[static_cast<size_t>(op)] = Rule{n, and_later, err};
  }
  int Hit(Op op) {
    std::lock_guard lock(mu_);
    const size_t i = static_cast<size_t>(op);
    const int call = ++calls_[i];
    const auto& rule = rules_[i];
    if (!rule || rule->n <= 0) return 0;
    return call == rule->n || (rule->and_later && call > rule->n) ? rule->err : 0;
  }

  mutable std::mutex mu_;
  std::array<int, 7> calls_{};                   // guarded by mu_
  std::array<std::optional<Rule>, 7> rules_{};  // guarded by mu_
  std::optional<uint64_t> write_limit_;         // guarded by mu_
  uint64_t written_ = 0;                        // guarded by mu_
};

}  // namespace lakedump
