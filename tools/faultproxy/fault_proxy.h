// FaultProxy: a TCP proxy 127.0.0.1:listen -> 127.0.0.1:target for tests and
// benchmarks of the S3 client (the kernel here has no netem). It emulates a
// WAN link (one-way delay per direction, per-connection and total bandwidth
// caps) and injects faults: reset the Nth connection after K bytes, stall it,
// or answer chosen HTTP requests itself with 500 / 503 SlowDown.
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
  int64_t stall_after = 0;      // ... after this many client->server bytes
  std::set<int> fail_requests;  // HTTP requests (1-based, all connections) answered by us
  int fail_status = 503;        // 503 -> SlowDown, 500 -> InternalError
};

class FaultProxy {
 public:
  explicit FaultProxy(ProxyOptions options);
  ~FaultProxy();

  // Binds and starts accepting. Returns false (with a message in *error) on failure.
  bool Start(std::string* error);
  void Stop();
  int port() const { return port_; }

  int connections() const { return connections_.load(); }
  int requests() const { return requests_.load(); }
  int injected_failures() const { return failures_.load(); }
  int resets() const { return resets_.load(); }

  struct Bucket;
  struct Conn;

 private:
  void AcceptLoop();
  void Serve(std::shared_ptr<Conn> conn);

  const ProxyOptions options_;
  int listen_fd_ = -1;
  int port_ = 0;
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
};

}  // namespace faultproxy
