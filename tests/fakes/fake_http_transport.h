// FakeHttpTransport: an HttpTransport for unit tests. Responses come from a
// handler (a function of the request) or from a script of responses consumed
// in order; every request is recorded. Tracks the maximum number of
// concurrent Send() calls. Thread-safe.
#pragma once

#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "store/s3/http_transport.h"

namespace lakedump {

// "%41+b" -> "A+b" (or "A b" with plus_is_space, as a form body means it).
std::string PercentDecode(std::string_view s, bool plus_is_space = false);

struct RecordedRequest {
  std::string method;
  std::string url;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;

  std::string Header(std::string_view name) const;  // case-insensitive
  bool HasQuery(std::string_view param) const;      // "uploadId", "partNumber=3"
};

class FakeHttpTransport final : public HttpTransport {
 public:
  using Handler = std::function<Result<HttpResponse>(const RecordedRequest&)>;

  FakeHttpTransport() = default;
  explicit FakeHttpTransport(Handler handler) : handler_(std::move(handler)) {}

  // Scripted responses, used before the handler (if any). Status 0 = a
  // transport failure (Unavailable "connection reset").
  void Push(long status, std::string body = "",
            std::vector<std::pair<std::string, std::string>> headers = {});

  // Runs in each Send before it answers, while the request counts as in flight (e.g. holds
  // requests until several are in flight, to observe concurrency). May be empty.
  void set_before_send(std::function<void(const RecordedRequest&)> hook) {
    before_send_ = std::move(hook);
  }

  Result<HttpResponse> Send(const HttpRequest& request, std::stop_token stop) override;

  std::vector<RecordedRequest> requests() const;
  int max_concurrent() const { return max_concurrent_.load(); }

 private:
  Handler handler_;
  std::function<void(const RecordedRequest&)> before_send_;
  mutable std::mutex mu_;
  std::deque<HttpResponse> script_;        // GUARDED_BY(mu_)
  std::vector<RecordedRequest> requests_;  // GUARDED_BY(mu_)
  std::atomic<int> concurrent_{0};
  std::atomic<int> max_concurrent_{0};
};

// A minimal in-memory S3 behind a FakeHttpTransport handler: PutObject,
// multipart (create/part/complete/abort/list uploads), HEAD, GET with Range,
// ListObjectsV2, DeleteObjects. For writer and store tests.
class FakeS3Server {
 public:
  FakeHttpTransport::Handler AsHandler();
  Result<HttpResponse> Handle(const RecordedRequest& request);

  // Fault injection: the nth (1-based) UploadPart answers with this status.
  void FailPart(int nth, long status) {
    fail_part_nth_ = nth;
    fail_part_status_ = status;
  }
  // Complete answers 200 with an <Error> body.
  void set_complete_error_body(bool v) { complete_error_body_ = v; }

  std::map<std::string, std::string> objects() const;
  size_t open_uploads() const;
  // Multipart uploads created (requests that reached the server, not merely sent).
  int creates() const;
  int aborts() const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, std::string> objects_;                 // key -> bytes
  std::map<std::string, std::map<int, std::string>> uploads_;  // id -> parts
  std::map<std::string, std::string> upload_keys_;             // id -> key
  int next_upload_ = 1;
  int parts_seen_ = 0;
  int fail_part_nth_ = 0;
  long fail_part_status_ = 0;
  bool complete_error_body_ = false;
  int aborts_ = 0;
};

}  // namespace lakedump
