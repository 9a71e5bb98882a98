#include "store/local/local_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/mount.h>

#include <fstream>
#include <random>
#include <thread>

#include "fakes/fault_file_ops.h"
#include "fakes/temp_dir.h"

namespace lakedump {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

std::string RandomBytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string s(n, '\0');
  for (auto& c : s) c = static_cast<char>(rng());
  return s;
}

std::unique_ptr<LocalStore> OpenOrDie(const std::string& root, LocalFileOps* ops = nullptr) {
  auto store = LocalStore::Open(root, ops);
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  return std::move(store).value();
}

std::vector<std::string> KeysOf(const std::vector<ObjectInfo>& infos) {
  std::vector<std::string> keys;
  for (const auto& i : infos) keys.push_back(i.key);
  return keys;
}

bool HasTempFile(const TempDir& dir) {
  for (const std::string& f : dir.Files()) {
    if (LocalStore::IsTempFileName(std::filesystem::path(f).filename().string())) return true;
  }
  return false;
}

TEST(LocalStoreTest, ObjectIsVisibleOnlyAfterClose) {
  TempDir dir;
  auto store = OpenOrDie(dir.path());
  auto writer = store->NewWriter("s/t/part-0.parquet");
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  ASSERT_TRUE((*writer)->Append("hello ").ok());
  ASSERT_TRUE((*writer)->Append("world").ok());
  EXPECT_EQ((*writer)->bytes_written(), 11u);

  EXPECT_EQ(store->Head("s/t/part-0.parquet").status().code(), Code::kNotFound);
  EXPECT_THAT(KeysOf(*store->List("")), IsEmpty());
  EXPECT_FALSE(std::filesystem::exists(dir.Sub("s/t/part-0.parquet")));
  EXPECT_TRUE(HasTempFile(dir)) << "the bytes go to a temp file in the same folder";

  ASSERT_TRUE((*writer)->Close().ok());
  EXPECT_TRUE((*writer)->Close().ok()) << "a second Close is harmless";
  EXPECT_EQ(store->Head("s/t/part-0.parquet")->size, 11u);
  EXPECT_EQ(*store->GetObject("s/t/part-0.parquet"), "hello world");
  EXPECT_THAT(dir.Files(), ElementsAre("s/t/part-0.parquet"));
}

TEST(LocalStoreTest, DestroyingAnUnclosedWriterRemovesTheTempFile) {
  TempDir dir;
  auto store = OpenOrDie(dir.path());
  {
    auto writer = store->NewWriter("a/b.parquet");
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE((*writer)->Append(RandomBytes(3 << 20, 1)).ok());
    EXPECT_TRUE(HasTempFile(dir));
  }
  EXPECT_THAT(dir.Files(), IsEmpty());
}

TEST(LocalStoreTest, MixedAppendSizesRoundTrip) {
  TempDir dir;
  auto store = OpenOrDie(dir.path());
  auto writer = store->NewWriter("big.bin");
  ASSERT_TRUE(writer.ok());
  std::string expected;
  std::mt19937 rng(3);
  for (int i = 0; i < 60; ++i) {
    const size_t n = i % 7 == 0 ? (rng() % (3 << 20)) : rng() % 5000;
    std::string chunk = RandomBytes(n, i);
    expected += chunk;
    ASSERT_TRUE((*writer)->Append(chunk).ok());
  }
  ASSERT_TRUE((*writer)->Close().ok());
  EXPECT_EQ((*writer)->bytes_written(), expected.size());
  auto reader = store->NewReader("big.bin");
  ASSERT_TRUE(reader.ok());
  EXPECT_EQ((*reader)->size(), expected.size());
  std::string got;
  ASSERT_TRUE((*reader)->ReadAt(0, expected.size(), &got).ok());
  EXPECT_TRUE(got == expected);
  ASSERT_TRUE((*reader)->ReadAt(1000, 10, &got).ok());
  EXPECT_EQ(got, expected.substr(1000, 10));
  ASSERT_TRUE((*reader)->ReadAt(expected.size(), 0, &got).ok());
  EXPECT_EQ(got, "");
  Status past = (*reader)->ReadAt(expected.size() - 5, 10, &got);
  EXPECT_EQ(past.code(), Code::kCorruption);
  EXPECT_THAT(past.message(), HasSubstr("big.bin"));
  EXPECT_EQ((*reader)->ReadAt(UINT64_MAX, 2, &got).code(), Code::kCorruption);
}

