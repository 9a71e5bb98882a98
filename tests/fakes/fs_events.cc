#include "fakes/fs_events.h"

#include <poll.h>
#include <sys/inotify.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <filesystem>
#include <system_error>

#include "fakes/sync.h"

namespace lakedump {
namespace {

namespace fs = std::filesystem;

constexpr uint32_t kChanges = IN_CREATE | IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_TO |
                              IN_MOVED_FROM | IN_DELETE | IN_ATTRIB;

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

// Watches `dir` (and below it when `recursive`), or its parent while it does not exist yet.
// Adding a watch twice is harmless (inotify returns the same one).
void AddWatches(int inotify, const fs::path& dir, bool recursive) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    inotify_add_watch(inotify, dir.parent_path().c_str(), kChanges);
    return;
  }
  inotify_add_watch(inotify, dir.c_str(), kChanges);
  if (!recursive) return;
  for (auto it = fs::recursive_directory_iterator(dir, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_directory(ec)) inotify_add_watch(inotify, it->path().c_str(), kChanges);
  }
}

}  // namespace

bool WaitForFiles(const std::string& dir, bool recursive, pid_t child,
                  const std::function<bool()>& done) {
  Fd inotify(inotify_init1(IN_NONBLOCK | IN_CLOEXEC));
  Fd exited(child > 0 ? static_cast<int>(::syscall(SYS_pidfd_open, child, 0)) : -1);
  const int limit_ms = static_cast<int>(kEventLimit.count() * 1000);
  std::array<char, 64 * 1024> events;
  for (;;) {
    // Watch first, then look: whatever changes after the look wakes the poll below.
    AddWatches(inotify.get(), dir, recursive);
    if (done()) return true;
    pollfd fds[2] = {{inotify.get(), POLLIN, 0}, {exited.get(), POLLIN, 0}};
    const int ready = ::poll(fds, exited.get() >= 0 ? 2 : 1, limit_ms);
    if (ready <= 0) return done();  // nothing changed for kEventLimit (or poll failed)
    if (fds[1].revents != 0) return done();  // the child has exited
    while (::read(inotify.get(), events.data(), events.size()) > 0) {
    }
  }
}

}  // namespace lakedump
