#include "dump/planner.h"

#include <fmt/format.h>
#include <fnmatch.h>

#include <algorithm>
#include <set>

namespace lakedump {
namespace {

bool IsGlob(std::string_view p) { return p.find_first_of("*?[") != std::string_view::npos; }

bool MatchesAny(const std::vector<std::string>& patterns, const TableRef& t) {
  for (const auto& p : patterns) {
    if (TablePatternMatches(p, t)) return true;
  }
  return false;
}

}  // namespace

bool TablePatternMatches(std::string_view pattern, const TableRef& table) {
  const std::string p(pattern);
  return fnmatch(p.c_str(), table.QualifiedName().c_str(), 0) == 0 ||
         fnmatch(p.c_str(), table.name.c_str(), 0) == 0;
}

Result<DumpPlan> PlanDump(Database& db, const DumpOptions& options) {
  LD_ASSIGN_OR_RETURN(std::vector<TableInfo> listed, db.ListTables());

  for (const std::string& p : options.include) {
    const bool any = std::any_of(listed.begin(), listed.end(), [&](const TableInfo& t) {
      return TablePatternMatches(p, t.ref);
    });
    if (!any) {
      if (IsGlob(p)) {
        return Status::InvalidArgument(
            fmt::format("--tables pattern \"{}\" matches no table", p));
      }
      return Status::InvalidArgument(
          fmt::format("unknown table {} (in --tables; `lakedump dump --help` shows how to "
                      "name tables)",
                      p));
    }
  }

  std::vector<TableInfo> chosen;
  for (TableInfo& t : listed) {
    if (!options.include.empty() && !MatchesAny(options.include, t.ref)) continue;
    if (MatchesAny(options.exclude, t.ref)) continue;
    chosen.push_back(std::move(t));
  }
  if (!options.include.empty() && chosen.empty() && options.queries.empty()) {
    return Status::InvalidArgument("--exclude removes every table chosen by --tables");
  }

  std::set<std::string> query_names;
  for (const NamedQuery& q : options.queries) {
    if (q.name.empty() || q.sql.empty()) {
      return Status::InvalidArgument(
          fmt::format("--query \"{}={}\": expected NAME=SQL with both parts non-empty", q.name,
                      q.sql));
    }
    if (!query_names.insert(q.name).second) {
      return Status::InvalidArgument(fmt::format("--query name \"{}\" is used twice", q.name));
    }
    TableInfo info;
    info.ref = TableRef{"query", q.name};
    info.query = q.sql;
    auto described = db.DescribeTable(info);
    if (!described.ok()) {
      return described.status().WithContext(fmt::format("--query {}", q.name));
    }
    chosen.push_back(std::move(info));
  }

  std::stable_sort(chosen.begin(), chosen.end(), [](const TableInfo& a, const TableInfo& b) {
    if (a.estimated_bytes != b.estimated_bytes) return a.estimated_bytes > b.estimated_bytes;
    if (a.estimated_rows != b.estimated_rows) return a.estimated_rows > b.estimated_rows;
    return a.ref.QualifiedName() < b.ref.QualifiedName();
  });

  // Lock every chosen table up front (against concurrent DDL, for the whole
  // dump), which also lets a backend describe and size them in batches.
  LD_RETURN_IF_ERROR(db.LockTables(chosen));

  DumpPlan plan;
  for (TableInfo& t : chosen) {
    PlannedTable pt;
    LD_ASSIGN_OR_RETURN(pt.units, db.Split(t, options.split_bytes));
    if (pt.units.empty()) pt.units.push_back(WorkUnit{t, 0, 1, ""});
    pt.info = std::move(t);
    plan.tables.push_back(std::move(pt));
  }
  return plan;
}

}  // namespace lakedump
