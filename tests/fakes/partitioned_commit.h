// The partition of issue 30 as a test: a run cut off from the store while it sends
// _manifest.json (HoldingStore) loses its stale lease to an --if-exists resume run, which
// commits and sweeps; then the first run's PUT lands. For the unit test (MemoryStore) and the
// one against radosgw. Header-only; for tests.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "dump/export_service.h"
#include "fakes/commit_stores.h"
#include "fakes/fake_clock.h"
#include "fakes/fake_database.h"
#include "fakes/small_dump_options.h"
#include "lake/manifest.h"
#include "lake/object_keys.h"
#include "lake/verifier.h"

namespace lakedump::testing_commit {

inline FakeDatabase Source(uint64_t rows) {
  FakeDatabase db;
  db.AddTable(FakeTable{TableRef{"main", "a"}, rows});
  db.AddTable(FakeTable{TableRef{"main", "b"}, rows / 2});
  db.set_identity("fenced");
  return db;
}

// `sign_key`: "" unsigned, else the dump is signed with it.
inline DumpOptions Options(IfExists if_exists, Clock* clock, const std::string& sign_key = "") {
  DumpOptions o = SmallDumpOptions();
  o.if_exists = if_exists;
  o.clock = clock;
  o.sign_key = sign_key;
  return o;
}

struct Trial {
  Result<DumpResult> first = Status::Internal("not run");
  Result<DumpResult> second = Status::Internal("not run");
};

// The first run (overwrite over a committed dump, or a first dump) is held at its PUT of
// `held_key` (its manifest, or in a signed dump its signature, which goes first); meanwhile a
// resume, 40 s later by its clock, takes its lease over and commits.
inline Trial PartitionedCommit(ObjectStore& store, bool over_committed_dump,
                               const std::string& sign_key = "",
                               const std::string& held_key = std::string(kManifestKey)) {
  FakeClock clock_a, clock_b;
  clock_b.Advance(std::chrono::seconds(40));  // the first run's lease looks stale to it
  if (over_committed_dump) {
    FakeDatabase db = Source(800);
    FakeClock clock;
    EXPECT_TRUE(
        ExportService(&db, &store, Options(IfExists::kFail, &clock, sign_key)).Run().ok());
  }
  HoldingStore held(&store, held_key);
  FakeDatabase db_a = Source(1200), db_b = Source(1200);
  ExportService first(&db_a, &held,
                      Options(over_committed_dump ? IfExists::kOverwrite : IfExists::kFail,
                              &clock_a, sign_key));
  ExportService second(&db_b, &store, Options(IfExists::kResume, &clock_b, sign_key));
  Trial t;
  std::thread a([&] { t.first = first.Run(); });
  EXPECT_TRUE(held.WaitUntilHeld());
  std::thread b([&] { t.second = second.Run(); });
  clock_b.WaitForSleepers(1);  // the takeover's settle before it reads the lease back
  clock_b.Advance(std::chrono::milliseconds(1500));
  b.join();
  held.Release();  // the cut-off PUT lands now
  a.join();
  return t;
}

// Checks one trial: the resume won and its dump is committed and verifies whole (1800 rows);
// the first run exited non-zero naming it. Returns the runs that exited 0 with a dump that
// is not the committed one (0 when all is well).
inline int CheckTrial(ObjectStore& store, const Trial& t) {
  int wrong_zero_exits = 0;
  EXPECT_TRUE(t.second.ok()) << t.second.status().ToString();
  auto committed = ReadDumpManifest(store);
  EXPECT_TRUE(committed.ok()) << committed.status().ToString();
  if (!t.second.ok() || !committed.ok()) return 1;
  for (const Result<DumpResult>* r : {&t.first, &t.second}) {
    if (r->ok() && (*r)->manifest.dump_id != committed->dump_id) ++wrong_zero_exits;
  }
  EXPECT_EQ(committed->dump_id, t.second->manifest.dump_id);
  EXPECT_FALSE(t.first.ok());
  EXPECT_EQ(t.first.status().code(), Code::kAlreadyExists);
  const std::string msg(t.first.status().message());
  EXPECT_NE(msg.find("another run committed"), std::string::npos) << msg;
  EXPECT_NE(msg.find("run " + committed->dump_id + " (fencing token 2, host "),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("deletes nothing"), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  // The winner's dump is whole: the loser deleted nothing it wrote.
  auto report = Verify(store);
  EXPECT_TRUE(report.ok()) << report.status().ToString();
  if (!report.ok()) return wrong_zero_exits;
  for (const VerifyProblem& p : report->problems) ADD_FAILURE() << p.ToString();
  EXPECT_EQ(report->dump_id, committed->dump_id);
  EXPECT_EQ(report->rows, 1800u);
  EXPECT_FALSE(store.Head(kLeaseKey).ok());
  return wrong_zero_exits;
}

}  // namespace lakedump::testing_commit
