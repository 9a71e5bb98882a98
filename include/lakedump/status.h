// Status and Result<T>: how every fallible call in lakedump reports failure.
// No exceptions cross a lakedump API. Both types are cheap to move and are
// [[nodiscard]]: ignoring one is a compile error under -Werror.
// Thread-safety: values; safe to pass between threads, not to share mutably.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace lakedump {

enum class Code : uint8_t {
  kOk,
  kInvalidArgument,  // bad usage or bad input data: fix the input
  kNotFound,
  kAlreadyExists,
  kPermissionDenied,
  kIOError,
  kUnavailable,  // transient: the same call may succeed if retried
  kCorruption,   // stored data is damaged or not what it claims to be
  kCancelled,
  kUnimplemented,
  kInternal,
};

std::string_view CodeName(Code code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  static Status OK() { return Status(); }
  static Status InvalidArgument(std::string msg) { return {Code::kInvalidArgument, std::move(msg)}; }
  static Status NotFound(std::string msg) { return {Code::kNotFound, std::move(msg)}; }
  static Status AlreadyExists(std::string msg) { return {Code::kAlreadyExists, std::move(msg)}; }
  static Status PermissionDenied(std::string msg) { return {Code::kPermissionDenied, std::move(msg)}; }
  static Status IOError(std::string msg) { return {Code::kIOError, std::move(msg)}; }
  static Status Unavailable(std::string msg) { return {Code::kUnavailable, std::move(msg)}; }
  static Status Corruption(std::string msg) { return {Code::kCorruption, std::move(msg)}; }
  static Status Cancelled(std::string msg) { return {Code::kCancelled, std::move(msg)}; }
  static Status Unimplemented(std::string msg) { return {Code::kUnimplemented, std::move(msg)}; }
  static Status Internal(std::string msg) { return {Code::kInternal, std::move(msg)}; }

  Status(Code code, std::string msg) : code_(code), message_(std::move(msg)) {}

  bool ok() const { return code_ == Code::kOk; }
  bool retryable() const { return code_ == Code::kUnavailable; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }

  // Returns a copy whose message starts with "context: ". OK stays OK.
  Status WithContext(std::string_view context) const;
  // "code: message", or "OK".
  std::string ToString() const;

  // Marks a deliberately ignored status (grep for it).
  void IgnoreError() const {}

 private:
  Code code_ = Code::kOk;
  std::string message_;
};

// A value or a non-OK Status.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {  // NOLINT: implicit by design
    if (status_.ok()) status_ = Status::Internal("Result constructed from OK status without value");
  }

  bool ok() const { return status_.ok(); }
  const Status& status() const& { return status_; }
  Status status() && { return std::move(status_); }

  // REQUIRES: ok()
  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T& operator*() & { return *value_; }
  const T& operator*() const& { return *value_; }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace lakedump

#define LD_CONCAT_INNER_(a, b) a##b
#define LD_CONCAT_(a, b) LD_CONCAT_INNER_(a, b)

#define LD_RETURN_IF_ERROR(expr)                     \
  do {                                               \
    ::lakedump::Status ld_status_ = (expr);          \
    if (!ld_status_.ok()) return ld_status_;         \
  } while (0)

#define LD_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                              \
  if (!tmp.ok()) return std::move(tmp).status();  \
  lhs = std::move(tmp).value()

#define LD_ASSIGN_OR_RETURN(lhs, expr) \
  LD_ASSIGN_OR_RETURN_IMPL_(LD_CONCAT_(ld_result_, __LINE__), lhs, expr)
