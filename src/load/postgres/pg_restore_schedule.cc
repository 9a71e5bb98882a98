#include "load/postgres/pg_restore_schedule.h"

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
      deps_(entries.size()) {
  known_ = true;
  int current = kSectionPreData;
  std::unordered_map<int, size_t> by_id;
  for (size_t i = 0; i < entries.size(); ++i) {
    const int s = entries[i].section;
    if (s == 0) known_ = false;
    if (s != 0 && s != kSectionNone) current = s;
    section_[i] = s == 0 || s == kSectionNone ? current : s;
    by_id.emplace(entries[i].dump_id, i);
  }
  for (size_t i = 0; i < entries.size(); ++i) {
    for (int d : entries[i].dependencies) {
      if (auto it = by_id.find(d); it != by_id.end() && it->second != i) {
        deps_[i].push_back(it->second);
      }
    }
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
