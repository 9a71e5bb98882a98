// LocalStore stays inside its folder (issue 16): symlinked directories and files below the
// root are refused by every operation (never followed), and special files (a FIFO) are never
// opened, so nothing hangs.
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>

#include "fakes/sync.h"
#include "fakes/temp_dir.h"
#include "store/local/beneath.h"
#include "store/local/local_store.h"

namespace lakedump {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

std::unique_ptr<LocalStore> OpenOrDie(const std::string& root) {
  auto store = LocalStore::Open(root);
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  return std::move(store).value();
}

void WriteFile(const std::string& path, const std::string& data) {
  std::ofstream(path, std::ios::binary) << data;
}

// The finding: a destination holding a directory symlink counted as empty, and `dump` wrote
// (and replaced files) outside it. Listing refuses the link, and writing through it does not
// happen.
TEST(LocalStoreBeneathTest, DirectorySymlinkIsNeitherListedAsEmptyNorWrittenThrough) {
  TempDir dir;
  fs::create_directories(dir.Sub("dest"));
  fs::create_directories(dir.Sub("outside"));
  WriteFile(dir.Sub("outside/victim.txt"), "precious");
  fs::create_directory_symlink(dir.Sub("outside"), dir.Sub("dest/main"));
  auto store = OpenOrDie(dir.Sub("dest"));

  auto listed = store->List("");
  ASSERT_FALSE(listed.ok()) << "a destination holding a symlink was listed as "
                            << (listed.ok() ? listed->size() : 0) << " objects";
  EXPECT_THAT(listed.status().message(), HasSubstr("symbolic link"));
  EXPECT_THAT(listed.status().message(), HasSubstr("main"));

  auto writer = store->NewWriter("main/victim.txt");
  if (writer.ok()) {
    EXPECT_TRUE((*writer)->Append("overwritten").ok());
    EXPECT_FALSE((*writer)->Close().ok()) << "wrote through the symlink";
  }
  EXPECT_FALSE(store->NewWriter("main/new.parquet").ok());
  EXPECT_FALSE(store->NewReader("main/victim.txt").ok());
  EXPECT_FALSE(store->Head("main/victim.txt").ok());
  EXPECT_FALSE(store->Delete(std::vector<std::string>{"main/victim.txt"}).ok());
  EXPECT_FALSE(store->List("main/").ok());

  std::ifstream in(dir.Sub("outside/victim.txt"));
  std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(content, "precious");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.Sub("outside")), fs::directory_iterator()),
            1);
}

// The finding: `load` followed a symlinked data file out of the dump.
TEST(LocalStoreBeneathTest, SymlinkedFileIsRefusedNotFollowed) {
  TempDir dir;
  fs::create_directories(dir.Sub("dump/main/t"));
  WriteFile(dir.Sub("secret.txt"), "secret bytes");
  fs::create_symlink(dir.Sub("secret.txt"), dir.Sub("dump/main/t/part.parquet"));
  auto store = OpenOrDie(dir.Sub("dump"));
  auto reader = store->NewReader("main/t/part.parquet");
  ASSERT_FALSE(reader.ok());
  EXPECT_EQ(reader.status().code(), Code::kCorruption);
  EXPECT_THAT(reader.status().message(), HasSubstr("symbolic link"));
  EXPECT_FALSE(store->Head("main/t/part.parquet").ok());
  auto listed = store->List("");
  ASSERT_FALSE(listed.ok());
  EXPECT_THAT(listed.status().message(), HasSubstr("part.parquet"));
}

