// faultproxy: a WAN- and fault-emulating TCP proxy for tests and benchmarks.
//   faultproxy --listen 7600 [--listen-addr 127.0.0.2] --target 7491 [--delay-ms 10]
//              [--conn-rate 40MB]
//              [--total-rate 100MB] [--reset-conn N --reset-after BYTES]
//              [--stall-conn N --stall-after BYTES [--stall-ms T]]
//              [--fail-requests 2,5 --fail-status 503]
//              [--match STR]... [--truncate-after BYTES | --lose-response] [--times K]
//              [--refuse-after-requests N --refuse-ms T]
//   --stall-ms T              resume the stalled connection after T ms (default: never)
//   --match STR               truncate/lose only requests whose request line contains STR
//                             (repeatable: all must appear), e.g. --match POST --match uploadId=
//   --truncate-after BYTES    close the connection after BYTES bytes of a matching response's body
//   --lose-response           forward a matching request, then reset the connection before any
//                             of its response reaches the client (the server did act)
//   --times K                 how many matching requests get the fault (default 1)
//   --refuse-after-requests N at the Nth request (not forwarded) every connection is reset and
//   --refuse-ms T             new ones are refused (nothing listens) for T ms: an outage
// Prints "listening on PORT" and runs until SIGINT/SIGTERM, then the counters.
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "fault_proxy.h"

namespace {

volatile std::sig_atomic_t g_stop = 0;

int64_t ParseBytes(const char* s) {
  char* end = nullptr;
  double v = std::strtod(s, &end);
  std::string unit = end;
  if (unit == "k" || unit == "KB")
    v *= 1e3;
  else if (unit == "KiB")
    v *= 1024;
  else if (unit == "M" || unit == "MB")
    v *= 1e6;
  else if (unit == "MiB")
    v *= 1048576;
  else if (unit == "G" || unit == "GB")
    v *= 1e9;
  return static_cast<int64_t>(v);
}

}  // namespace

int main(int argc, char** argv) {
  faultproxy::ProxyOptions o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : nullptr;
    auto need = [&]() {
      if (v == nullptr) {
        std::fprintf(stderr, "faultproxy: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      ++i;
      return v;
    };
    if (a == "--listen")
      o.listen_port = std::atoi(need());
    else if (a == "--listen-addr")
      o.listen_addr = need();
    else if (a == "--target")
      o.target_port = std::atoi(need());
    else if (a == "--delay-ms")
      o.delay_ms = std::atoi(need());
    else if (a == "--conn-rate")
      o.conn_rate = ParseBytes(need());
    else if (a == "--total-rate")
      o.total_rate = ParseBytes(need());
    else if (a == "--reset-conn")
      o.reset_conn = std::atoi(need());
    else if (a == "--reset-after")
      o.reset_after = ParseBytes(need());
    else if (a == "--stall-conn")
      o.stall_conn = std::atoi(need());
    else if (a == "--stall-after")
      o.stall_after = ParseBytes(need());
    else if (a == "--stall-ms")
      o.stall_ms = std::atoi(need());
    else if (a == "--match")
      o.match.emplace_back(need());
    else if (a == "--truncate-after")
      o.truncate_after = ParseBytes(need());
    else if (a == "--lose-response")
      o.lose_response = true;
    else if (a == "--times")
      o.fault_times = std::atoi(need());
    else if (a == "--refuse-after-requests")
      o.refuse_after_requests = std::atoi(need());
    else if (a == "--refuse-ms")
      o.refuse_ms = std::atoi(need());
    else if (a == "--fail-status")
      o.fail_status = std::atoi(need());
    else if (a == "--fail-requests") {
      std::string list = need();
      for (char* tok = std::strtok(list.data(), ","); tok; tok = std::strtok(nullptr, ",")) {
        o.fail_requests.insert(std::atoi(tok));
      }
    } else {
      std::fprintf(stderr, "faultproxy: unknown option %s (see the comment in main.cc)\n",
                   a.c_str());
      return 2;
    }
  }
  if (o.target_port == 0) {
    std::fprintf(stderr, "faultproxy: --target PORT is required\n");
    return 2;
  }
  faultproxy::FaultProxy proxy(o);
  std::string error;
  if (!proxy.Start(&error)) {
    std::fprintf(stderr, "faultproxy: %s\n", error.c_str());
    return 1;
  }
  std::printf("listening on %d\n", proxy.port());
  std::fflush(stdout);
  std::signal(SIGINT, [](int) { g_stop = 1; });
  std::signal(SIGTERM, [](int) { g_stop = 1; });
  while (!g_stop) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  proxy.Stop();
  std::printf("connections %d requests %d injected %d resets %d truncated %d lost %d outages %d\n",
              proxy.connections(), proxy.requests(), proxy.injected_failures(), proxy.resets(),
              proxy.truncated(), proxy.lost(), proxy.outages());
  return 0;
}
