// TempFile (issue 29): the bytes a child program reads -- the PostgreSQL schema archive,
// pg_restore's --use-list, the service file holding the client key's passphrase -- never have
// a name in the temp directory: not while the child reads them, not after, not after kill -9.
// Only a child whose argv or environment names the file gets its descriptor.
#include "base/temp_file.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "base/byte_sink.h"
#include "base/subprocess.h"
#include "fakes/temp_dir.h"

namespace lakedump {
namespace {

// Points TMPDIR at a fresh directory for the test's lifetime.
class PrivateTmpdir {
 public:
  PrivateTmpdir() {
    const char* old = std::getenv("TMPDIR");
    if (old != nullptr) old_ = old;
    had_ = old != nullptr;
    ::setenv("TMPDIR", dir_.path().c_str(), 1);
  }
  ~PrivateTmpdir() {
    if (had_) {
      ::setenv("TMPDIR", old_.c_str(), 1);
    } else {
      ::unsetenv("TMPDIR");
    }
  }
  bool Empty() const { return std::filesystem::is_empty(dir_.path()); }
  const std::string& path() const { return dir_.path(); }

 private:
  TempDir dir_;
  std::string old_;
  bool had_ = false;
};

TEST(TempFileTest, AChildReadsItWhileTheTempDirHoldsNothing) {
  PrivateTmpdir tmp;
  std::string path;
  {
    TempFile f;
    ASSERT_TRUE(f.Write("sslpassword=secret\n").ok());
    path = f.path();
    EXPECT_TRUE(path.starts_with("/dev/fd/")) << path;
    // The child lists the temp directory, then reads the file by the path it was given: in
    // argv, and (as PGSERVICEFILE) in its environment.
    SubprocessSpec spec;
    spec.argv = {"/bin/sh", "-c", "ls -A \"$1\"; echo ---; cat \"$2\"; cat \"$LD_FILE\"", "sh",
                 tmp.path(), path};
    spec.env = {{"LD_FILE", path}};
    StringSink out;
    auto run = RunSubprocess(spec, &out);
    ASSERT_TRUE(run.ok()) << run.status().ToString();
    EXPECT_EQ(run->exit_code, 0) << run->stderr_tail;
    EXPECT_EQ(out.str(), "---\nsslpassword=secret\nsslpassword=secret\n");
    EXPECT_TRUE(tmp.Empty());
    // A child that is not told of the file does not get its descriptor.
    const std::string n = path.substr(std::string("/dev/fd/").size());
    SubprocessSpec other;
    other.argv = {"/bin/sh", "-c", "cat /dev/fd/$((LD_N + 0))"};
    other.env = {{"LD_N", n}};
    StringSink none;
    auto denied = RunSubprocess(other, &none);
    ASSERT_TRUE(denied.ok());
    EXPECT_NE(denied->exit_code, 0);
    EXPECT_EQ(none.str(), "");
  }
  EXPECT_TRUE(tmp.Empty());
}

TEST(TempFileTest, NothingIsLeftAfterKill9) {
  PrivateTmpdir tmp;
  const pid_t pid = ::fork();
  if (pid == 0) {
    TempFile f;
    if (!f.Write(std::string(1 << 20, 'a')).ok()) ::_exit(3);
    ::kill(::getpid(), SIGKILL);
    ::_exit(4);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGKILL);
  EXPECT_TRUE(tmp.Empty());
}

TEST(TempFileTest, ReplacingAndDestroyingCloseTheFile) {
  PrivateTmpdir tmp;
  TempFile f;
  ASSERT_TRUE(f.Write("one").ok());
  ASSERT_TRUE(f.Write("two").ok());
  SubprocessSpec spec;
  spec.argv = {"/bin/cat", f.path()};
  StringSink out;
  auto run = RunSubprocess(spec, &out);
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(out.str(), "two");
  EXPECT_TRUE(tmp.Empty());
}

}  // namespace
}  // namespace lakedump
