#include "dump/planner.h"

#include "base/utf8.h"
#include "lake/table_selection.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace lakedump {
namespace {

Status NotUtf8(const TableInfo& t, std::string_view what, std::string_view text) {
  const size_t at = FirstInvalidUtf8(text);
  return Status::InvalidArgument(fmt::format(
      "table {}: {} is not valid UTF-8 (byte 0x{:02x} at offset {}); lakedump records names "
      "and DDL as JSON text: rename it, or dump it with --query NAME=SQL and an alias",
      t.ref.QualifiedName(), what, static_cast<unsigned char>(text[at]), at));
}

}  // namespace

Status CheckUtf8Names(Database& db, const TableInfo& t) {
  if (!IsValidUtf8(t.ref.schema)) return NotUtf8(t, "its schema name", t.ref.schema);
  if (!IsValidUtf8(t.ref.name)) return NotUtf8(t, "its name", t.ref.name);
  LD_ASSIGN_OR_RETURN(TableDefinition def, db.DescribeTable(t));
  for (const Column& c : def.schema.columns()) {
    if (!IsValidUtf8(c.name)) return NotUtf8(t, "a column name", c.name);
    if (!IsValidUtf8(c.source_type)) {
      return NotUtf8(t, fmt::format("the type of column \"{}\"", c.name), c.source_type);
    }
  }
  for (const std::string& k : def.primary_key) {
    if (!IsValidUtf8(k)) return NotUtf8(t, "a primary key column", k);
  }
  if (!IsValidUtf8(def.ddl)) return NotUtf8(t, "its DDL", def.ddl);
  return Status::OK();
}

// A sharded dump's workers each take units whole, so one big table left in two 256 MiB
// ranges caps N workers at what two can do (measured: 4 workers no faster than 2 on a
// 350 MiB table plus 1000 small ones, docs/performance.md). With `--split-size auto` the
// coordinator splits to at most a 2N-th of the dump's estimated bytes (at least 32 MiB, so
// small dumps are not cut into ranges that cost more round trips than they save).
uint64_t ShardSplitBytes(const DumpOptions& options, const std::vector<TableInfo>& tables) {
  if (options.shards <= 0 || !options.split_bytes_auto || options.split_bytes == 0) {
    return options.split_bytes;
  }
  constexpr uint64_t kMinShardSplit = 32ull << 20;
  uint64_t total = 0;
  for (const TableInfo& t : tables) total += t.estimated_bytes;
  const uint64_t share = total / (2 * static_cast<uint64_t>(options.shards));
  return std::min(options.split_bytes, std::max(kMinShardSplit, share));
}

Result<DumpPlan> PlanDump(Database& db, const DumpOptions& options) {
  LD_ASSIGN_OR_RETURN(std::vector<TableInfo> listed, db.ListTables());

  for (const std::string& p : options.include) {
    const bool any = std::any_of(listed.begin(), listed.end(), [&](const TableInfo& t) {
      return TablePatternMatches(p, t.ref);
    });
    if (!any) {
      if (IsTableGlob(p)) {
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
    if (!options.include.empty() && !AnyTablePatternMatches(options.include, t.ref)) continue;
    if (AnyTablePatternMatches(options.exclude, t.ref)) continue;
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

  // Names and DDL go into _table.json and _manifest.json as JSON text, which must be UTF-8: a
  // name that is not is refused here, before anything is written.
  for (const TableInfo& t : chosen) {
    LD_RETURN_IF_ERROR(CheckUtf8Names(db, t));
  }

  const uint64_t split_bytes = ShardSplitBytes(options, chosen);
  DumpPlan plan;
  for (TableInfo& t : chosen) {
    PlannedTable pt;
    LD_ASSIGN_OR_RETURN(pt.units, db.Split(t, split_bytes));
    if (pt.units.empty()) pt.units.push_back(WorkUnit{t, 0, 1, ""});
    pt.info = std::move(t);
    plan.tables.push_back(std::move(pt));
  }
  return plan;
}

}  // namespace lakedump
