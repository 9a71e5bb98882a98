#include "load/postgres/pg_restore_schedule.h"

#include <algorithm>
#include <unordered_map>

namespace lakedump {
namespace {

constexpr int kSectionNone = 1;
constexpr int kSectionPreData = 2;
constexpr int kSectionPostData = 4;

bool IsGrantOrAfterGrants(const PgArchiveTocEntry& e) {
  return PgRestorePassOf(e) != PgRestorePass::kMain;
}

// Post-data entries restored while other tables load: each is on, or references, tables only.
bool MayGoEarly(const std::string& desc) {
  return desc == "INDEX" || desc == "CONSTRAINT" || desc == "FK CONSTRAINT" ||
         desc == "CHECK CONSTRAINT" || desc == "INDEX ATTACH" || desc == "TRIGGER" ||
         desc == "RULE" || desc == "POLICY" || desc == "ROW SECURITY" || desc == "STATISTICS" ||
         desc == "COMMENT";
}

// Per entry: the indices of the entries it depends on (dump ids the archive does not hold, or
// its own, left out).
std::vector<std::vector<size_t>> ScheduleDependencyIndices(
    const std::vector<PgArchiveTocEntry>& entries) {
  std::unordered_map<int, size_t> by_id;
  for (size_t i = 0; i < entries.size(); ++i) by_id.emplace(entries[i].dump_id, i);
  std::vector<std::vector<size_t>> deps(entries.size());
  for (size_t i = 0; i < entries.size(); ++i) {
    for (int d : entries[i].dependencies) {
      if (auto it = by_id.find(d); it != by_id.end() && it->second != i) {
        deps[i].push_back(it->second);
      }
    }
  }
  return deps;
}

}  // namespace

// As pg_restore's _tocEntryRestorePass (pg_backup_archiver.c).
PgRestorePass PgRestorePassOf(const PgArchiveTocEntry& e) {
  if (e.desc == "ACL" || e.desc == "DEFAULT ACL" || e.desc == "ACL LANGUAGE") {
    return PgRestorePass::kGrants;
  }
  if (e.desc == "EVENT TRIGGER" || e.desc == "MATERIALIZED VIEW DATA") {
    return PgRestorePass::kAfterGrants;
  }
  if ((e.desc == "COMMENT" || e.desc == "SECURITY LABEL") &&
      e.tag.starts_with("EVENT TRIGGER ")) {
    return PgRestorePass::kAfterGrants;
  }
  return PgRestorePass::kMain;
}

PgRestoreSchedule::PgRestoreSchedule(const std::vector<PgArchiveTocEntry>& entries,
                                     std::vector<size_t> selected)
    : entries_(&entries),
      selected_(std::move(selected)),
      section_(entries.size(), kSectionPreData),
      is_selected_(entries.size(), 0),
      taken_(entries.size(), 0),
      deps_(ScheduleDependencyIndices(entries)) {
  known_ = true;
  int current = kSectionPreData;
  for (size_t i = 0; i < entries.size(); ++i) {
    const int s = entries[i].section;
    if (s == 0) known_ = false;
    if (s != 0 && s != kSectionNone) current = s;
    section_[i] = s == 0 || s == kSectionNone ? current : s;
  }
  for (size_t i : selected_) is_selected_[i] = 1;
}

bool PgRestoreSchedule::Deferred(size_t i) const {
  const PgArchiveTocEntry& e = (*entries_)[i];
  return IsGrantOrAfterGrants(e) || section_[i] != kSectionPreData;
}

std::vector<size_t> PgRestoreSchedule::PreData() const {
  if (!known_) return selected_;
  std::vector<size_t> out;
  for (size_t i : selected_) {
    if (!Deferred(i)) out.push_back(i);
  }
  return out;
}

void PgRestoreSchedule::TableLoaded(const std::string& schema, const std::string& name) {
  loaded_.emplace(schema, name);
}

// Whether entry `i` may be restored now: each dependency restored before the tables, a loaded
// table, restored already, or ready in this round (`now`, filled in archive order).
bool PgRestoreSchedule::Ready(size_t i, const std::vector<char>& now) const {
  const std::vector<PgArchiveTocEntry>& e = *entries_;
  if (section_[i] != kSectionPostData || IsGrantOrAfterGrants(e[i]) || !MayGoEarly(e[i].desc)) {
    return false;
  }
  for (size_t d : deps_[i]) {
    if (!is_selected_[d]) continue;  // not restored: as pg_restore, counted as done
    const PgArchiveTocEntry& dep = e[d];
    if (dep.desc == "TABLE") {
      if (!loaded_.count({dep.schema, dep.tag})) return false;
    } else if (dep.desc == "MATERIALIZED VIEW" || dep.desc == "FOREIGN TABLE") {
      return false;  // refreshed (or not loaded) after the tables
    } else if (Deferred(d) && !taken_[d] && !now[d]) {
      return false;
    }
  }
  return true;
}

std::vector<size_t> PgRestoreSchedule::TakeReady() {
  std::vector<size_t> out;
  if (!known_ || loaded_.empty()) return out;
  std::vector<char> now(entries_->size(), 0);
  for (size_t i : selected_) {
    if (taken_[i] || !Ready(i, now)) continue;
    now[i] = 1;
    out.push_back(i);
  }
  for (size_t i : out) taken_[i] = 1;
  return out;
}

std::vector<size_t> PgRestoreSchedule::TakeRest() {
  std::vector<size_t> out;
  for (size_t i : selected_) {
    if (taken_[i] || (known_ && !Deferred(i))) continue;
    taken_[i] = 1;
    out.push_back(i);
  }
  return out;
}

// As pg_restore's identify_locking_dependencies: a post-data entry (its own section, not the
// one before it) but an index (CREATE INDEX takes a share lock) locks the tables it depends on.
PgEntryQueue::PgEntryQueue(const std::vector<PgArchiveTocEntry>& entries)
    : entries_(&entries),
      deps_(ScheduleDependencyIndices(entries)),
      locks_(entries.size()),
      state_(entries.size(), kNotHere) {
  for (size_t i = 0; i < entries.size(); ++i) {
    if (entries[i].section != kSectionPostData || entries[i].desc == "INDEX") continue;
    for (size_t d : deps_[i]) {
      if (entries[d].desc == "TABLE" || entries[d].desc == "TABLE DATA") {
        locks_[i].push_back(entries[d].dump_id);
      }
    }
  }
}

void PgEntryQueue::Add(const std::vector<size_t>& list) {
  for (size_t i : list) {
    if (state_[i] != kNotHere) continue;
    state_[i] = kWaiting;
    waiting_.push_back(i);
  }
}

// Entry `a` locks a table entry `b` depends on.
bool PgEntryQueue::LockConflict(size_t a, size_t b) const {
  const std::vector<int>& deps = (*entries_)[b].dependencies;
  return std::any_of(locks_[a].begin(), locks_[a].end(), [&deps](int table) {
    return std::find(deps.begin(), deps.end(), table) != deps.end();
  });
}

bool PgEntryQueue::MayStart(size_t i) const {
  for (size_t d : deps_[i]) {
    if (state_[d] == kWaiting || state_[d] == kRunning) return false;
  }
  return std::none_of(running_.begin(), running_.end(),
                      [&](size_t r) { return LockConflict(i, r) || LockConflict(r, i); });
}

std::optional<size_t> PgEntryQueue::Start() {
  if (waiting_.empty()) return std::nullopt;
  auto it = std::find_if(waiting_.begin(), waiting_.end(), [&](size_t i) { return MayStart(i); });
  if (it == waiting_.end()) {
    if (!running_.empty()) return std::nullopt;
    it = waiting_.begin();  // a cycle: in order, as pg_restore
  }
  const size_t i = *it;
  waiting_.erase(it);
  state_[i] = kRunning;
  running_.push_back(i);
  return i;
}

void PgEntryQueue::Finish(size_t i) {
  std::erase(running_, i);
  state_[i] = kDone;
}

std::optional<std::string> PgRestoreScriptAsQuery(std::string_view script) {
  std::string out;
  std::string key;
  size_t at = 0;
  while (at < script.size()) {
    size_t end = script.find('\n', at);
    end = end == std::string_view::npos ? script.size() : end + 1;
    const std::string_view line = script.substr(at, end - at);
    at = end;
    if (!line.starts_with('\\')) {
      out.append(line);
      continue;
    }
    const std::string_view text = line.substr(0, line.find_last_not_of("\r\n") + 1);
    if (key.empty() && text.starts_with("\\restrict ")) {
      key = std::string(text.substr(10));
    } else if (key.empty() || text != "\\unrestrict " + key) {
      return std::nullopt;
    }
  }
  return out;
}

}  // namespace lakedump
