#include "store/memory/memory_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>

namespace lakedump {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(MemoryStoreTest, ObjectIsVisibleOnlyAfterClose) {
  MemoryStore store;
  auto w = store.NewWriter("a/b");
  ASSERT_TRUE(w.ok());
  ASSERT_TRUE((*w)->Append("abc").ok());
  EXPECT_EQ((*w)->bytes_written(), 3u);
  EXPECT_EQ(store.open_writers(), 1);
  EXPECT_THAT(store.Keys(), IsEmpty());
  EXPECT_EQ(store.Head("a/b").status().code(), Code::kNotFound);
  ASSERT_TRUE((*w)->Close().ok());
  EXPECT_THAT(store.Keys(), ElementsAre("a/b"));
  EXPECT_EQ(*store.GetObject("a/b"), "abc");
  EXPECT_EQ(store.Head("a/b")->size, 3u);
  EXPECT_EQ(store.open_writers(), 0);
  EXPECT_EQ(store.committed_writers(), 1);
  EXPECT_EQ(store.aborted_writers(), 0);
  EXPECT_EQ(store.Describe(), "memory://memory");
}

TEST(MemoryStoreTest, UnclosedWritersAbortAndAreCounted) {
  MemoryStore store;
  {
    auto w = store.NewWriter("x");
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE((*w)->Append("lost").ok());
  }
  EXPECT_THAT(store.Keys(), IsEmpty());
  EXPECT_EQ(store.aborted_writers(), 1);
  EXPECT_EQ(store.open_writers(), 0);
}

TEST(MemoryStoreTest, ListFiltersByPrefixInKeyOrder) {
  MemoryStore store;
  for (const char* k : {"b/1", "a/2", "a/10", "ab", "c"}) ASSERT_TRUE(store.PutObject(k, k).ok());
  auto all = store.List("");
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 5u);
  EXPECT_EQ((*all)[0].key, "a/10");
  auto a = store.List("a/");
  ASSERT_TRUE(a.ok());
  ASSERT_EQ(a->size(), 2u);
  EXPECT_EQ((*a)[1].key, "a/2");
  EXPECT_EQ((*a)[1].size, 3u);
  EXPECT_EQ(store.List("a")->size(), 3u);
  EXPECT_EQ(store.List("../").status().code(), Code::kInvalidArgument);
}

TEST(MemoryStoreTest, ListAndHeadGiveTheEtagOfAOnePutObject) {
  MemoryStore store;
  ASSERT_TRUE(store.PutObject("k", "The quick brown fox jumps over the lazy dog").ok());
  auto listed = store.List("");
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 1u);
  // As S3 gives it: the MD5 of the bytes, unquoted, lower case.
  EXPECT_EQ((*listed)[0].etag, "9e107d9d372bb6826bd81d3542a419d6");
  EXPECT_EQ(store.Head("k")->etag, "9e107d9d372bb6826bd81d3542a419d6");
  EXPECT_EQ(Md5Etag(""), "d41d8cd98f00b204e9800998ecf8427e");
}

TEST(MemoryStoreTest, ReadersKeepTheVersionTheyOpened) {
  MemoryStore store;
  ASSERT_TRUE(store.PutObject("k", "version-1").ok());
  auto r = store.NewReader("k");
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(store.PutObject("k", "v2").ok());
  std::vector<std::string> keys = {"k", "missing"};
  ASSERT_TRUE(store.Delete(keys).ok());
  std::string out;
  ASSERT_TRUE((*r)->ReadAt(8, 1, &out).ok());
  EXPECT_EQ(out, "1");
  EXPECT_EQ((*r)->ReadAt(8, 2, &out).code(), Code::kCorruption);
  EXPECT_EQ(store.NewReader("k").status().code(), Code::kNotFound);
}

TEST(MemoryStoreTest, RejectsInvalidKeys) {
  MemoryStore store;
  EXPECT_EQ(store.NewWriter("../x").status().code(), Code::kInvalidArgument);
  EXPECT_EQ(store.NewWriter("").status().code(), Code::kInvalidArgument);
  EXPECT_EQ(store.NewReader("/x").status().code(), Code::kInvalidArgument);
  EXPECT_EQ(store.open_writers(), 0);
}

TEST(MemoryStoreTest, ConcurrentWriters) {
  MemoryStore store;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        const std::string key = "t/" + std::to_string(t) + "-" + std::to_string(i);
        if (i % 2 == 0) {
          ASSERT_TRUE(store.PutObject(key, key).ok());
        } else {
          auto w = store.NewWriter(key);  // aborted
          ASSERT_TRUE(w.ok());
        }
        (void)store.List("t/");
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(store.Keys().size(), 100u);
  EXPECT_EQ(store.aborted_writers(), 100);
  EXPECT_EQ(store.committed_writers(), 100);
}

TEST(NamedMemoryStoreTest, SameNameSameStore) {
  ClearNamedMemoryStores();
  auto a = NamedMemoryStore("x");
  auto b = NamedMemoryStore("x");
  auto c = NamedMemoryStore("y");
  EXPECT_EQ(a.get(), b.get());
  EXPECT_NE(a.get(), c.get());
  ClearNamedMemoryStores();
  EXPECT_NE(NamedMemoryStore("x").get(), a.get());
  ClearNamedMemoryStores();
}

}  // namespace
}  // namespace lakedump
