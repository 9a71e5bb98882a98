// RawHttpServer: a hostile or broken HTTP endpoint on 127.0.0.1 for transport tests, driven by
// a real socket (so that libcurl meets it as it would a server): it answers each request with
// a status line and then a body that never ends, or accepts and never answers. Also
// ClosedPort(): a loopback port nothing listens on. One connection at a time. Not copyable.
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <thread>

#include "fakes/sync.h"

namespace lakedump {

class RawHttpServer {
 public:
  enum Behaviour { kEndlessBody, kNeverAnswers };

  // kEndlessBody: "HTTP/1.1 <status>" and a chunked body of 'x' that ends only when the client
  // goes away. kNeverAnswers: reads the request, sends nothing.
  RawHttpServer(Behaviour behaviour, int status = 200) : behaviour_(behaviour), status_(status) {
    listen_fd_ = BoundSocket(&port_);
    ::listen(listen_fd_, 8);
    thread_ = std::jthread([this](std::stop_token stop) { Serve(stop); });
  }
  ~RawHttpServer() {
    thread_.request_stop();
    ::shutdown(listen_fd_, SHUT_RDWR);  // wakes accept()
    const int conn = conn_fd_.load();
    if (conn >= 0) ::shutdown(conn, SHUT_RDWR);  // wakes recv() and send()
    thread_.join();
    ::close(listen_fd_);
  }
  RawHttpServer(const RawHttpServer&) = delete;
  RawHttpServer& operator=(const RawHttpServer&) = delete;

  std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int port() const { return port_; }
  // Connections accepted so far.
  int accepted() const { return accepted_.load(); }
  // Waits (up to kEventLimit) until `n` connections were accepted.
  bool WaitForAccepted(int n) { return event_.WaitUntil([&] { return accepted_.load() >= n; }); }

  // A loopback port that was free a moment ago: connecting to it is refused at once.
  static int ClosedPort() {
    int port = 0;
    ::close(BoundSocket(&port));
    return port;
  }

  // A TCP socket bound to a free port of 127.0.0.1 (*port), not yet listening.
  static int BoundSocket(int* port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    socklen_t len = sizeof addr;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
    *port = ntohs(addr.sin_port);
    return fd;
  }

 private:
  void Serve(std::stop_token stop) {
    while (!stop.stop_requested()) {
      const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) return;
      conn_fd_.store(fd);
      event_.Notify([&] { accepted_.fetch_add(1); });
      char buffer[4096];
      (void)!::recv(fd, buffer, sizeof buffer, 0);  // the request (its head is enough)
      if (behaviour_ == kEndlessBody) {
        SendEndless(fd, stop);
      } else {
        // Holds the connection until the client closes it or the server stops.
        while (!stop.stop_requested() && ::recv(fd, buffer, sizeof buffer, 0) > 0) {
        }
      }
      conn_fd_.store(-1);
      ::close(fd);
    }
  }

  void SendEndless(int fd, std::stop_token stop) const {
    const std::string head = "HTTP/1.1 " + std::to_string(status_) +
                             " X\r\nContent-Type: application/xml\r\n"
                             "Transfer-Encoding: chunked\r\n\r\n";
    if (::send(fd, head.data(), head.size(), MSG_NOSIGNAL) < 0) return;
    const std::string chunk = "10000\r\n" + std::string(0x10000, 'x') + "\r\n";
    while (!stop.stop_requested()) {
      if (::send(fd, chunk.data(), chunk.size(), MSG_NOSIGNAL) < 0) return;
    }
  }

  const Behaviour behaviour_;
  const int status_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<int> conn_fd_{-1};
  std::atomic<int> accepted_{0};
  Event event_;
  std::jthread thread_;
};

}  // namespace lakedump
