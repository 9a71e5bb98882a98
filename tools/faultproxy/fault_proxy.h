// FaultProxy: a TCP proxy 127.0.0.1:listen -> 127.0.0.1:target for tests and
// benchmarks of the S3 client (the kernel here has no netem). It emulates a
// WAN link (one-way delay per direction, per-connection and total bandwidth
// caps) and injects faults, each bounded in count or time: reset the Nth
// connection after K bytes, stall it (for a while or for good), answer chosen
// HTTP requests itself with 500 / 503 SlowDown, cut the response to a matching
// request after N body bytes, lose it (forward the request, then drop the
// connection before any of the reply reaches the client), or refuse every
// connection for a while (an endpoint outage) from the Nth request on.
// Thread-safe; Start() once, Stop() (or the destructor) once.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace faultproxy {

struct ProxyOptions {
  int listen_port = 0;  // 0 = any free port (see port())
  std::string listen_addr = "127.0.0.1";  // an IPv4 address (127.0.0.2 shares port 80...)
  int target_port = 0;
  int delay_ms = 0;             // one-way, each direction (RTT = 2 x delay)
  int64_t conn_rate = 0;        // bytes/s per connection and direction, 0 = unlimited
  int64_t total_rate = 0;       // bytes/s over all connections per direction, 0 = unlimited
  int reset_conn = 0;           // reset this connection (1-based) ...
  int64_t reset_after = 0;      // ... after it carried this many client->server bytes
  int stall_conn = 0;           // stop forwarding on this connection ...
  int64_t stall_after = 0;      // ... after this many client->server bytes ...
  int stall_ms = 0;             // ... for this long, then resume (0 = for good)
  std::set<int> fail_requests;  // HTTP requests (1-based, all connections) answered by us
  int fail_status = 503;        // 503 -> SlowDown, 500 -> InternalError
  // Requests whose request line ("POST /bkt/key?uploadId=x HTTP/1.1") contains
  // every one of these strings are "matching" (all requests when empty).
  std::vector<std::string> match;
  int64_t truncate_after = -1;  // >= 0: cut a matching response after this many body bytes
  bool lose_response = false;   // drop a matching request's response (connection reset)
  int fault_times = 1;          // how many matching requests get truncate/lose
  int refuse_after_requests = 0;  // at this request (1-based), an outage begins:
  int refuse_ms = 0;              // every connection reset, none accepted, for this long
};

class FaultProxy {
 public:
  explicit FaultProxy(ProxyOptions options);
  ~FaultProxy();

  // Binds and starts accepting. Returns false (with a message in *error) on failure.
  bool Start(std::string* error);
  void Stop();
  int port() const { return port_.load(); }

  int connections() const { return connections_.load(); }
  int requests() const { return requests_.load(); }
  int injected_failures() const { return failures_.load(); }
  int resets() const { return resets_.load(); }
  int truncated() const { return truncated_.load(); }
  int lost() const { return lost_.load(); }
  int outages() const { return outages_.load(); }

  struct Bucket;
  struct Conn;

 private:
  void AcceptLoop();
  void Serve(std::shared_ptr<Conn> conn);
  bool Listen(std::string* error);  // binds listen_fd_ to port_ (or any port when 0)
  bool Matches(const std::string& request_line) const;
  bool TakeFault();  // one of fault_times; false when used up
  void BeginOutage();

  const ProxyOptions options_;
  int listen_fd_ = -1;
  // Written by Start and by the accept thread when it listens again after an outage; read
  // by any thread.
  std::atomic<int> port_{0};
  std::atomic<bool> stopping_{false};
  std::thread accept_thread_;
  std::unique_ptr<Bucket> total_up_, total_down_;
  std::mutex mu_;
  std::vector<std::weak_ptr<Conn>> conns_;  // GUARDED_BY(mu_)
  std::atomic<int> active_threads_{0};
  std::atomic<int> connections_{0};
  std::atomic<int> requests_{0};
  std::atomic<int> failures_{0};
  std::atomic<int> resets_{0};
  std::atomic<int> truncated_{0};
  std::atomic<int> lost_{0};
  std::atomic<int> outages_{0};
  std::atomic<int> faults_left_{0};
  std::atomic<bool> outage_{false};
  std::atomic<int64_t> outage_end_ns_{0};  // steady_clock, since epoch
};

}  // namespace faultproxy
