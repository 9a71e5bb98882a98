#include "load/postgres/increment_checks.h"

#include <fmt/format.h>

#include <set>

#include "lake/table_selection.h"
#include "load/load_service.h"
#include "load/postgres/increment_files.h"
#include "load/postgres/pg_type_grammar.h"
#include "source/postgres/pg_conn.h"
#include "store/prefix_store.h"

namespace lakedump {

bool IncrementDdlAllowed(const IncrementTrust& trust, const IncrementManifest& increment) {
  return IncrementTrusted(trust.trust_dump, trust.chain, increment.sequence);
}

bool IncrementCarriesDdl(const IncrementManifest& increment) {
  return !increment.redumped.empty() || !increment.dropped.empty();
}

namespace {

bool Selected(const std::vector<std::string>& include, const std::vector<std::string>& exclude,
              const TableRef& t) {
  return (include.empty() || AnyTablePatternMatches(include, t)) &&
         !AnyTablePatternMatches(exclude, t);
}

// A schema of the target an increment never touches: the system's, and lakedump's own
// (applied_increments.h).
bool ReservedSchema(const std::string& schema) {
  return schema.starts_with("pg_") || schema == "information_schema" || schema == "lakedump";
}

class ScopeCheck {
 public:
  ScopeCheck(const DumpManifest& base, const IncrementScope& scope) : scope_(scope) {
    for (const TableSummary& s : base.tables) base_tables_.insert(s.table.QualifiedName());
    auto selection = ReadBaseSelection(base);
    if (selection.ok()) base_selection_ = std::move(*selection);
    else base_status_ = selection.status();
  }

  // The tables `m` says were created after the base (re-dumped whole, their reason
  // kCreatedAfterBase) that the base's own selection covers: from then on, an increment may
  // re-dump or drop them.
  void Follow(const IncrementManifest& m) {
    for (const IncrementalTable& t : m.tables) {
      if (t.mode == IncrementalMode::kRedump && t.reason == kCreatedAfterBase &&
          Selected(base_selection_.include, base_selection_.exclude, t.ref)) {
        created_.insert(t.ref.QualifiedName());
      }
    }
  }

  // `created_ok`: a table created after the base may be named (re-dumped, dropped).
  Status Check(const IncrementManifest& m, const TableRef& t, std::string_view list,
               bool created_ok) const {
    LD_RETURN_IF_ERROR(base_status_);
    const std::string name = t.QualifiedName();
    std::string_view why;
    if (!base_tables_.contains(name) && !(created_ok && created_.contains(name))) {
      why = "which is not a table of its base dump";
    } else if (!Selected(scope_.include, scope_.exclude, t)) {
      why = "which this load does not select";
    } else if (ReservedSchema(MapTargetTable(t, scope_.schema_map).schema)) {
      why = "whose schema in the target is reserved";
    }
    if (why.empty()) return Status::OK();
    return Status::InvalidArgument(
        fmt::format("increment {} refused: its {} names table {}, {}; nothing was applied",
                    m.sequence, list, name, why));
  }

 private:
  const IncrementScope& scope_;
  std::set<std::string> base_tables_;
  std::set<std::string> created_;
  BaseSelection base_selection_;
  Status base_status_;
};

Status CheckScope(const IncrementManifest& m, const ScopeCheck& scope) {
  for (const ChangeFile& f : m.change_files) {
    LD_RETURN_IF_ERROR(scope.Check(m, f.table, "change file list", false));
  }
  for (const RedumpedTable& r : m.redumped) {
    LD_RETURN_IF_ERROR(scope.Check(m, r.table, "re-dumped list", true));
  }
  for (const TableRef& d : m.dropped) LD_RETURN_IF_ERROR(scope.Check(m, d, "dropped list", true));
  return Status::OK();
}

Status CheckDdl(const IncrementManifest& m, const IncrementTrust& trust) {
  if (!IncrementCarriesDdl(m) || IncrementDdlAllowed(trust, m)) return Status::OK();
  std::string what;
  if (!m.redumped.empty()) {
    what = fmt::format("re-dumps {} table(s), {} first", m.redumped.size(),
                       m.redumped.front().table.QualifiedName());
  }
  if (!m.dropped.empty()) {
    what += fmt::format("{}drops {} table(s), {} first", what.empty() ? "" : " and ",
                        m.dropped.size(), m.dropped.front().QualifiedName());
  }
  return Status::InvalidArgument(fmt::format(
      "increment {} refused: it carries DDL ({}), which only a trusted load applies "
      "(--trust-dump) or a verified signature of this increment (--require-signature); nothing "
      "was applied",
      m.sequence, what));
}

// The column types of the increment's re-dumped tables, in the closed grammar.
Status CheckRedumpTypes(ObjectStore& dest, const IncrementManifest& m) {
  if (m.redumped.empty()) return Status::OK();
  PrefixStore increment(&dest, IncrementPrefix(m.sequence));
  PrefixStore redump(&increment, std::string(kRedumpFolder));
  LD_ASSIGN_OR_RETURN(DumpManifest dump, ReadIncrementRedumpManifest(redump, m));
  for (const RedumpedTable& t : m.redumped) {
    LD_ASSIGN_OR_RETURN(TableManifest tm, ReadRedumpedTable(redump, dump, t.table, m.sequence));
    for (const Column& c : tm.schema.columns()) {
      auto type = ParsePgColumnType(c.source_type);
      if (!type.ok()) {
        return Status::InvalidArgument(fmt::format(
            "increment {} refused: table {}, column {}: {}; nothing was applied", m.sequence,
            t.table.QualifiedName(), QuoteIdent(c.name), type.status().message()));
      }
    }
  }
  return Status::OK();
}

}  // namespace

Status CheckIncrementsBeforeApply(ObjectStore& dest, const DumpManifest& base,
                                  const std::vector<IncrementManifest>& increments, int first,
                                  int until, const IncrementScope& scope,
                                  const IncrementTrust& trust) {
  ScopeCheck scope_check(base, scope);
  for (const IncrementManifest& m : increments) {
    if (m.sequence > until) break;
    scope_check.Follow(m);
    if (m.sequence < first) continue;
    LD_RETURN_IF_ERROR(CheckScope(m, scope_check));
    LD_RETURN_IF_ERROR(CheckDdl(m, trust));
    LD_RETURN_IF_ERROR(CheckRedumpTypes(dest, m));
  }
  return Status::OK();
}

}  // namespace lakedump