TEST(LocalStoreTest, OverwriteReplacesAtomically) {
  TempDir dir;
  auto store = OpenOrDie(dir.path());
  ASSERT_TRUE(store->PutObject("k", "old").ok());
  auto writer = store->NewWriter("k");
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE((*writer)->Append("new!").ok());
  EXPECT_EQ(*store->GetObject("k"), "old");
  ASSERT_TRUE((*writer)->Close().ok());
  EXPECT_EQ(*store->GetObject("k"), "new!");
}

TEST(LocalStoreTest, ListIsRecursiveSortedAndSkipsTempFiles) {
  TempDir dir;
  auto store = OpenOrDie(dir.path());
  for (const char* key : {"b/2", "a/b/c", "a/b1", "_manifest.json", "a/a", "b/10", "ab"}) {
    ASSERT_TRUE(store->PutObject(key, key).ok()) << key;
  }
  auto open_writer = store->NewWriter("a/in-progress");  // leaves a temp file
  ASSERT_TRUE(open_writer.ok());
  ASSERT_TRUE((*open_writer)->Append("x").ok());

  EXPECT_THAT(KeysOf(*store->List("")),
              ElementsAre("_manifest.json", "a/a", "a/b/c", "a/b1", "ab", "b/10", "b/2"));
  EXPECT_THAT(KeysOf(*store->List("a/")), ElementsAre("a/a", "a/b/c", "a/b1"));
  EXPECT_THAT(KeysOf(*store->List("a/b")), ElementsAre("a/b/c", "a/b1"));
  EXPECT_THAT(KeysOf(*store->List("a")), ElementsAre("a/a", "a/b/c", "a/b1", "ab"));
  EXPECT_THAT(KeysOf(*store->List("missing/")), IsEmpty());
  EXPECT_THAT(KeysOf(*store->List("ab/")), IsEmpty()) << "ab is a file, not a folder";
  EXPECT_EQ((*store->List("b/"))[0].size, 4u);
}

TEST(LocalStoreTest, InvalidKeysAreRejectedEverywhere) {
  TempDir dir;
  auto store = OpenOrDie(dir.Sub("root"));
  const std::vector<std::string> bad_keys = {"",     "/etc/x", "../escape", "a/../../escape",
                                             "a//b", "a/",     std::string("a\0b", 3)};
  for (const std::string& key : bad_keys) {
    EXPECT_EQ(store->NewWriter(key).status().code(), Code::kInvalidArgument) << key;
    EXPECT_EQ(store->NewReader(key).status().code(), Code::kInvalidArgument) << key;
    EXPECT_EQ(store->Head(key).status().code(), Code::kInvalidArgument) << key;
    std::vector<std::string> keys = {"fine", key};
    EXPECT_EQ(store->Delete(keys).code(), Code::kInvalidArgument) << key;
  }
  EXPECT_EQ(store->List("../").status().code(), Code::kInvalidArgument);
  EXPECT_THAT(dir.Files(), IsEmpty());
}

TEST(LocalStoreTest, RootIsCreatedByTheFirstWriter) {
  TempDir dir;
  auto store = OpenOrDie(dir.Sub("x/y/z/"));
  EXPECT_EQ(store->Describe(), dir.Sub("x/y/z"));
  EXPECT_THAT(KeysOf(*store->List("")), IsEmpty());
  ASSERT_TRUE(store->PutObject("t/f", "1").ok());
  EXPECT_TRUE(std::filesystem::is_regular_file(dir.Sub("x/y/z/t/f")));
}

