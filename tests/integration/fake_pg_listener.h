// A fake PostgreSQL server on 127.0.0.1 that records what clients send it: it accepts
// connections, refuses SSL and GSS encryption requests, reads the startup message, asks for a
// cleartext password, reads the password message, and ends with an authentication error.
// A test points a hostile dump at it and checks that nobody connected (and that no password
// arrived). Header-only; for tests. Thread-safe.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

namespace lakedump::testing_pg {

class FakePgListener {
 public:
  FakePgListener() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    socklen_t len = sizeof addr;
    if (fd_ < 0 || ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        ::listen(fd_, 8) != 0 || ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len)) {
      return;
    }
    port_ = ntohs(addr.sin_port);
    if (::pipe(wake_) != 0) return;
    thread_ = std::thread([this] { Serve(); });
  }
  ~FakePgListener() {
    if (thread_.joinable()) {
      const char c = 'x';
      (void)!::write(wake_[1], &c, 1);
      thread_.join();
    }
    for (int fd : {fd_, wake_[0], wake_[1]}) {
      if (fd >= 0) ::close(fd);
    }
  }
  FakePgListener(const FakePgListener&) = delete;
  FakePgListener& operator=(const FakePgListener&) = delete;

  int port() const { return port_; }  // 0 when it could not listen
  int connections() const {
    std::lock_guard lock(mu_);
    return connections_;
  }
  // Every byte clients sent, in order.
  std::string received() const {
    std::lock_guard lock(mu_);
    return received_;
  }

 private:
  void Serve() {
    for (;;) {
      pollfd fds[2] = {{fd_, POLLIN, 0}, {wake_[0], POLLIN, 0}};
      if (::poll(fds, 2, -1) < 0 || (fds[1].revents & POLLIN)) return;
      if (!(fds[0].revents & POLLIN)) continue;
      const int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) continue;
      {
        std::lock_guard lock(mu_);
        ++connections_;
      }
      Talk(c);
      ::close(c);
    }
  }

  // Reads exactly n bytes (waiting at most 5 s for each part), recording them.
  bool Read(int c, size_t n, std::string* out) {
    out->clear();
    while (out->size() < n) {
      pollfd p{c, POLLIN, 0};
      if (::poll(&p, 1, 5000) <= 0) return false;
      char buf[4096];
      const ssize_t got = ::read(c, buf, std::min(sizeof buf, n - out->size()));
      if (got <= 0) return false;
      out->append(buf, static_cast<size_t>(got));
    }
    std::lock_guard lock(mu_);
    received_ += *out;
    return true;
  }
  static uint32_t Int32(const std::string& s, size_t at) {
    return (uint32_t{static_cast<uint8_t>(s[at])} << 24) |
           (uint32_t{static_cast<uint8_t>(s[at + 1])} << 16) |
           (uint32_t{static_cast<uint8_t>(s[at + 2])} << 8) | uint32_t{static_cast<uint8_t>(s[at + 3])};
  }
  static void Send(int c, const std::string& bytes) {
    (void)!::write(c, bytes.data(), bytes.size());
  }

  // The startup message (after any SSL/GSS request), then a cleartext password request, the
  // password message, and a FATAL error.
  void Talk(int c) {
    std::string head, body;
    for (;;) {
      if (!Read(c, 4, &head)) return;
      const uint32_t len = Int32(head, 0);
      if (len < 8 || len > 10000 || !Read(c, len - 4, &body)) return;
      const uint32_t code = Int32(body, 0);
      if (code != 80877103 && code != 80877104) break;  // SSLRequest, GSSENCRequest
      Send(c, "N");
    }
    Send(c, std::string("R\0\0\0\x08\0\0\0\x03", 9));  // AuthenticationCleartextPassword
    if (!Read(c, 5, &head) || !Read(c, Int32(head, 1) - 4, &body)) return;
    const std::string fields = std::string("SFATAL\0C28P01\0Mfake server\0\0", 28);
    std::string error = "E";
    const uint32_t len = static_cast<uint32_t>(fields.size() + 4);
    for (int shift = 24; shift >= 0; shift -= 8) error += static_cast<char>((len >> shift) & 0xff);
    Send(c, error + fields);
  }

  int fd_ = -1;
  int wake_[2] = {-1, -1};
  int port_ = 0;
  std::thread thread_;
  mutable std::mutex mu_;
  int connections_ = 0;
  std::string received_;
};

}  // namespace lakedump::testing_pg
