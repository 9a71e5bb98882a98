#include "fault_proxy.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace faultproxy {
namespace {

// A tiny backend on 127.0.0.1: echo mode, or an HTTP mode that answers every
// request (headers + Content-Length body) with "200 OK" and body "ok".
class Backend {
 public:
  explicit Backend(bool http) : http_(http) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof(a)), 0);
    ::listen(fd_, 16);
    socklen_t len = sizeof(a);
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this] { Loop(); });
  }
  ~Backend() {
    ::shutdown(fd_, SHUT_RDWR);
    thread_.join();
    ::close(fd_);
  }
  int port() const { return port_; }
  int64_t received() const { return received_.load(); }

 private:
  void Loop() {
    for (;;) {
      int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      std::thread([this, c] {
        char buf[65536];
        std::string pending;
        for (;;) {
          ssize_t n = ::recv(c, buf, sizeof(buf), 0);
          if (n <= 0) break;
          received_ += n;
          if (!http_) {
            ::send(c, buf, static_cast<size_t>(n), MSG_NOSIGNAL);
            continue;
          }
          pending.append(buf, static_cast<size_t>(n));
          size_t end;
          while ((end = pending.find("\r\n\r\n")) != std::string::npos) {
            pending.erase(0, end + 4);
            std::string resp = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
            ::send(c, resp.data(), resp.size(), MSG_NOSIGNAL);
          }
        }
        ::close(c);
      }).detach();
    }
  }
  bool http_;
  int fd_ = -1;
  int port_ = 0;
  std::thread thread_;
  std::atomic<int64_t> received_{0};
};

int Connect(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(static_cast<uint16_t>(port));
  EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)), 0);
  return fd;
}