TEST(LocalStoreTest, DestinationThatIsAFileIsAClearError) {
  TempDir dir;
  std::ofstream(dir.Sub("file")) << "x";
  auto store = LocalStore::Open(dir.Sub("file"));
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(store.status().message(), "destination is a file: " + dir.Sub("file"));
  EXPECT_FALSE(LocalStore::Open(dir.Sub("file/sub")).ok());

  // The same when the file appears after the store was opened.
  auto late = OpenOrDie(dir.Sub("late"));
  std::ofstream(dir.Sub("late")) << "x";
  Status s = late->PutObject("a/b", "1");
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("destination is a file: " + dir.Sub("late")));

  // A file where a key needs a folder; this fails even for root.
  auto store2 = OpenOrDie(dir.Sub("d"));
  ASSERT_TRUE(store2->PutObject("t", "file").ok());
  Status in_the_way = store2->PutObject("t/part-0", "x");
  EXPECT_EQ(in_the_way.code(), Code::kInvalidArgument);
  EXPECT_THAT(in_the_way.message(), HasSubstr(dir.Sub("d/t")));
}

TEST(LocalStoreTest, ReaderAndHeadOfMissingObjectsAreNotFound) {
  TempDir dir;
  auto store = OpenOrDie(dir.path());
  ASSERT_TRUE(store->PutObject("folder/x", "1").ok());
  EXPECT_EQ(store->NewReader("nope").status().code(), Code::kNotFound);
  EXPECT_EQ(store->NewReader("folder").status().code(), Code::kNotFound);
  EXPECT_EQ(store->NewReader("folder/x/y").status().code(), Code::kNotFound);
  EXPECT_EQ(store->Head("folder").status().code(), Code::kNotFound);
  EXPECT_EQ(store->Head("nope").status().code(), Code::kNotFound);
}

TEST(LocalStoreTest, DeleteIgnoresMissingKeys) {
  TempDir dir;
  auto store = OpenOrDie(dir.path());
  ASSERT_TRUE(store->PutObject("a/1", "1").ok());
  ASSERT_TRUE(store->PutObject("a/2", "2").ok());
  std::vector<std::string> keys = {"a/1", "a/missing", "zz/missing"};
  ASSERT_TRUE(store->Delete(keys).ok());
  EXPECT_THAT(KeysOf(*store->List("")), ElementsAre("a/2"));
}

TEST(LocalStoreTest, ConcurrentWritersAllLand) {
  TempDir dir;
  auto store = OpenOrDie(dir.path());
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 25; ++i) {
        const std::string key = "t" + std::to_string(i % 5) + "/part-" + std::to_string(t) +
                                "-" + std::to_string(i);
        if (!store->PutObject(key, key).ok()) failures++;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  auto all = store->List("");
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->size(), 100u);
  EXPECT_FALSE(HasTempFile(dir));
}

// --- failure paths through FaultFileOps -----------------------------------

TEST(LocalStoreFaultTest, PermissionDeniedNamesThePath) {
  TempDir dir;
  FaultFileOps ops;
  auto store = OpenOrDie(dir.path(), &ops);
  ops.FailNth(FaultFileOps::Op::kOpen, 1, EACCES);
  auto w = store->NewWriter("t/f");
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.status().code(), Code::kPermissionDenied);
  EXPECT_EQ(w.status().message(), "permission denied: " + dir.Sub("t/f"));

  auto store2 = OpenOrDie(dir.Sub("new-root"), &ops);
  ops.FailNth(FaultFileOps::Op::kMkdir, ops.calls(FaultFileOps::Op::kMkdir) + 1, EACCES);
  Status s = store2->PutObject("x", "1");
  EXPECT_EQ(s.code(), Code::kPermissionDenied);
  EXPECT_THAT(s.message(), HasSubstr("permission denied: " + dir.Sub("new-root")));
  EXPECT_FALSE(HasTempFile(dir));
}

