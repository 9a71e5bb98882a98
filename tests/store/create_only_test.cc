// WriteOptions::create_only on the stores that enforce it themselves (local,
// memory): the second create of a key fails AlreadyExists, the first object
// stays, and nothing else (no temp file) is left.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <thread>

#include "fakes/temp_dir.h"
#include "store/local/local_store.h"
#include "store/memory/memory_store.h"

namespace lakedump {
namespace {

void ExpectCreateOnly(ObjectStore& store) {
  ASSERT_TRUE(store.PutObject("d/lease", "first", WriteOptions{.create_only = true}).ok());
  Status again = store.PutObject("d/lease", "second", WriteOptions{.create_only = true});
  EXPECT_EQ(again.code(), Code::kAlreadyExists) << again.ToString();
  EXPECT_EQ(*store.GetObject("d/lease"), "first");
  // A plain write still replaces it.
  ASSERT_TRUE(store.PutObject("d/lease", "third").ok());
  EXPECT_EQ(*store.GetObject("d/lease"), "third");
  // Many creators at once: exactly one wins.
  std::atomic<int> won{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&, i] {
      if (store.PutObject("d/race", std::to_string(i), WriteOptions{.create_only = true}).ok()) {
        ++won;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(won.load(), 1);
  EXPECT_TRUE(store.create_only_is_atomic());
}

TEST(CreateOnlyTest, LocalStore) {
  TempDir dir;
  auto store = LocalStore::Open(dir.Sub("root"));
  ASSERT_TRUE(store.ok());
  ExpectCreateOnly(**store);
  auto temps = (*store)->ListTempFiles();
  ASSERT_TRUE(temps.ok());
  EXPECT_TRUE(temps->empty());
  size_t files = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir.Sub("root"))) {
    if (e.is_regular_file()) ++files;
  }
  EXPECT_EQ(files, 2u);  // d/lease and d/race
}

TEST(CreateOnlyTest, MemoryStore) {
  MemoryStore store("create-only");
  ExpectCreateOnly(store);
  EXPECT_EQ(store.open_writers(), 0);
}

}  // namespace
}  // namespace lakedump
