#include "load/postgres/pg_restore_script.h"

#include <charconv>
#include <utility>
#include <vector>

#include "load/postgres/pg_restore_schedule.h"
#include "source/postgres/pg_conn.h"

namespace lakedump {
namespace {

constexpr std::string_view kScriptEntryMarker = "-- TOC entry ";
constexpr size_t kNoEntryStart = std::string_view::npos;

// A setting pg_restore writes before an entry's header only when it changes.
bool IsScriptStatefulSetting(std::string_view line) {
  for (std::string_view p : {"SET default_tablespace = ", "SET default_table_access_method = ",
                             "SET search_path = ", "SET SESSION AUTHORIZATION "}) {
    if (line.starts_with(p)) return true;
  }
  return false;
}

// The start of the line before the one that starts at `at` (> 0).
size_t ScriptLineBefore(std::string_view text, size_t at) {
  if (at < 2) return 0;
  const size_t nl = text.rfind('\n', at - 2);
  return nl == std::string_view::npos ? 0 : nl + 1;
}

// Where the entry whose marker line starts at `marker` begins: the header's "--" line before
// it, and before that the blank lines and the settings written for it, not before `floor` (the
// end of the previous entry's marker line). kNoEntryStart without the "--" line.
size_t ScriptEntryStart(std::string_view text, size_t marker, size_t floor) {
  if (marker <= floor) return kNoEntryStart;
  size_t at = ScriptLineBefore(text, marker);
  if (at < floor || text.substr(at, marker - at) != "--\n") return kNoEntryStart;
  while (at > floor) {
    const size_t before = ScriptLineBefore(text, at);
    if (before < floor) break;
    const std::string_view line = text.substr(before, at - before);
    if (line != "\n" && !IsScriptStatefulSetting(line)) break;
    at = before;
  }
  while (at < marker && text[at] == '\n') ++at;  // blank lines stay with the entry before
  return at;
}

// The dump id of a marker line ("-- TOC entry 3202 (class 2606 OID 16409)"); 0 when it is not
// one.
int ScriptMarkerId(std::string_view line) {
  if (!line.starts_with(kScriptEntryMarker)) return 0;
  const char* begin = line.data() + kScriptEntryMarker.size();
  const char* end = line.data() + line.size();
  int id = 0;
  const auto [next, ec] = std::from_chars(begin, end, id);
  if (ec != std::errc() || id <= 0) return 0;
  return std::string_view(next, static_cast<size_t>(end - next)).starts_with(" (class ") ? id : 0;
}

}  // namespace

std::optional<PgRestoreScript> SplitPgRestoreScript(std::string_view script,
                                                    const std::set<int>& ids) {
  const std::optional<std::string> query = PgRestoreScriptAsQuery(script);
  if (!query) return std::nullopt;
  const std::string_view text = *query;
  std::vector<std::pair<size_t, int>> starts;  // where each entry begins, its dump id
  std::set<int> seen;
  size_t floor = 0;
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find('\n', at);
    end = end == std::string_view::npos ? text.size() : end + 1;
    const std::string_view line = text.substr(at, end - at);
    if (const int id = ScriptMarkerId(line); id != 0) {  // else text that looks like one
      if (ids.count(id) == 0 || !seen.insert(id).second) return std::nullopt;
      const size_t start = ScriptEntryStart(text, at, floor);
      if (start == kNoEntryStart) return std::nullopt;
      starts.emplace_back(start, id);
      floor = end;
    }
    at = end;
  }
  PgRestoreScript out;
  out.preamble = std::string(text.substr(0, starts.empty() ? text.size() : starts[0].first));
  for (size_t k = 0; k < starts.size(); ++k) {
    const size_t end = k + 1 < starts.size() ? starts[k + 1].first : text.size();
    out.entries[starts[k].second] =
        std::string(text.substr(starts[k].first, end - starts[k].first));
  }
  return out;
}

std::string PgRestoreEntrySql(const PgArchiveTocEntry& e, const std::string& sql) {
  if (!e.has_tablespace) return sql;
  // As pg_restore's _selectTablespace: "" is the database's default.
  const std::string value = e.tablespace.empty() ? "''" : QuoteIdent(e.tablespace);
  return "SET default_tablespace = " + value + ";\n" + sql;
}

std::string PgRestoreEntryName(const PgArchiveTocEntry& e) {
  std::string name = e.desc + " ";
  if (e.has_schema && !e.schema.empty()) name += e.schema + ".";
  name += e.tag;
  for (char& c : name) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  }
  return name;
}

}  // namespace lakedump
