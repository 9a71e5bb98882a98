#include "fault_proxy.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>

namespace faultproxy {

using Clock = std::chrono::steady_clock;

// A token bucket shared by the writers it limits.
struct FaultProxy::Bucket {
  explicit Bucket(int64_t rate) : rate(rate), next(Clock::now()) {}
  // Blocks until n bytes may pass.
  void Take(int64_t n) {
    if (rate <= 0) return;
    Clock::time_point when;
    {
      std::lock_guard<std::mutex> lock(mu);
      auto now = Clock::now();
      if (next < now) next = now;
      when = next;
      next += std::chrono::nanoseconds(n * 1'000'000'000 / rate);
    }
    std::this_thread::sleep_until(when);
  }
  const int64_t rate;
  std::mutex mu;
  Clock::time_point next;
};

namespace {

struct Chunk {
  Clock::time_point due;
  std::string data;
  bool eof = false;
  bool close_after = false;  // an injected response: close the connection after it
};

// One direction of a connection: a reader queues chunks stamped with their
// due time (now + delay) and a writer sends them when due, at the capped rate.
// With a bandwidth cap, a reader waits while more than `limit` bytes are
// queued, so the sender feels the slow link (its socket buffer fills) as it
// would on a real one, instead of handing its whole body to the proxy at once.
struct Pipe {
  std::mutex mu;
  std::condition_variable cv;
  std::deque<Chunk> queue;
  int64_t queued = 0;  // GUARDED_BY(mu): bytes in queue
  int64_t limit = 0;   // 0 = no limit
  // Returns false when `dead` was set while waiting.
  bool Push(Chunk c, const std::atomic<bool>& dead) {
    std::unique_lock<std::mutex> lock(mu);
    if (limit > 0) {
      cv.wait(lock, [&] { return queued < limit || dead.load(); });
      if (dead.load()) return false;
    }
    queued += static_cast<int64_t>(c.data.size());
    queue.push_back(std::move(c));
    cv.notify_all();
    return true;
  }
};

bool WriteAll(int fd, const char* data, size_t n) {
  while (n > 0) {
    ssize_t w = ::send(fd, data, n, MSG_NOSIGNAL);
    if (w <= 0) return false;
    data += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

std::string FailureResponse(int status) {
  std::string code = status == 503 ? "SlowDown" : "InternalError";
  std::string body = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>" + code +
                     "</Code><Message>injected by faultproxy</Message></Error>";
  return "HTTP/1.1 " + std::to_string(status) + (status == 503 ? " Slow Down" : " Internal Error") +
         "\r\nContent-Type: application/xml\r\nContent-Length: " + std::to_string(body.size()) +
         "\r\nConnection: close\r\n\r\n" + body;
}

int64_t ContentLength(const std::string& headers) {
  std::string lower = headers;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  size_t p = lower.find("\r\ncontent-length:");
  if (p == std::string::npos) return 0;
  return std::strtoll(lower.c_str() + p + 17, nullptr, 10);
}

}  // namespace

// What happens to the response of the request being served on a connection.
enum class ResponseFault { kNone, kTruncate, kLose };

struct FaultProxy::Conn {
  int number = 0;
  int client = -1;
  int server = -1;
  Pipe up, down;
  std::atomic<bool> dead{false};
  // Set by the client->server reader when it parses a request, read by the
  // server->client reader (curl sends a request only after the last response).
  std::mutex fault_mu;
  ResponseFault fault = ResponseFault::kNone;  // GUARDED_BY(fault_mu)
  std::string response_head;                   // GUARDED_BY(fault_mu): until "\r\n\r\n"
  bool head_done = false;                      // GUARDED_BY(fault_mu)
  int64_t body_seen = 0;                       // GUARDED_BY(fault_mu)
  void SetFault(ResponseFault f) {
    std::lock_guard<std::mutex> lock(fault_mu);
    fault = f;
    response_head.clear();
    head_done = false;
    body_seen = 0;
  }
  Bucket up_rate, down_rate;
  Conn(int64_t rate) : up_rate(rate), down_rate(rate) {}
  ~Conn() {
    if (client >= 0) ::close(client);
    if (server >= 0) ::close(server);
  }
  void Kill(bool reset) {
    if (dead.exchange(true)) return;
    if (reset) {
      linger l{1, 0};
      ::setsockopt(client, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
    }
    ::shutdown(client, SHUT_RDWR);
    ::shutdown(server, SHUT_RDWR);
    for (Pipe* p : {&up, &down}) {
      std::lock_guard<std::mutex> lock(p->mu);
      p->cv.notify_all();
    }
  }
};

FaultProxy::FaultProxy(ProxyOptions options)
    : options_(std::move(options)),
      total_up_(std::make_unique<Bucket>(options_.total_rate)),
      total_down_(std::make_unique<Bucket>(options_.total_rate)) {
  faults_left_ = options_.fault_times;
}

FaultProxy::~FaultProxy() { Stop(); }

bool FaultProxy::Matches(const std::string& request_line) const {
  for (const std::string& m : options_.match) {
    if (request_line.find(m) == std::string::npos) return false;
  }
  return true;
}

bool FaultProxy::TakeFault() {
  int left = faults_left_.load();
  while (left > 0) {
    if (faults_left_.compare_exchange_weak(left, left - 1)) return true;
  }
  return false;
}

void FaultProxy::BeginOutage() {
  if (outage_.exchange(true)) return;
  ++outages_;
  const auto end = Clock::now() + std::chrono::milliseconds(options_.refuse_ms);
  outage_end_ns_ = std::chrono::duration_cast<std::chrono::nanoseconds>(end.time_since_epoch())
                       .count();
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (listen_fd_ >= 0) ::shutdown(listen_fd_, SHUT_RDWR);  // wakes accept()
    for (auto& w : conns_) {
      if (auto c = w.lock()) c->Kill(true);
    }
  }
}

bool FaultProxy::Start(std::string* error) {
  port_ = options_.listen_port;
  if (!Listen(error)) return false;
  accept_thread_ = std::thread([this] { AcceptLoop(); });
  return true;
}

bool FaultProxy::Listen(std::string* error) {
  std::lock_guard<std::mutex> lock(mu_);
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (options_.conn_rate > 0 || options_.total_rate > 0) {
    // A small receive buffer (inherited by accepted sockets): on a slow link the
    // bytes not yet sent wait in the client's socket, where its own send queue
    // shows them, not in a loopback buffer of megabytes that acknowledges them
    // at once, as no real link would.
    int size = 16 << 10;
    ::setsockopt(listen_fd_, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
  }
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  if (::inet_pton(AF_INET, options_.listen_addr.c_str(), &addr.sin_addr) != 1) {
    *error = "cannot listen on " + options_.listen_addr + ": not an IPv4 address";
    return false;
  }
  addr.sin_port = htons(static_cast<uint16_t>(port_.load()));
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      ::listen(listen_fd_, 128) != 0) {
    *error = "cannot listen on " + options_.listen_addr + ":" + std::to_string(port_.load()) +
             ": " + std::strerror(errno);
    ::close(listen_fd_);
    listen_fd_ = -1;
    return false;
  }
  socklen_t len = sizeof(addr);
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
  return true;
}

void FaultProxy::Stop() {
  if (stopping_.exchange(true)) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (listen_fd_ >= 0) ::shutdown(listen_fd_, SHUT_RDWR);
  }
  if (accept_thread_.joinable()) accept_thread_.join();
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (listen_fd_ >= 0) ::close(listen_fd_);
    listen_fd_ = -1;
    for (auto& w : conns_) {
      if (auto c = w.lock()) c->Kill(false);
    }
  }
  while (active_threads_.load() > 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
}

void FaultProxy::AcceptLoop() {
  while (!stopping_.load()) {
    int listen_fd;
    {
      std::lock_guard<std::mutex> lock(mu_);
      listen_fd = listen_fd_;
    }
    int fd = ::accept(listen_fd, nullptr, nullptr);
    if (fd >= 0 && outage_.load()) {  // accepted just as the outage began
      linger l{1, 0};
      ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
      ::close(fd);
      continue;
    }
    if (fd < 0) {
      if (stopping_.load()) return;
      if (!outage_.load()) continue;
      // The outage: nobody listens (connections are refused) until it ends.
      {
        std::lock_guard<std::mutex> lock(mu_);
        ::close(listen_fd_);
        listen_fd_ = -1;
      }
      while (!stopping_.load() &&
             Clock::now().time_since_epoch() < std::chrono::nanoseconds(outage_end_ns_.load())) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
      if (stopping_.load()) return;
      std::string error;
      for (int i = 0; i < 100 && !Listen(&error); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
      outage_ = false;
      continue;
    }
    auto conn = std::make_shared<Conn>(options_.conn_rate);
    conn->number = ++connections_;
    conn->client = fd;
    conn->server = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(static_cast<uint16_t>(options_.target_port));
    if (::connect(conn->server, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
      conn->Kill(true);
      continue;
    }
    int one = 1;
    ::setsockopt(conn->client, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    ::setsockopt(conn->server, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    {
      std::lock_guard<std::mutex> lock(mu_);
      conns_.push_back(conn);
    }
    Serve(conn);
  }
}

void FaultProxy::Serve(std::shared_ptr<Conn> conn) {
  const auto delay = std::chrono::milliseconds(options_.delay_ms);
  const int64_t rate = options_.conn_rate > 0 ? options_.conn_rate : options_.total_rate;
  if (rate > 0) {
    // What the link holds in flight (rate x delay) plus a little: the rest
    // waits in the sender's socket buffer.
    const int64_t limit = std::max<int64_t>(16 << 10, rate * (options_.delay_ms + 100) / 1000);
    conn->up.limit = limit;
    conn->down.limit = limit;
  }
  // Under a cap, read in small pieces so that little waits inside the proxy.
  const size_t read_size = rate > 0 ? 16384 : 65536;
  auto spawn = [this](auto fn) {
    ++active_threads_;
    std::thread([this, fn] {
      fn();
      --active_threads_;
    }).detach();
  };
  // Writers: send due chunks, at the capped rates.
  auto writer = [conn](Pipe* pipe, int fd, Bucket* rate, Bucket* total) {
    for (;;) {
      Chunk c;
      {
        std::unique_lock<std::mutex> lock(pipe->mu);
        pipe->cv.wait(lock, [&] { return !pipe->queue.empty() || conn->dead.load(); });
        if (conn->dead.load()) return;
        c = std::move(pipe->queue.front());
        pipe->queue.pop_front();
      }
      const auto release = [pipe, n = static_cast<int64_t>(c.data.size())] {
        std::lock_guard<std::mutex> lock(pipe->mu);
        pipe->queued -= n;
        pipe->cv.notify_all();
      };
      std::this_thread::sleep_until(c.due);
      if (c.eof) {
        ::shutdown(fd, SHUT_WR);
        return;
      }
      for (size_t off = 0; off < c.data.size();) {
        size_t n = std::min<size_t>(c.data.size() - off, 16384);
        rate->Take(static_cast<int64_t>(n));
        total->Take(static_cast<int64_t>(n));
        if (conn->dead.load() || !WriteAll(fd, c.data.data() + off, n)) {
          conn->Kill(true);
          return;
        }
        off += n;
      }
      release();
      if (c.close_after) {
        conn->Kill(false);
        return;
      }
    }
  };
  spawn([=, this] { writer(&conn->up, conn->server, &conn->up_rate, total_up_.get()); });
  spawn([=, this] { writer(&conn->down, conn->client, &conn->down_rate, total_down_.get()); });

  // Server -> client reader, with the response faults.
  spawn([=, this] {
    char buf[65536];
    for (;;) {
      ssize_t n = ::recv(conn->server, buf, read_size, 0);
      if (n <= 0) {
        conn->down.Push({Clock::now() + delay, "", true, false}, conn->dead);
        return;
      }
      std::string data(buf, static_cast<size_t>(n));
      bool cut = false;
      {
        std::lock_guard<std::mutex> lock(conn->fault_mu);
        if (conn->fault == ResponseFault::kLose) {
          // The server has acted on the request; its reply never arrives.
          ++lost_;
          conn->fault = ResponseFault::kNone;
          conn->Kill(true);
          return;
        }
        if (conn->fault == ResponseFault::kTruncate) {
          int64_t body_here = 0;
          if (!conn->head_done) {
            conn->response_head += data;
            const size_t end = conn->response_head.find("\r\n\r\n");
            if (end != std::string::npos) {
              conn->head_done = true;
              body_here = static_cast<int64_t>(conn->response_head.size() - (end + 4));
            }
          } else {
            body_here = static_cast<int64_t>(data.size());
          }
          if (conn->head_done && conn->body_seen + body_here >= options_.truncate_after) {
            const int64_t keep_body = options_.truncate_after - conn->body_seen;
            data.resize(data.size() - static_cast<size_t>(body_here - keep_body));
            conn->fault = ResponseFault::kNone;
            cut = true;
            ++truncated_;
          }
          conn->body_seen += body_here;
        }
      }
      conn->down.Push({Clock::now() + delay, std::move(data), false, cut}, conn->dead);
      if (cut) return;  // the writer closes the connection after the cut reply
    }
  });

  // Client -> server reader, with the faults and (when failures are asked
  // for) an HTTP/1.1 request parser that counts requests.
  spawn([=, this] {
    const bool parse = !options_.fail_requests.empty() || options_.truncate_after >= 0 ||
                       options_.lose_response || options_.refuse_after_requests > 0;
    bool stalled = false;
    std::string headers;    // of the request being read
    int64_t body_left = 0;  // bytes of the current request body still to come
    bool failing = false;   // the current request is answered by us
    int64_t carried = 0;
    char buf[65536];
    for (;;) {
      ssize_t n = ::recv(conn->client, buf, read_size, 0);
      if (n <= 0) {
        conn->up.Push({Clock::now() + delay, "", true, false}, conn->dead);
        return;
      }
      std::string_view in(buf, static_cast<size_t>(n));
      if (options_.stall_conn == conn->number && !stalled && carried + n > options_.stall_after) {
        stalled = true;
        const auto until = Clock::now() + std::chrono::milliseconds(options_.stall_ms);
        while (!conn->dead.load() && !stopping_.load() &&
               (options_.stall_ms <= 0 || Clock::now() < until)) {
          std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        if (options_.stall_ms <= 0 || conn->dead.load() || stopping_.load()) return;
      }
      if (options_.reset_conn == conn->number && carried + n > options_.reset_after) {
        ++resets_;
        conn->Kill(true);
        return;
      }
      carried += n;
      if (!parse) {
        conn->up.Push({Clock::now() + delay, std::string(in), false, false}, conn->dead);
        continue;
      }
      std::string forward;
      while (!in.empty()) {
        if (body_left == 0 && !failing) {
          // Reading headers.
          size_t before = headers.size();
          headers.append(in);
          size_t end = headers.find("\r\n\r\n");
          if (end == std::string::npos) {
            in = {};
            continue;
          }
          size_t used = end + 4 - before;
          in.remove_prefix(used);
          headers.resize(end + 4);
          int number = ++requests_;
          if (number == options_.refuse_after_requests) {
            BeginOutage();  // this request is not forwarded
            return;
          }
          const std::string line = headers.substr(0, headers.find("\r\n"));
          ResponseFault fault = ResponseFault::kNone;
          if ((options_.truncate_after >= 0 || options_.lose_response) && Matches(line) &&
              TakeFault()) {
            fault = options_.lose_response ? ResponseFault::kLose : ResponseFault::kTruncate;
          }
          conn->SetFault(fault);
          body_left = ContentLength(headers);
          failing = options_.fail_requests.count(number) > 0;
          if (!failing) forward += headers;
          headers.clear();
          if (body_left > 0) continue;
        } else {
          size_t take = static_cast<size_t>(std::min<int64_t>(body_left, in.size()));
          if (!failing) forward.append(in.substr(0, take));
          in.remove_prefix(take);
          body_left -= static_cast<int64_t>(take);
        }
        if (body_left == 0 && failing) {
          ++failures_;
          if (!forward.empty()) {
            conn->up.Push({Clock::now() + delay, forward, false, false}, conn->dead);
          }
          conn->down.Push(
              {Clock::now() + 2 * delay, FailureResponse(options_.fail_status), false, true},
              conn->dead);
          return;  // the connection closes after the injected response
        }
      }
      if (!forward.empty()) {
        conn->up.Push({Clock::now() + delay, std::move(forward), false, false}, conn->dead);
      }
    }
  });
}

}  // namespace faultproxy
