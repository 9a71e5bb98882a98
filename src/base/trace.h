// TraceRecorder: collects complete ("X") spans and writes them as Chrome
// trace-event JSON ({"traceEvents":[...]}) that chrome://tracing and Perfetto
// open. Each thread gets a small tid so the table pool's parallelism shows as
// lanes. Thread-safe (one mutex); spans are recorded when they end. The trace
// records when it began ("otherData": {"origin_unix_us": ...}), so that the
// traces of several processes (a sharded dump's coordinator and workers) can be
// laid on one time line.
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"

namespace lakedump {

class TraceRecorder {
 public:
  TraceRecorder();
  void AddSpan(std::string name, std::string category, std::chrono::steady_clock::time_point begin,
               std::chrono::steady_clock::time_point end, nlohmann::json args = {});
  nlohmann::json ToJson() const;
  Status WriteFile(const std::string& path) const;

 private:
  int ThreadIdLocked();

  const std::chrono::steady_clock::time_point origin_;
  const std::chrono::system_clock::time_point origin_wall_;
  mutable std::mutex mu_;
  std::map<std::thread::id, int> tids_;  // GUARDED_BY(mu_)
  std::vector<nlohmann::json> events_;   // GUARDED_BY(mu_)
};

// Records a span from construction to destruction; a null recorder records nothing.
class TraceSpan {
 public:
  TraceSpan(TraceRecorder* recorder, std::string name, std::string category)
      : recorder_(recorder), name_(std::move(name)), category_(std::move(category)),
        begin_(std::chrono::steady_clock::now()) {}
  ~TraceSpan() {
    if (recorder_ != nullptr) {
      recorder_->AddSpan(std::move(name_), std::move(category_), begin_,
                         std::chrono::steady_clock::now(), std::move(args_));
    }
  }
  TraceSpan(const TraceSpan&) = delete;
  TraceSpan& operator=(const TraceSpan&) = delete;
  nlohmann::json& args() { return args_; }

 private:
  TraceRecorder* recorder_;
  std::string name_;
  std::string category_;
  std::chrono::steady_clock::time_point begin_;
  nlohmann::json args_ = nlohmann::json::object();
};

}  // namespace lakedump