std::string ReadSome(int fd, size_t want) {
  std::string out;
  char buf[65536];
  while (out.size() < want) {
    ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

TEST(FaultProxyTest, ForwardsWithDelay) {
  Backend echo(false);
  ProxyOptions o;
  o.target_port = echo.port();
  o.delay_ms = 40;
  FaultProxy proxy(o);
  std::string error;
  ASSERT_TRUE(proxy.Start(&error)) << error;
  int fd = Connect(proxy.port());
  auto t0 = std::chrono::steady_clock::now();
  ASSERT_EQ(::send(fd, "ping", 4, 0), 4);
  EXPECT_EQ(ReadSome(fd, 4), "ping");
  auto rtt = std::chrono::steady_clock::now() - t0;
  EXPECT_GE(rtt, std::chrono::milliseconds(80));  // 2 x 40 ms
  EXPECT_LT(rtt, std::chrono::milliseconds(1000));
  ::close(fd);
  EXPECT_EQ(proxy.connections(), 1);
}

TEST(FaultProxyTest, CapsBandwidth) {
  Backend echo(false);
  ProxyOptions o;
  o.target_port = echo.port();
  o.conn_rate = 2'000'000;  // 2 MB/s
  FaultProxy proxy(o);
  std::string error;
  ASSERT_TRUE(proxy.Start(&error)) << error;
  int fd = Connect(proxy.port());
  std::string data(1'000'000, 'x');
  auto t0 = std::chrono::steady_clock::now();
  std::thread sender([&] { ::send(fd, data.data(), data.size(), MSG_NOSIGNAL); });
  EXPECT_EQ(ReadSome(fd, data.size()).size(), data.size());
  sender.join();
  EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(400));
  ::close(fd);
}

TEST(FaultProxyTest, ResetsTheNthConnectionAfterKBytes) {
  Backend echo(false);
  ProxyOptions o;
  o.target_port = echo.port();
  o.reset_conn = 2;
  o.reset_after = 1000;
  FaultProxy proxy(o);
  std::string error;
  ASSERT_TRUE(proxy.Start(&error)) << error;
  std::string data(5000, 'y');
  int first = Connect(proxy.port());
  ::send(first, data.data(), data.size(), MSG_NOSIGNAL);
  EXPECT_EQ(ReadSome(first, data.size()).size(), data.size());  // not the 2nd: untouched
  int second = Connect(proxy.port());
  ::send(second, data.data(), data.size(), MSG_NOSIGNAL);
  char buf[16];
  ssize_t n = ::recv(second, buf, sizeof(buf), 0);
  EXPECT_LE(n, 0);
  EXPECT_EQ(proxy.resets(), 1);
  ::close(first);
  ::close(second);
}

TEST(FaultProxyTest, AnswersChosenHttpRequestsWithSlowDown) {
  Backend http(true);
  ProxyOptions o;
  o.target_port = http.port();
  o.fail_requests = {2};
  FaultProxy proxy(o);
  std::string error;
  ASSERT_TRUE(proxy.Start(&error)) << error;
  int fd = Connect(proxy.port());
  std::string req = "PUT /b/k HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello";
  ::send(fd, req.data(), req.size(), MSG_NOSIGNAL);
  EXPECT_NE(ReadSome(fd, 40).find("200 OK"), std::string::npos);
  ::send(fd, req.data(), req.size(), MSG_NOSIGNAL);
  std::string resp = ReadSome(fd, 1 << 20);
  EXPECT_NE(resp.find("503 Slow Down"), std::string::npos) << resp;
  EXPECT_NE(resp.find("<Code>SlowDown</Code>"), std::string::npos);
  ::close(fd);
  // The next request on a new connection goes through.
  fd = Connect(proxy.port());
  ::send(fd, req.data(), req.size(), MSG_NOSIGNAL);
  EXPECT_NE(ReadSome(fd, 40).find("200 OK"), std::string::npos);
  ::close(fd);
  EXPECT_EQ(proxy.requests(), 3);
  EXPECT_EQ(proxy.injected_failures(), 1);
}

// Connects, or returns -1 (refused).
int TryConnect(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(static_cast<uint16_t>(port));
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

const std::string kGet = "GET /b/k?list-type=2 HTTP/1.1\r\nHost: x\r\n\r\n";
const std::string kPut = "PUT /b/k HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello";

TEST(FaultProxyTest, CutsAMatchingResponseAfterNBodyBytesOnce) {
  Backend http(true);
  ProxyOptions o;
  o.target_port = http.port();
  o.match = {"GET", "list-type=2"};
  o.truncate_after = 1;
  FaultProxy proxy(o);
  std::string error;
  ASSERT_TRUE(proxy.Start(&error)) << error;
  int fd = Connect(proxy.port());
  ::send(fd, kPut.data(), kPut.size(), MSG_NOSIGNAL);  // not matching: whole
  std::string whole = ReadSome(fd, 40);
  EXPECT_EQ(whole.substr(whole.size() - 4), "\r\nok");
  ::send(fd, kGet.data(), kGet.size(), MSG_NOSIGNAL);
  std::string cut = ReadSome(fd, 1 << 20);  // ends at EOF
  EXPECT_EQ(cut.substr(cut.size() - 5), "\r\n\r\no") << cut;
  ::close(fd);
  fd = Connect(proxy.port());  // used up (--times 1): whole again
  ::send(fd, kGet.data(), kGet.size(), MSG_NOSIGNAL);
  whole = ReadSome(fd, 40);
  EXPECT_EQ(whole.substr(whole.size() - 4), "\r\nok");
  ::close(fd);
  EXPECT_EQ(proxy.truncated(), 1);
}

TEST(FaultProxyTest, LosesAMatchingResponseAfterTheServerGotTheRequest) {
  Backend http(true);
  ProxyOptions o;
  o.target_port = http.port();
  o.match = {"PUT"};
  o.lose_response = true;
  FaultProxy proxy(o);
  std::string error;
  ASSERT_TRUE(proxy.Start(&error)) << error;
  int fd = Connect(proxy.port());
  ::send(fd, kPut.data(), kPut.size(), MSG_NOSIGNAL);
  EXPECT_EQ(ReadSome(fd, 1 << 20), "");  // nothing, then the connection is gone
  EXPECT_EQ(http.received(), static_cast<int64_t>(kPut.size()));
  ::close(fd);
  EXPECT_EQ(proxy.lost(), 1);
}

TEST(FaultProxyTest, StallsThenResumes) {
  Backend echo(false);
  ProxyOptions o;
  o.target_port = echo.port();
  o.stall_conn = 1;
  o.stall_after = 0;
  o.stall_ms = 300;
  FaultProxy proxy(o);
  std::string error;
  ASSERT_TRUE(proxy.Start(&error)) << error;
  int fd = Connect(proxy.port());
  auto t0 = std::chrono::steady_clock::now();
  ASSERT_EQ(::send(fd, "ping", 4, 0), 4);
  EXPECT_EQ(ReadSome(fd, 4), "ping");
  EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(300));
  ::close(fd);
}

TEST(FaultProxyTest, RefusesConnectionsDuringAnOutageThenServesAgain) {
  Backend http(true);
  ProxyOptions o;
  o.target_port = http.port();
  o.refuse_after_requests = 2;
  o.refuse_ms = 500;
  FaultProxy proxy(o);
  std::string error;
  ASSERT_TRUE(proxy.Start(&error)) << error;
  int fd = Connect(proxy.port());
  ::send(fd, kPut.data(), kPut.size(), MSG_NOSIGNAL);
  EXPECT_NE(ReadSome(fd, 40).find("200 OK"), std::string::npos);
  ::send(fd, kPut.data(), kPut.size(), MSG_NOSIGNAL);  // request 2: the outage begins
  EXPECT_EQ(ReadSome(fd, 1 << 20), "");
  ::close(fd);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(TryConnect(proxy.port()), -1);  // refused
  std::this_thread::sleep_for(std::chrono::milliseconds(700));
  fd = TryConnect(proxy.port());
  ASSERT_GE(fd, 0);
  ::send(fd, kPut.data(), kPut.size(), MSG_NOSIGNAL);
  EXPECT_NE(ReadSome(fd, 40).find("200 OK"), std::string::npos);
  ::close(fd);
  EXPECT_EQ(proxy.outages(), 1);
}

}  // namespace
}  // namespace faultproxy
