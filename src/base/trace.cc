#include "base/trace.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace lakedump {

TraceRecorder::TraceRecorder()
    : origin_(std::chrono::steady_clock::now()), origin_wall_(std::chrono::system_clock::now()) {}

int TraceRecorder::ThreadIdLocked() {
  auto [it, inserted] = tids_.emplace(std::this_thread::get_id(), static_cast<int>(tids_.size()));
  return it->second;
}

void TraceRecorder::AddSpan(std::string name, std::string category,
                            std::chrono::steady_clock::time_point begin,
                            std::chrono::steady_clock::time_point end, nlohmann::json args) {
  using std::chrono::duration_cast;
  using std::chrono::microseconds;
  nlohmann::json e = {{"name", std::move(name)},
                      {"cat", std::move(category)},
                      {"ph", "X"},
                      {"ts", duration_cast<microseconds>(begin - origin_).count()},
                      {"dur", duration_cast<microseconds>(end - begin).count()},
                      {"pid", 1}};
  if (!args.is_null() && !args.empty()) e["args"] = std::move(args);
  std::lock_guard<std::mutex> lock(mu_);
  e["tid"] = ThreadIdLocked();
  events_.push_back(std::move(e));
}

nlohmann::json TraceRecorder::ToJson() const {
  std::lock_guard<std::mutex> lock(mu_);
  nlohmann::json events = nlohmann::json::array();
  for (const auto& [id, tid] : tids_) {
    events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", 1}, {"tid", tid},
                      {"args", {{"name", tid == 0 ? "main" : fmt::format("worker {}", tid)}}}});
  }
  for (const auto& e : events_) events.push_back(e);
  const int64_t origin_us = std::chrono::duration_cast<std::chrono::microseconds>(
                                origin_wall_.time_since_epoch())
                                .count();
  return {{"traceEvents", std::move(events)},
          {"displayTimeUnit", "ms"},
          {"otherData", {{"origin_unix_us", origin_us}}}};
}

Status TraceRecorder::WriteFile(const std::string& path) const {
  const std::string text = ToJson().dump();
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) {
    return Status::IOError(fmt::format("--trace {}: {}", path, std::strerror(errno)));
  }
  const size_t n = std::fwrite(text.data(), 1, text.size(), f);
  const int rc = std::fclose(f);
  if (n != text.size() || rc != 0) {
    return Status::IOError(fmt::format("--trace {}: write failed", path));
  }
  return Status::OK();
}

}  // namespace lakedump