TEST(LocalStoreFaultTest, DiskFullFailsAndLeavesNoTempFile) {
  TempDir dir;
  FaultFileOps ops;
  auto store = OpenOrDie(dir.path(), &ops);
  ops.SetWriteLimit(100000);
  auto w = store->NewWriter("t/f.parquet");
  ASSERT_TRUE(w.ok());
  Status s;
  for (int i = 0; i < 5 && s.ok(); ++i) s = (*w)->Append(RandomBytes(700000, i));
  if (s.ok()) s = (*w)->Close();
  EXPECT_EQ(s.code(), Code::kIOError);
  EXPECT_EQ(s.message(), "disk full while writing " + dir.Sub("t/f.parquet"));
  EXPECT_EQ((*w)->Append("more").code(), Code::kIOError) << "errors are sticky";
  EXPECT_EQ((*w)->Close().code(), Code::kIOError);
  EXPECT_THAT(dir.Files(), IsEmpty()) << "the temp file is removed at the failure";
}

TEST(LocalStoreFaultTest, FsyncFailureIsAnErrorAndLeavesNothing) {
  TempDir dir;
  FaultFileOps ops;
  auto store = OpenOrDie(dir.path(), &ops);
  ops.FailNth(FaultFileOps::Op::kFsync, 1, EIO);
  auto w = store->NewWriter("f");
  ASSERT_TRUE(w.ok());
  ASSERT_TRUE((*w)->Append("data").ok());
  Status s = (*w)->Close();
  EXPECT_EQ(s.code(), Code::kIOError);
  EXPECT_THAT(s.message(), HasSubstr(dir.Sub("f")));
  EXPECT_THAT(s.message(), HasSubstr("Input/output error"));
  EXPECT_THAT(dir.Files(), IsEmpty());
}

TEST(LocalStoreFaultTest, RenameFailureIsAnErrorAndLeavesNothing) {
  TempDir dir;
  FaultFileOps ops;
  auto store = OpenOrDie(dir.path(), &ops);
  ops.FailNth(FaultFileOps::Op::kRename, 1, EXDEV);
  auto w = store->NewWriter("f");
  ASSERT_TRUE(w.ok());
  ASSERT_TRUE((*w)->Append("data").ok());
  Status s = (*w)->Close();
  EXPECT_EQ(s.code(), Code::kIOError);
  EXPECT_THAT(s.message(), HasSubstr("rename"));
  EXPECT_THAT(dir.Files(), IsEmpty());
}

TEST(LocalStoreFaultTest, DirectoryFsyncFailureLeavesTheObjectInvisible) {
  TempDir dir;
  FaultFileOps ops;
  auto store = OpenOrDie(dir.path(), &ops);
  ops.FailNth(FaultFileOps::Op::kFsync, 2, EIO);  // 1 = the file, 2 = its folder
  Status s = store->PutObject("f", "data");
  EXPECT_EQ(s.code(), Code::kIOError);
  EXPECT_THAT(s.message(), HasSubstr("fsync directory"));
  EXPECT_THAT(dir.Files(), IsEmpty());
}

// A real full disk: a 1 MiB tmpfs. Needs CAP_SYS_ADMIN; skipped otherwise.
TEST(LocalStoreFaultTest, RealDiskFullOnSmallTmpfs) {
  TempDir dir;
  const std::string mnt = dir.Sub("mnt");
  std::filesystem::create_directory(mnt);
  if (::mount("tmpfs", mnt.c_str(), "tmpfs", 0, "size=1m") != 0) {
    GTEST_SKIP() << "cannot mount a tmpfs here: " << strerror(errno);
  }
  struct Unmount {
    std::string path;
    ~Unmount() { ::umount(path.c_str()); }
  } unmount{mnt};
  Status s;
  {
    auto store = OpenOrDie(mnt + "/dump");
    auto w = store->NewWriter("t/part-0.parquet");
    ASSERT_TRUE(w.ok());
    for (int i = 0; i < 4 && s.ok(); ++i) s = (*w)->Append(RandomBytes(700000, i));
    if (s.ok()) s = (*w)->Close();
  }
  std::vector<std::string> left;
  for (auto& e : std::filesystem::recursive_directory_iterator(mnt)) {
    if (e.is_regular_file()) left.push_back(e.path().string());
  }
  EXPECT_EQ(s.code(), Code::kIOError);
  EXPECT_EQ(s.message(), "disk full while writing " + mnt + "/dump/t/part-0.parquet");
  EXPECT_THAT(left, IsEmpty());
}

}  // namespace
}  // namespace lakedump

