#include "dump/shard/shard_checks.h"

#include <fmt/format.h>

#include <set>
#include <utility>

#include "format/parquet/parquet_footer.h"
#include "lake/metadata_io.h"
#include "lake/object_checksum.h"
#include "lake/table_selection.h"

namespace lakedump {
namespace {

Status NotSelected(const ShardPlan& plan, const PlannedUnit& u, std::string_view why) {
  return Status::InvalidArgument(fmt::format(
      "{} of dump {} refused: it names {} {}, {}; this worker dumps only what its own "
      "command line selects",
      kShardPlanKey, plan.dump_id, u.is_query ? "query" : "table", u.table.QualifiedName(), why));
}

// One file read back: size, digests, rows.
Status CheckOneFile(ObjectStore& store, const DataFile& f, bool sha256, std::string_view what) {
  auto reader = store.NewReader(f.key);
  if (!reader.ok()) {
    if (reader.status().code() == Code::kNotFound) {
      return Status::Corruption(fmt::format("{}: file {} is missing", what, f.key));
    }
    return reader.status().WithContext(f.key);
  }
  ObjectReader& r = **reader;
  if (r.size() != f.bytes) {
    return Status::Corruption(fmt::format("{}: file {} has {} bytes, the report says {}", what,
                                          f.key, r.size(), f.bytes));
  }
  if (sha256 && f.sha256.empty()) {
    return Status::Corruption(
        fmt::format("{}: file {} has no SHA-256 in a signed dump's report", what, f.key));
  }
  LD_ASSIGN_OR_RETURN(ObjectDigests digests, HashObjectDigests(r, f.bytes, sha256));
  if (digests.xxh64 != f.xxh64 || (sha256 && digests.sha256 != f.sha256)) {
    return Status::Corruption(fmt::format(
        "{}: file {} read back does not have the checksum the report gives ({} {}, read {})",
        what, f.key, sha256 ? "SHA-256" : "XXH64", sha256 ? f.sha256 : f.xxh64,
        sha256 ? digests.sha256 : digests.xxh64));
  }
  auto footer = parquet::ReadParquetFooter(
      f.bytes, [&r](uint64_t offset, uint64_t len, std::string* out) {
        return r.ReadAt(offset, len, out);
      });
  if (!footer.ok()) {
    return Status::Corruption(
        fmt::format("{}: file {} is not a Parquet file: {}", what, f.key,
                    footer.status().message()));
  }
  if (footer->num_rows < 0 || static_cast<uint64_t>(footer->num_rows) != f.rows) {
    return Status::Corruption(fmt::format("{}: file {} holds {} rows, the report says {}", what,
                                          f.key, footer->num_rows, f.rows));
  }
  return Status::OK();
}

}  // namespace

bool IsCatalogTable(const TableRef& t) {
  const std::string& s = t.schema;
  // SQLite reserves sqlite_* in its schemas (a PostgreSQL table may be named so).
  const bool sqlite_schema = s == "main" || s == "temp";
  return s == "pg_catalog" || s == "information_schema" || s.starts_with("pg_toast") ||
         s.starts_with("pg_temp") || (sqlite_schema && t.name.starts_with("sqlite_"));
}

Status CheckPlanWithinSelection(Database& db, const DumpOptions& options, const ShardPlan& plan) {
  std::set<std::pair<std::string, std::string>> listed;
  bool have_listing = false;
  for (const auto& units : plan.shards) {
    for (const PlannedUnit& u : units) {
      if (u.is_query) continue;  // its SQL is this worker's own (ResolveUnits checks the name)
      if (IsCatalogTable(u.table)) return NotSelected(plan, u, "a catalog table");
      if (!options.include.empty() && !AnyTablePatternMatches(options.include, u.table)) {
        return NotSelected(plan, u, "which --tables does not select");
      }
      if (AnyTablePatternMatches(options.exclude, u.table)) {
        return NotSelected(plan, u, "which --exclude leaves out");
      }
      if (!have_listing) {
        LD_ASSIGN_OR_RETURN(std::vector<TableInfo> tables, db.ListTables());
        for (const TableInfo& t : tables) listed.emplace(t.ref.schema, t.ref.name);
        have_listing = true;
      }
      if (!listed.contains({u.table.schema, u.table.name})) {
        return NotSelected(plan, u, "which is not a table this source lists for a dump");
      }
    }
  }
  return Status::OK();
}

Status CheckFilesReadBack(ObjectStore& store, const std::vector<const DataFile*>& files,
                          bool sha256, size_t width, std::string_view what,
                          std::stop_token stop) {
  return ForEachMetadataIo(
      files.size(), width,
      [&](size_t i) { return CheckOneFile(store, *files[i], sha256, what); }, stop);
}

}  // namespace lakedump
