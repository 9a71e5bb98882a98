#include "base/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>
#include <set>
#include <string_view>

#include <fmt/format.h>

extern char** environ;

namespace lakedump {
namespace {

constexpr size_t kStderrTail = 64 << 10;

struct Fd {
  int fd = -1;
  ~Fd() { Close(); }
  void Close() {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
};

std::vector<std::string> ChildEnvironment(const SubprocessSpec& spec) {
  std::map<std::string, std::string> env;
  for (char** e = environ; e && *e; ++e) {
    std::string_view kv(*e);
    const size_t eq = kv.find('=');
    if (eq == std::string_view::npos) continue;
    env[std::string(kv.substr(0, eq))] = std::string(kv.substr(eq + 1));
  }
  for (const auto& [k, v] : spec.env) env[k] = v;
  std::vector<std::string> out;
  for (const auto& [k, v] : env) out.push_back(k + "=" + v);
  return out;
}

// The descriptors N > 2 that "/dev/fd/N" names in `text` (TempFile's paths).
void AddNamedFds(std::string_view text, std::set<int>* fds) {
  constexpr std::string_view kPrefix = "/dev/fd/";
  for (size_t at = text.find(kPrefix); at != std::string_view::npos;
       at = text.find(kPrefix, at + 1)) {
    int n = 0;
    size_t i = at + kPrefix.size();
    const size_t digits = i;
    while (i < text.size() && i - digits < 6 && text[i] >= '0' && text[i] <= '9') {
      n = n * 10 + (text[i++] - '0');
    }
    if (i > digits && n > 2) fds->insert(n);
  }
}

// A descriptor the child is told to open as /dev/fd/N (an unnamed TempFile) stays open in
// it: dup2 onto itself clears close-on-exec in the child only (POSIX 2024, glibc 2.29+).
void PassNamedFds(const SubprocessSpec& spec, posix_spawn_file_actions_t* actions) {
  std::set<int> named;
  for (const std::string& a : spec.argv) AddNamedFds(a, &named);
  for (const auto& [k, v] : spec.env) AddNamedFds(v, &named);
  AddNamedFds(spec.stdin_path, &named);
  for (int fd : named) {
    if (::fcntl(fd, F_GETFD) >= 0) posix_spawn_file_actions_adddup2(actions, fd, fd);
  }
}

// How long poll() may block: until the deadline, and in slices while a stop may come.
int PollTimeoutMs(const SubprocessSpec& spec, std::chrono::steady_clock::time_point deadline) {
  int ms = -1;
  if (spec.timeout.count() > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    ms = static_cast<int>(std::clamp<int64_t>(left.count(), 0, 1 << 30));
  }
  if (spec.stop.stop_possible()) ms = ms < 0 ? 100 : std::min(ms, 100);
  return ms;
}

// Reads the child's standard output into `out` and its standard error into the outcome's
// tail until both close. False when the deadline passed or a stop was requested first (the
// caller kills the child: its descendants may hold the pipes open, so they are not waited for).
bool PumpOutput(const SubprocessSpec& spec, Fd* out_r, Fd* err_r, ByteSink* out,
                SubprocessOutcome* outcome, Status* sink_status) {
  const auto deadline = std::chrono::steady_clock::now() + spec.timeout;
  std::string buf(1 << 16, '\0');
  while (out_r->fd >= 0 || err_r->fd >= 0) {
    if (spec.stop.stop_requested()) return false;
    if (spec.timeout.count() > 0 && std::chrono::steady_clock::now() >= deadline) return false;
    pollfd fds[2];
    int n = 0;
    if (out_r->fd >= 0) fds[n++] = {out_r->fd, POLLIN, 0};
    if (err_r->fd >= 0) fds[n++] = {err_r->fd, POLLIN, 0};
    if (::poll(fds, n, PollTimeoutMs(spec, deadline)) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < n; ++i) {
      if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t got = ::read(fds[i].fd, buf.data(), buf.size());
      if (got < 0 && errno == EINTR) continue;
      const bool is_out = fds[i].fd == out_r->fd;
      if (got <= 0) {
        (is_out ? out_r : err_r)->Close();
        continue;
      }
      const std::string_view chunk(buf.data(), static_cast<size_t>(got));
      if (is_out) {
        if (out && sink_status->ok()) *sink_status = out->Append(chunk);
      } else {
        outcome->stderr_tail.append(chunk);
        if (outcome->stderr_tail.size() > kStderrTail) {
          outcome->stderr_tail.erase(0, outcome->stderr_tail.size() - kStderrTail);
        }
      }
    }
  }
  return true;
}

}  // namespace

Result<SubprocessOutcome> RunSubprocess(const SubprocessSpec& spec, ByteSink* out) {
  if (spec.argv.empty()) return Status::InvalidArgument("no program to run");
  int out_pipe[2], err_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) return Status::IOError("pipe: " + std::string(strerror(errno)));
  Fd out_r{out_pipe[0]}, out_w{out_pipe[1]};
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) return Status::IOError("pipe: " + std::string(strerror(errno)));
  Fd err_r{err_pipe[0]}, err_w{err_pipe[1]};

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  const std::string in = spec.stdin_path.empty() ? "/dev/null" : spec.stdin_path;
  posix_spawn_file_actions_addopen(&actions, 0, in.c_str(), O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_w.fd, 1);
  posix_spawn_file_actions_adddup2(&actions, err_w.fd, 2);
  PassNamedFds(spec, &actions);
  // A child that may be killed gets a process group of its own, so that its descendants
  // (a shell's children) are killed with it.
  const bool killable = spec.timeout.count() > 0 || spec.stop.stop_possible();
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  if (killable) {
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attr, 0);
  }

  std::vector<char*> argv;
  for (const std::string& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<std::string> env_strings = ChildEnvironment(spec);
  std::vector<char*> envp;
  for (std::string& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);

  pid_t pid = 0;
  const int rc = ::posix_spawnp(&pid, argv[0], &actions, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    return Status::NotFound(fmt::format("cannot run {}: {}", spec.argv[0], strerror(rc)));
  }
  out_w.Close();
  err_w.Close();

  SubprocessOutcome outcome;
  Status sink_status;
  const bool finished = PumpOutput(spec, &out_r, &err_r, out, &outcome, &sink_status);
  if (!finished) ::kill(-pid, SIGKILL);
  int wstatus = 0;
  while (::waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
  }
  outcome.exit_code = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus)
                                         : 128 + (WIFSIGNALED(wstatus) ? WTERMSIG(wstatus) : 0);
  if (!finished && spec.stop.stop_requested()) {
    return Status::Cancelled(fmt::format("{} stopped", spec.argv[0]));
  }
  outcome.timed_out = !finished;
  if (!sink_status.ok()) return sink_status;
  return outcome;
}

std::string FirstErrorLine(std::string_view text) {
  std::string_view last;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
    if (line.empty()) continue;
    if (line.find("ERROR") != std::string_view::npos ||
        line.find("error") != std::string_view::npos) {
      return std::string(line);
    }
    last = line;
  }
  return std::string(last);
}

}  // namespace lakedump
