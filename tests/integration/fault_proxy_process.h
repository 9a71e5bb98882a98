// ProxyProcess: tools/faultproxy (next to the lakedump binary) run as a child
// process in front of a test endpoint, for integration tests. Killed and its
// output file removed when the object dies. Not thread-safe.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace lakedump {

// tools/faultproxy as a child process, in front of the test endpoint.
class ProxyProcess {
 public:
  ProxyProcess(const std::string& endpoint, std::vector<std::string> args) {
    std::string bin = std::string(LAKEDUMP_BINARY);
    bin = bin.substr(0, bin.rfind('/')) + "/tools/faultproxy";
    std::string port = endpoint.substr(endpoint.rfind(':') + 1);
    out_ = "/tmp/ld-faultproxy-" + std::to_string(::getpid()) + "-" + std::to_string(++count_);
    std::vector<std::string> argv = {bin, "--listen", "0", "--target", port};
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<char*> cargv;
    for (auto& a : argv) cargv.push_back(a.data());
    cargv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, out_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (posix_spawn(&pid_, bin.c_str(), &fa, nullptr, cargv.data(), environ) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&fa);
    for (int i = 0; i < 100 && pid_ > 0; ++i) {
      std::ifstream in(out_);
      std::string word;
      if (in >> word >> word >> port_) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  ~ProxyProcess() {
    Kill();
    std::remove(out_.c_str());
  }
  void Kill() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      ::waitpid(pid_, nullptr, 0);
      pid_ = -1;
    }
  }
  std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(port_); }
  bool ok() const { return port_ > 0; }
  std::string output() const {
    std::ifstream in(out_);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }

 private:
  static inline int count_ = 0;
  pid_t pid_ = -1;
  int port_ = 0;
  std::string out_;
};

}  // namespace lakedump
