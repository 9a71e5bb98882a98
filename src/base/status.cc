#include "base/status.h"

namespace lakedump {

std::string_view CodeName(Code code) {
  switch (code) {
    case Code::kOk: return "OK";
    case Code::kInvalidArgument: return "invalid argument";
    case Code::kNotFound: return "not found";
    case Code::kAlreadyExists: return "already exists";
    case Code::kPermissionDenied: return "permission denied";
    case Code::kIOError: return "I/O error";
    case Code::kUnavailable: return "unavailable";
    case Code::kCorruption: return "corruption";
    case Code::kCancelled: return "cancelled";
    case Code::kUnimplemented: return "unimplemented";
    case Code::kInternal: return "internal error";
  }
  return "unknown";
}

Status Status::WithContext(std::string_view context) const {
  if (ok()) return *this;
  std::string msg;
  msg.reserve(context.size() + 2 + message_.size());
  msg.append(context).append(": ").append(message_);
  return Status(code_, std::move(msg));
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  std::string s(CodeName(code_));
  s.append(": ").append(message_);
  return s;
}

}  // namespace lakedump