namespace lakedump {
namespace {

TEST(LocalStoreTest, BigFilesStartTheirWritebackAsTheyGo) {
  TempDir dir;
  FaultFileOps ops;
  auto store = OpenOrDie(dir.Sub("root"), &ops);
  auto writer = store->NewWriter("big.bin");
  ASSERT_TRUE(writer.ok());
  const std::string chunk = RandomBytes(300 << 10, 7);
  std::string all;
  while (all.size() < 3 * LocalStore::kWritebackBytes + 100) {
    ASSERT_TRUE((*writer)->Append(chunk).ok());
    all += chunk;
  }
  // One write-back start per kWritebackBytes written, while writing (not at Close).
  EXPECT_EQ(ops.calls(FaultFileOps::Op::kStartWriteback), 3);
  ASSERT_TRUE((*writer)->Close().ok());
  EXPECT_EQ(store->GetObject("big.bin").value(), all);

  // It is advisory: failing it fails nothing.
  ops.FailFrom(FaultFileOps::Op::kStartWriteback, 1, EIO);
  ASSERT_TRUE(store->PutObject("big2.bin", all).ok());
  EXPECT_EQ(store->GetObject("big2.bin").value(), all);
  // Small files never ask.
  const int before = ops.calls(FaultFileOps::Op::kStartWriteback);
  ASSERT_TRUE(store->PutObject("small", "x").ok());
  EXPECT_EQ(ops.calls(FaultFileOps::Op::kStartWriteback), before);
}

TEST(LocalStoreDeferredSyncTest, CloseDoesNotFsyncSyncWrittenSyncsFilesAndDirsOnce) {
  TempDir dir;
  FaultFileOps ops;
  auto store = LocalStore::Open(dir.Sub("root"), &ops, /*deferred_sync=*/true);
  ASSERT_TRUE(store.ok());
  for (int i = 0; i < 20; ++i) {
    ASSERT_TRUE((*store)->PutObject("t" + std::to_string(i % 4) + "/f" + std::to_string(i), "x").ok());
  }
  EXPECT_EQ(ops.calls(FaultFileOps::Op::kFsync), 0);
  // Visible at once, durable after SyncWritten: 20 files + 4 table dirs + the root.
  EXPECT_EQ((*store)->List("").value().size(), 20u);
  ASSERT_TRUE((*store)->SyncWritten().ok());
  EXPECT_EQ(ops.calls(FaultFileOps::Op::kFsync), 25);
  ASSERT_TRUE((*store)->SyncWritten().ok());  // nothing new: no fsync
  EXPECT_EQ(ops.calls(FaultFileOps::Op::kFsync), 25);
}

// A file written then deleted before SyncWritten (an increment's key index written again
// elsewhere) is not synced: SyncWritten does not fail on it.
TEST(LocalStoreDeferredSyncTest, AFileDeletedBeforeSyncWrittenIsNotSynced) {
  TempDir dir;
  FaultFileOps ops;
  auto store = LocalStore::Open(dir.Sub("root"), &ops, /*deferred_sync=*/true);
  ASSERT_TRUE(store.ok());
  ASSERT_TRUE((*store)->PutObject("a/kept.parquet", "x").ok());
  ASSERT_TRUE((*store)->PutObject("a/gone.parquet", "y").ok());
  ASSERT_TRUE((*store)->Delete(std::vector<std::string>{"a/gone.parquet"}).ok());
  ASSERT_TRUE((*store)->SyncWritten().ok());
  EXPECT_EQ(ops.calls(FaultFileOps::Op::kFsync), 3);  // kept.parquet, a/, root
}

TEST(LocalStoreDeferredSyncTest, FailedSyncIsReportedAndTheFilesStayPending) {
  TempDir dir;
  FaultFileOps ops;
  auto store = LocalStore::Open(dir.Sub("root"), &ops, /*deferred_sync=*/true);
  ASSERT_TRUE(store.ok());
  ASSERT_TRUE((*store)->PutObject("a/b.parquet", "data").ok());
  ops.FailNth(FaultFileOps::Op::kFsync, 1, EIO);
  Status s = (*store)->SyncWritten();
  EXPECT_EQ(s.code(), Code::kIOError);
  EXPECT_NE(s.message().find("b.parquet"), std::string::npos) << s.ToString();
  // A retry syncs them again rather than forgetting them.
  const int before = ops.calls(FaultFileOps::Op::kFsync);
  ASSERT_TRUE((*store)->SyncWritten().ok());
  EXPECT_EQ(ops.calls(FaultFileOps::Op::kFsync) - before, 3);  // file, a/, root
}

// Many pending files: one syncfs(2) instead of an fsync per file and directory
// (this machine's kernel is >= 5.8; older kernels keep the fsyncs).
TEST(LocalStoreDeferredSyncTest, ManyFilesAreSyncedWithOneSyncfs) {
  TempDir dir;
  FaultFileOps ops;
  auto store = LocalStore::Open(dir.Sub("root"), &ops, /*deferred_sync=*/true);
  ASSERT_TRUE(store.ok());
  const int n = static_cast<int>(LocalStore::kSyncfsMinFiles) + 6;
  for (int i = 0; i < n; ++i) {
    ASSERT_TRUE((*store)->PutObject("t" + std::to_string(i % 7) + "/f" + std::to_string(i), "x").ok());
  }
  ASSERT_TRUE((*store)->SyncWritten().ok());
  EXPECT_EQ(ops.calls(FaultFileOps::Op::kSyncfs), 1);
  EXPECT_EQ(ops.calls(FaultFileOps::Op::kFsync), 0);
  EXPECT_EQ((*store)->List("").value().size(), static_cast<size_t>(n));
  ASSERT_TRUE((*store)->SyncWritten().ok());  // nothing new: no call at all
  EXPECT_EQ(ops.calls(FaultFileOps::Op::kSyncfs), 1);
  EXPECT_EQ(ops.calls(FaultFileOps::Op::kFsync), 0);
}

// A failed syncfs fails SyncWritten, keeps the files pending, and the retry
// fsyncs them one by one: syncfs reports an error only once per descriptor.
TEST(LocalStoreDeferredSyncTest, FailedSyncfsIsReportedAndTheRetryFsyncsEachFile) {
  TempDir dir;
  FaultFileOps ops;
  auto store = LocalStore::Open(dir.Sub("root"), &ops, /*deferred_sync=*/true);
  ASSERT_TRUE(store.ok());
  const int n = static_cast<int>(LocalStore::kSyncfsMinFiles);
  for (int i = 0; i < n; ++i) {
    ASSERT_TRUE((*store)->PutObject("t" + std::to_string(i % 2) + "/f" + std::to_string(i), "x").ok());
  }
  ops.FailNth(FaultFileOps::Op::kSyncfs, 1, EIO);
  Status s = (*store)->SyncWritten();
  EXPECT_EQ(s.code(), Code::kIOError);
  EXPECT_NE(s.message().find("syncfs"), std::string::npos) << s.ToString();
  ASSERT_TRUE((*store)->SyncWritten().ok());
  EXPECT_EQ(ops.calls(FaultFileOps::Op::kSyncfs), 1);
  EXPECT_EQ(ops.calls(FaultFileOps::Op::kFsync), n + 3);  // files, t0/, t1/, root
}

}  // namespace
}  // namespace lakedump
