// When each selected entry of the dump's pg_dump archive is restored around the table loads,
// as `pg_restore --jobs` schedules them (issue 31, docs/performance.md):
//   PreData   before the tables: the entries of the pre-data section (types, tables,
//             functions, views, their comments and owners), without their grants;
//   early     while other tables still load: a table's indexes, keys, constraints, triggers,
//             rules, policies, extended statistics and their comments, as soon as every table
//             they are on or reference is loaded (and every post-data entry they need is
//             restored or comes with them);
//   Rest      after the last table: everything else (grants -- pg_restore too grants only
//             after the data --, default privileges, event triggers, publications, what is
//             on a materialized view, which is refreshed after it).
// An entry's section is pg_dump's, an entry without one (a comment, a grant) taking the section
// of the entry before it, as pg_restore does. Without sections (an archive read through
// `pg_restore --list`) every entry is pre-data or post-data by pg_restore's own --section,
// nothing is early (known() is false).
//
// PgEntryQueue then chooses which of the entries handed out may start, as pg_restore --jobs
// does.
//
// Not thread-safe: the caller serializes (pg_schema_restore.cc, pg_post_data_runner.cc hold a
// mutex).
#pragma once

#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "source/postgres/pg_archive_toc.h"

namespace lakedump {

// pg_restore's passes: what it restores after the data in this order (the grants, then
// event triggers and matview data), the rest first.
enum class PgRestorePass { kMain, kGrants, kAfterGrants };
PgRestorePass PgRestorePassOf(const PgArchiveTocEntry& e);

// A script pg_restore wrote (--file) as one query: without the "\\restrict KEY" line it
// begins with and the matching "\\unrestrict KEY" line (psql commands that pg_restore 17.6,
// 16.10, 15.14, ... write around a script); nullopt when any other line is a psql command
// (the script is then for psql only).
std::optional<std::string> PgRestoreScriptAsQuery(std::string_view script);

class PgRestoreSchedule {
 public:
  PgRestoreSchedule() = default;
  // `selected`: indices into `entries` to restore, in archive order. REQUIRES: `entries`
  // outlives the schedule.
  PgRestoreSchedule(const std::vector<PgArchiveTocEntry>& entries, std::vector<size_t> selected);

  // Every selected entry has its section (else PreData is every selected entry and Rest
  // every one again, for pg_restore --section to split).
  bool known() const { return known_; }
  // The entries to restore before the tables, in archive order.
  std::vector<size_t> PreData() const;
  // Table schema.name (as the archive's TABLE entry names it) is loaded and will not change.
  void TableLoaded(const std::string& schema, const std::string& name);
  // The entries that can be restored now and were not taken before (archive order): marked
  // taken. Empty when nothing is ready, or unknown sections.
  std::vector<size_t> TakeReady();
  // Every post-data and deferred entry not taken yet (archive order): marked taken.
  std::vector<size_t> TakeRest();

 private:
  bool Deferred(size_t i) const;  // only in Rest
  bool Ready(size_t i, const std::vector<char>& now) const;

  const std::vector<PgArchiveTocEntry>* entries_ = nullptr;
  std::vector<size_t> selected_;
  std::vector<int> section_;     // per entry: its section, or the one before it (none: 1)
  std::vector<char> is_selected_;
  std::vector<char> taken_;      // per entry: restored already (or handed out)
  std::vector<std::vector<size_t>> deps_;  // per entry: indices of its dependencies
  std::set<std::pair<std::string, std::string>> loaded_;
  bool known_ = false;
};

// Which of the entries handed out (Add) may start on a free connection, by pg_restore --jobs'
// rules (pg_backup_archiver.c): every dependency that was handed out is done, and no lock
// conflict with an entry running (a post-data entry but an index is taken to lock each table it
// depends on exclusively: it does not run beside an entry that depends on that table, nor the
// other way round). Entries start in the order handed out. When nothing runs and no entry is
// free (dependencies in a cycle, which pg_dump does not write), the first waiting one starts, as
// pg_restore then restores what is left in order: every entry runs.
class PgEntryQueue {
 public:
  // REQUIRES: `entries` outlives the queue.
  explicit PgEntryQueue(const std::vector<PgArchiveTocEntry>& entries);

  // Entries (indices into `entries`, each at most once in the queue's life) to restore.
  void Add(const std::vector<size_t>& list);
  // The next entry to start, marked running; nullopt when none may start now.
  std::optional<size_t> Start();
  // Entry `i` (running) is over.
  void Finish(size_t i);
  // Nothing waits and nothing runs.
  bool idle() const { return waiting_.empty() && running_.empty(); }

 private:
  enum State : char { kNotHere, kWaiting, kRunning, kDone };
  bool MayStart(size_t i) const;
  bool LockConflict(size_t a, size_t b) const;

  const std::vector<PgArchiveTocEntry>* entries_;
  std::vector<std::vector<size_t>> deps_;  // per entry: indices of its dependencies
  std::vector<std::vector<int>> locks_;    // per entry: dump ids of the tables it locks
  std::vector<State> state_;
  std::vector<size_t> waiting_;  // in the order added
  std::vector<size_t> running_;
};

}  // namespace lakedump
