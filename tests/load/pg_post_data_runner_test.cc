// The post-data entries run on a fixed number of workers (issue 31: on lakedump's own
// connections instead of a pg_restore per batch): every entry once, after what it depends on,
// one entry at a time per worker; the first failure stops the starts and is what Wait returns.
#include "load/postgres/pg_post_data_runner.h"

#include <gtest/gtest.h>

#include <future>
#include <map>
#include <mutex>
#include <set>

namespace lakedump {
namespace {

PgArchiveTocEntry Entry(int id, std::string desc, std::vector<int> deps) {
  PgArchiveTocEntry a;
  a.dump_id = id;
  a.section = 4;
  a.desc = std::move(desc);
  a.tag = "e" + std::to_string(id);
  a.dependencies = std::move(deps);
  return a;
}

// A table, then a chain and a fan of post-data entries on it.
std::vector<PgArchiveTocEntry> Chain() {
  std::vector<PgArchiveTocEntry> toc = {Entry(1, "TABLE", {})};
  toc[0].section = 2;
  for (int id = 2; id <= 40; ++id) {
    toc.push_back(Entry(id, id % 3 == 0 ? "CONSTRAINT" : "INDEX", {1, id % 5 == 0 ? id - 1 : 1}));
  }
  return toc;
}

// What ran: per entry, the order it started and ended in, and which worker ran it.
struct Log {
  std::mutex mu;
  int clock = 0;
  std::map<size_t, std::pair<int, int>> times;
  std::map<size_t, size_t> worker;
  std::map<size_t, int> busy;  // per worker: entries running on it now
  bool overlap = false;        // a worker ran two entries at once
};

TEST(PgPostDataRunnerTest, EveryEntryRunsOnceAfterWhatItDependsOn) {
  const auto toc = Chain();
  Log log;
  PgPostDataRunner runner(toc, 2, [&](size_t w, size_t i) {
    {
      std::lock_guard lock(log.mu);
      EXPECT_EQ(log.times.count(i), 0u) << "entry ran twice";
      log.times[i].first = ++log.clock;
      log.worker[i] = w;
      if (++log.busy[w] > 1) log.overlap = true;
    }
    std::lock_guard lock(log.mu);
    --log.busy[w];
    log.times[i].second = ++log.clock;
    return Status::OK();
  });
  std::vector<size_t> first, second;
  for (size_t i = 1; i < toc.size(); ++i) (i < 20 ? first : second).push_back(i);
  runner.Add(first);
  runner.Add(second);
  ASSERT_TRUE(runner.Wait().ok());
  ASSERT_EQ(log.times.size(), toc.size() - 1);
  EXPECT_FALSE(log.overlap);
  for (size_t i = 1; i < toc.size(); ++i) {
    EXPECT_LT(log.worker[i], 2u);
    for (int d : toc[i].dependencies) {
      const size_t dep = static_cast<size_t>(d - 1);
      if (dep == 0) continue;  // the table: not an entry of the runner
      EXPECT_LT(log.times[dep].second, log.times[i].first) << toc[i].dump_id << " after " << d;
    }
  }
}

TEST(PgPostDataRunnerTest, TheFirstFailureStopsTheStartsAndIsReturned) {
  // e2 fails; e3 depends on it and must never start.
  std::vector<PgArchiveTocEntry> toc = {Entry(1, "INDEX", {}), Entry(2, "INDEX", {}),
                                        Entry(3, "INDEX", {2})};
  std::mutex mu;
  std::set<size_t> ran;
  PgPostDataRunner runner(toc, 2, [&](size_t, size_t i) {
    std::lock_guard lock(mu);
    ran.insert(i);
    return i == 1 ? Status::IOError("restoring the dump's INDEX e2 failed: ERROR: boom")
                  : Status::OK();
  });
  runner.Add({0, 1, 2});
  const Status s = runner.Wait();
  EXPECT_EQ(s.code(), Code::kIOError);
  EXPECT_NE(s.ToString().find("INDEX e2"), std::string::npos) << s.ToString();
  runner.Stop();
  std::lock_guard lock(mu);
  EXPECT_EQ(ran.count(2), 0u);
  runner.Add({2});  // after a failure: nothing
}

// Entries handed out while others run start on the free worker (a table loaded while the
// entries of the one before still run).
TEST(PgPostDataRunnerTest, EntriesAddedWhileOthersRunStartOnAFreeWorker) {
  std::vector<PgArchiveTocEntry> toc = {Entry(1, "INDEX", {}), Entry(2, "INDEX", {})};
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::promise<void> second_ran;
  PgPostDataRunner runner(toc, 2, [&](size_t, size_t i) {
    if (i == 0) {
      released.wait();  // holds its worker until the second entry ran
    } else {
      second_ran.set_value();
    }
    return Status::OK();
  });
  runner.Add({0});
  runner.Add({1});
  second_ran.get_future().wait();
  release.set_value();
  EXPECT_TRUE(runner.Wait().ok());
}

}  // namespace
}  // namespace lakedump