// The finding: a FIFO in a dump hung `ls`, `verify` and `load`. It is refused at once, named.
TEST(LocalStoreBeneathTest, FifoIsRefusedPromptly) {
  TempDir dir;
  fs::create_directories(dir.Sub("dump/main/t"));
  ASSERT_EQ(::mkfifo(dir.Sub("dump/main/t/_table.json").c_str(), 0644), 0);
  auto store = OpenOrDie(dir.Sub("dump"));
  // On a thread of its own: a store that opened the FIFO would block there, waiting for a
  // writer. The test then fails, and releases it by opening the FIFO's other end.
  auto calls = std::async(std::launch::async, [&] {
    auto reader = store->NewReader("main/t/_table.json");
    EXPECT_FALSE(reader.ok());
    if (!reader.ok()) {
      EXPECT_THAT(reader.status().message(), HasSubstr("not a regular file"));
      EXPECT_THAT(reader.status().message(), HasSubstr("main/t/_table.json"));
    }
    EXPECT_FALSE(store->Head("main/t/_table.json").ok());
    auto listed = store->List("");
    EXPECT_FALSE(listed.ok());
    if (!listed.ok()) {
      EXPECT_THAT(listed.status().message(), HasSubstr("not a regular file"));
    }
  });
  const bool returned = calls.wait_for(kEventLimit) == std::future_status::ready;
  if (!returned) {
    const int fd = ::open(dir.Sub("dump/main/t/_table.json").c_str(), O_RDWR | O_NONBLOCK);
    if (fd >= 0) ::close(fd);
  }
  calls.get();
  EXPECT_TRUE(returned) << "a call blocked on the FIFO";
}

// The root itself may be a symlink (the user named it), and ordinary objects still work.
TEST(LocalStoreBeneathTest, SymlinkedRootAndPlainObjectsWork) {
  TempDir dir;
  fs::create_directories(dir.Sub("real"));
  fs::create_directory_symlink(dir.Sub("real"), dir.Sub("link"));
  auto store = OpenOrDie(dir.Sub("link"));
  ASSERT_TRUE(store->PutObject("main/t/a.parquet", "abc").ok());
  auto text = store->GetObject("main/t/a.parquet");
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  EXPECT_EQ(*text, "abc");
  auto listed = store->List("");
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].key, "main/t/a.parquet");
  auto missing = store->NewReader("main/t/none.parquet");
  EXPECT_EQ(missing.status().code(), Code::kNotFound);
  auto missing_dir = store->NewReader("nope/t/none.parquet");
  EXPECT_EQ(missing_dir.status().code(), Code::kNotFound);
}

// The same refusals without openat2 (kernels before 5.6, or a seccomp filter denying it): the
// openat(O_NOFOLLOW) walk, segment by segment. Runs last: the switch is process-wide.
TEST(LocalStoreBeneathTest, ZzSegmentWalkRefusesTheSame) {
  UseSegmentWalkForTesting();
  TempDir dir;
  fs::create_directories(dir.Sub("dump/main/t"));
  fs::create_directories(dir.Sub("outside/t"));
  WriteFile(dir.Sub("outside/t/x.parquet"), "outside");
  WriteFile(dir.Sub("dump/main/t/ok.parquet"), "inside");
  fs::create_directory_symlink(dir.Sub("outside"), dir.Sub("dump/linked"));
  fs::create_symlink(dir.Sub("outside/t/x.parquet"), dir.Sub("dump/main/t/link.parquet"));
  ASSERT_EQ(::mkfifo(dir.Sub("dump/main/t/fifo").c_str(), 0644), 0);
  auto store = OpenOrDie(dir.Sub("dump"));
  auto ok = store->GetObject("main/t/ok.parquet");
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(*ok, "inside");
  auto linked_dir = store->NewReader("linked/t/x.parquet");
  EXPECT_EQ(linked_dir.status().code(), Code::kCorruption) << linked_dir.status().ToString();
  EXPECT_THAT(linked_dir.status().message(), HasSubstr("symbolic link"));
  auto linked_file = store->NewReader("main/t/link.parquet");
  EXPECT_EQ(linked_file.status().code(), Code::kCorruption);
  auto fifo = store->NewReader("main/t/fifo");
  EXPECT_THAT(fifo.status().message(), HasSubstr("not a regular file"));
  EXPECT_EQ(store->NewReader("main/t/ok.parquet/x").status().code(), Code::kNotFound);
  EXPECT_EQ(store->NewReader("main/none/x").status().code(), Code::kNotFound);
}

}  // namespace
}  // namespace lakedump
