// `lakedump ls DEST`: what a dump holds, from its manifest.
#include <fmt/format.h>

#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "base/units.h"
#include "cli/cli_util.h"
#include "lake/iceberg_snapshots.h"
#include "lake/incremental_state.h"
#include "source/postgres/pgoutput.h"
#include "cli/commands.h"
#include "dump/iceberg/iceberg_commit.h"
#include "lake/manifest.h"
#include "lake/no_snapshot.h"
#include "lake/schema_archive.h"

namespace lakedump::cli {
namespace {

struct LsArgs {
  std::string dest;
  bool json = false;
  bool ddl = false;
  bool snapshots = false;
  S3Flags s3;
};

// A string field of `j`, or "" when absent or not a string.
std::string Str(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// What a load or a verify needs to know about the source, as "key: value" lines: its kind
// and version, where it was, and the snapshot the dump is consistent with.
std::vector<std::string> SourceFacts(const nlohmann::json& source) {
  std::vector<std::string> out;
  if (!source.is_object()) return {"source: " + DisplayJson(source)};
  const std::string kind = Str(source, "kind");
  if (kind == "postgresql") {
    std::string where = Str(source, "host");
    if (!Str(source, "port").empty()) where += ":" + Str(source, "port");
    where += "/" + Str(source, "database");
    out.push_back(fmt::format("source: PostgreSQL {} at {} (user {})",
                              Str(source, "server_version"), where, Str(source, "user")));
    // No id: a --no-snapshot dump, whose "snapshot" says so.
    const std::string id = Str(source, "snapshot_id");
    const std::string none = Str(source, "snapshot").empty() ? "none" : Str(source, "snapshot");
    std::string snap = "snapshot: " + (id.empty() ? none : id);
    if (!Str(source, "wal_lsn").empty()) snap += ", WAL LSN " + Str(source, "wal_lsn");
    auto standby = source.find("in_recovery");
    if (standby != source.end() && standby->is_boolean() && standby->get<bool>()) {
      snap += " (taken on a standby)";
    }
    if (!Str(source, "isolation").empty()) snap += "; " + Str(source, "isolation");
    out.push_back(snap);
  } else if (kind == "sqlite") {
    out.push_back(fmt::format("source: SQLite {} file {}", Str(source, "sqlite_version"),
                              Str(source, "path")));
    if (!Str(source, "snapshot").empty()) {
      out.push_back(fmt::format("snapshot: {} (journal mode {})", Str(source, "snapshot"),
                                Str(source, "journal_mode")));
    }
  } else {
    out.push_back("source: " + (kind.empty() ? DisplayJson(source) : kind));
  }
  return out;
}

// Control characters of names shown as \xNN, so a name cannot rewrite the terminal.
std::string Printable(std::string_view text) {
  std::string out;
  for (unsigned char c : text) {
    if (c < 0x20 || c == 0x7f) {
      out += fmt::format("\\x{:02x}", c);
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

// The manifest's "schema": where it came from, the archive, and its objects by type
// (every object with --ddl).
std::vector<std::string> SchemaLines(const nlohmann::json& schema, bool each_object) {
  std::vector<std::string> lines;
  const std::string from = SchemaFrom(schema);
  if (from.empty()) return lines;
  std::string head = "\nschema: from " + from;
  if (schema.contains("archive") && schema["archive"].is_object()) {
    const nlohmann::json& a = schema["archive"];
    head += fmt::format(" {}, archive {} ({} bytes)", Printable(a.value("pg_dump_version", "")),
                        Printable(a.value("key", "")), a.value("bytes", uint64_t{0}));
  }
  lines.push_back(head);
  const nlohmann::json objects = schema.value("objects", nlohmann::json::array());
  std::map<std::string, size_t> counts;
  for (const nlohmann::json& o : objects) {
    if (o.is_object()) ++counts[o.value("type", "?")];
  }
  std::string summary;
  for (const auto& [type, n] : counts) {
    summary += fmt::format("{}{} {}", summary.empty() ? "" : ", ", n, Printable(type));
  }
  if (!summary.empty()) lines.push_back("objects: " + summary);
  const nlohmann::json sequences = schema.value("sequences", nlohmann::json::array());
  if (!sequences.empty()) lines.push_back(fmt::format("sequences with values: {}", sequences.size()));
  if (schema.contains("large_objects") && schema["large_objects"].is_array()) {
    uint64_t bytes = 0;
    for (const nlohmann::json& o : schema["large_objects"]) {
      if (o.is_object() && o.contains("bytes") && o["bytes"].is_number_unsigned()) {
        bytes += o["bytes"].get<uint64_t>();
      }
    }
    lines.push_back(fmt::format("large objects: {} ({} bytes)", schema["large_objects"].size(),
                                bytes));
  }
  if (each_object) {
    for (const nlohmann::json& o : objects) {
      if (!o.is_object()) continue;
      lines.push_back(fmt::format("  {} {} {}", Printable(o.value("type", "")),
                                  Printable(o.value("schema", o.value("table", ""))),
                                  Printable(o.value("name", ""))));
    }
  }
  return lines;
}

// What ls prints comes from the dump: shown terminal-safe (escape sequences in a name or a
// DDL could otherwise rewrite what the reader sees).
std::string Safe(std::string_view text) { return TerminalSafe(text, /*keep_newlines=*/false); }

// "1 snapshot", "3 snapshots", or what is wrong with the table's Iceberg metadata.
std::string IcebergCell(const IcebergTableStatus& ice, const TableSummary& table) {
  if (!ice.problem.empty()) return "not readable: " + ice.problem;
  if (ice.increment > 0) {
    return fmt::format("{} snapshots, at increment {}", ice.snapshots, ice.increment);
  }
  if (ice.run_id != table.run_id) return "stale: metadata of run " + ice.run_id;
  return fmt::format("{} snapshot{}", ice.snapshots, ice.snapshots == 1 ? "" : "s");
}

// The base's replication slot, the tables re-dumped whole in every increment (over an Iceberg
// base: as an overwrite snapshot), and one line per increment.
void PrintIncrements(const IncrementalBase& inc, const std::vector<IncrementManifest>& list,
                     bool iceberg) {
  std::printf("\nincremental: replication slot %s, publication %s, consistent point %s\n",
              Safe(inc.slot).c_str(), Safe(inc.publication).c_str(),
              FormatLsn(inc.consistent_point).c_str());
  const std::vector<IncrementalTable>& tables = list.empty() ? inc.tables : list.back().tables;
  for (const IncrementalTable& t : tables) {
    if (t.mode == IncrementalMode::kRedump) {
      std::printf("  %s: re-dumped whole in every increment%s (%s)\n",
                  Safe(t.ref.QualifiedName()).c_str(),
                  iceberg ? ", as an Iceberg overwrite snapshot" : "", Safe(t.reason).c_str());
    }
  }
  std::printf("%zu increments\n", list.size());
  for (const IncrementManifest& m : list) {
    std::printf("  %06d  %s  WAL %s..%s  %llu changes, %llu transactions, %zu change files, "
                "%zu re-dumped, %zu dropped, slot retained %s\n",
                m.sequence, Safe(m.finished_at).c_str(), FormatLsn(m.start_lsn).c_str(),
                FormatLsn(m.end_lsn).c_str(), static_cast<unsigned long long>(m.changes),
                static_cast<unsigned long long>(m.transactions), m.change_files.size(),
                m.redumped.size(), m.dropped.size(), FormatBytes(m.retained_wal_bytes).c_str());
    for (const RedumpedTable& r : m.redumped) {
      std::printf("          re-dumped %s: %s\n", Safe(r.table.QualifiedName()).c_str(),
                  Safe(r.reason).c_str());
    }
  }
}

// What ls reads besides the manifest: each table's DDL (--ddl), each table's Iceberg
// metadata as an engine would open it (--table-format iceberg), and an incremental dump's
// base and increments.
struct LsDetails {
  std::vector<TableManifest> tables;  // with --ddl
  bool iceberg = false;
  std::vector<IcebergTableStatus> ice;  // per table, when iceberg
  std::vector<std::vector<IcebergSnapshotInfo>> snapshots;  // per table, with --snapshots/--json
  std::optional<IncrementalBase> inc;
  std::vector<IncrementManifest> increments;
};

Status ReadLsDetails(ObjectStore& store, const DumpManifest& m, bool ddl, bool snapshots,
                     LsDetails* d) {
  if (ddl) {
    for (const TableSummary& t : m.tables) {
      LD_ASSIGN_OR_RETURN(TableManifest tm, ReadTableManifest(store, t.key));
      d->tables.push_back(std::move(tm));
    }
  }
  d->iceberg = m.options.is_object() && m.options.value("table_format", "") == "iceberg";
  if (d->iceberg) {
    for (const TableSummary& t : m.tables) {
      LD_ASSIGN_OR_RETURN(IcebergTableStatus status, ReadIcebergTableStatus(store, t.table));
      d->ice.push_back(std::move(status));
      if (!snapshots) continue;
      LD_ASSIGN_OR_RETURN(IcebergHistoryRead read, ReadIcebergHistory(store, t.table));
      d->snapshots.push_back(read.history ? ListIcebergSnapshots(*read.history)
                                          : std::vector<IcebergSnapshotInfo>());
    }
  }
  if (!m.incremental.is_null()) {
    LD_ASSIGN_OR_RETURN(IncrementalBase base, ParseIncrementalBase(m));
    d->inc = std::move(base);
    LD_ASSIGN_OR_RETURN(d->increments, ReadIncrements(store, m));
  }
  return Status::OK();
}

// ls --json: the manifest with the details.
nlohmann::json LsJson(const DumpManifest& m, const LsDetails& d, bool ddl) {
  nlohmann::json j = ToJson(m);
  if (d.inc) {
    nlohmann::json list = nlohmann::json::array();
    for (const IncrementManifest& im : d.increments) {
      nlohmann::json e = ToJson(im);
      e.erase("tables");
      list.push_back(std::move(e));
    }
    j["increments"] = std::move(list);
  }
  for (size_t i = 0; i < d.ice.size(); ++i) {
    nlohmann::json& e = j["tables"][i]["iceberg"];
    e["metadata"] = d.ice[i].metadata_key;
    e["snapshots"] = d.ice[i].snapshots;
    e["run_id"] = d.ice[i].run_id;
    if (!d.ice[i].problem.empty()) e["problem"] = d.ice[i].problem;
    if (i < d.snapshots.size()) {
      e["snapshot_list"] = nlohmann::json::array();
      for (const IcebergSnapshotInfo& s : d.snapshots[i]) {
        e["snapshot_list"].push_back(IcebergSnapshotJson(s));
      }
    }
  }
  if (ddl) {
    for (size_t i = 0; i < d.tables.size(); ++i) j["tables"][i]["ddl"] = d.tables[i].ddl;
  } else if (j.contains("schema")) {
    j["schema"].erase("objects");  // the archive's table of contents: with --ddl
  }
  return j;
}

// The dump's id, format, source, times and snapshots.
void PrintLsHeader(const DumpManifest& m) {
  std::printf("dump %s  (%s)\n", Safe(m.dump_id).c_str(), Safe(m.created_by).c_str());
  std::printf("format: %s %d.%d\n", std::string(kDumpFormatName).c_str(), m.format_version,
              m.format_minor_version);
  for (const std::string& line : SourceFacts(m.source)) {
    std::printf("%s\n", Safe(line).c_str());
  }
  std::printf("started %s, finished %s, %s\n", Safe(m.started_at).c_str(),
              Safe(m.finished_at).c_str(), FormatSeconds(m.seconds).c_str());
  if (ManifestHasNoSnapshot(m)) {
    std::printf("snapshot: none (--no-snapshot): the workers of this sharded dump read the "
                "source each on their own, so its tables are not one consistent state\n");
  } else if (!m.single_snapshot()) {
    // A resume reused tables of earlier runs: not one consistent state.
    std::printf("snapshots: %zu (resumed: tables come from these runs, not one snapshot)\n",
                m.snapshots.size());
    for (const nlohmann::json& run : m.snapshots) {
      if (!run.is_object()) continue;
      auto tables = run.find("tables");
      auto snap = run.find("snapshot");
      std::printf("  run %s: %lld tables, started %s\n", OneLine(Str(run, "run_id")).c_str(),
                  tables != run.end() && tables->is_number_integer()
                      ? static_cast<long long>(tables->get<int64_t>())
                      : -1LL,
                  snap != run.end() ? OneLine(Str(*snap, "started_at")).c_str() : "?");
    }
  }
}

// One line per table, and the totals.
void PrintLsTables(const DumpManifest& m, const LsDetails& d) {
  size_t width = 5;
  for (const TableSummary& t : m.tables) {
    width = std::max(width, Safe(t.table.QualifiedName()).size());
  }
  width = std::min<size_t>(width, 60);
  if (d.iceberg) {
    std::printf("table format: iceberg (each table is an Iceberg v2 table: "
                "<table>/metadata/version-hint.text)\n");
  }
  std::printf("\n%-*s %12s %6s %12s %-8s %9s%s\n", static_cast<int>(width), "table", "rows",
              "files", "bytes", "codec", "seconds", d.iceberg ? "  iceberg" : "");
  for (size_t i = 0; i < m.tables.size(); ++i) {
    const TableSummary& t = m.tables[i];
    std::printf("%-*s %12llu %6llu %12s %-8s %9.2f%s\n", static_cast<int>(width),
                Safe(t.table.QualifiedName()).c_str(), static_cast<unsigned long long>(t.rows),
                static_cast<unsigned long long>(t.files), FormatBytes(t.bytes).c_str(),
                Safe(t.codec).c_str(), t.seconds,
                d.iceberg ? ("  " + Safe(IcebergCell(d.ice[i], t))).c_str() : "");
  }
  std::printf("\n%zu tables, %llu rows, %llu files, %s\n", m.tables.size(),
              static_cast<unsigned long long>(m.total_rows),
              static_cast<unsigned long long>(m.total_files), FormatBytes(m.total_bytes).c_str());
}

// ls --snapshots: each Iceberg table's retained snapshots (time travel), oldest first.
void PrintSnapshots(const DumpManifest& m, const LsDetails& d) {
  if (!d.iceberg) {
    std::printf("\nsnapshots: none (not an Iceberg dump: --table-format iceberg keeps them)\n");
    return;
  }
  std::printf("\nsnapshots (each readable by its id until gc --expire-snapshots):\n");
  for (size_t i = 0; i < m.tables.size() && i < d.snapshots.size(); ++i) {
    std::printf("%s: %s\n", Safe(m.tables[i].table.QualifiedName()).c_str(),
                Safe(IcebergCell(d.ice[i], m.tables[i])).c_str());
    for (const IcebergSnapshotInfo& s : d.snapshots[i]) {
      std::printf("%s\n", Safe(FormatIcebergSnapshot(s)).c_str());
    }
  }
}

int RunLs(const LsArgs& a) {
  std::unique_ptr<ObjectStore> store;
  if (int rc = OpenCommandStore(a.dest, a.s3, StoreOptions{}, &store); rc != kExitOk) return rc;
  auto manifest = ReadDumpManifest(*store);
  if (!manifest.ok()) {
    Status s = manifest.status();
    if (s.code() == Code::kNotFound) {
      s = Status::NotFound(fmt::format("no dump at {} (no _manifest.json)", a.dest));
    }
    return PrintError(s, kExitFailed);
  }
  const DumpManifest& m = *manifest;
  LsDetails d;
  if (Status s = ReadLsDetails(*store, m, a.ddl, a.snapshots || a.json, &d); !s.ok()) {
    return PrintError(s, kExitFailed);
  }
  if (a.json) {
    std::printf("%s\n", DisplayJson(LsJson(m, d, a.ddl), 2).c_str());
    return kExitOk;
  }
  PrintLsHeader(m);
  PrintLsTables(m, d);
  for (const std::string& line : SchemaLines(m.schema, a.ddl)) std::printf("%s\n", line.c_str());
  if (d.inc) PrintIncrements(*d.inc, d.increments, d.iceberg);
  if (a.snapshots) PrintSnapshots(m, d);
  for (const TableManifest& t : d.tables) {
    std::printf("\n-- %s\n%s;\n", Safe(t.table.QualifiedName()).c_str(),
                TerminalSafe(t.ddl, /*keep_newlines=*/true).c_str());
  }
  return kExitOk;
}

}  // namespace

CommandEntry AddLsCommand(CLI::App& parent) {
  auto a = std::make_shared<LsArgs>();
  CLI::App* app = parent.add_subcommand(
      "ls",
      "List the tables of a dump (rows, files, bytes, codec, timings; for an Iceberg dump each "
      "table's snapshot count, with --snapshots each snapshot) and its source, snapshot and format "
      "version.");
  app->add_option("DEST", a->dest, "the dump's location (directory, file:// or s3:// URL)")
      ->required();
  app->add_flag("--json", a->json,
                "print the manifest as JSON (format version, created_by, source with its "
                "version and snapshot; with --ddl each table's DDL)");
  app->add_flag("--ddl", a->ddl, "also print each table's recorded DDL");
  app->add_flag("--snapshots", a->snapshots,
                "for an Iceberg dump, also list each table's retained snapshots (time travel): "
                "id, increment, operation, time and change counts (--json always has them)");
  AddS3Flags(app, &a->s3, /*with_upload=*/false);
  app->footer(
      "Examples:\n"
      "  lakedump ls ./lakedump-demo\n"
      "  lakedump ls ./lakedump-demo --ddl\n"
      "  lakedump ls s3://bucket/dumps/app --snapshots\n"
      "  lakedump ls s3://bucket/dumps/app --json");
  return {app, [a] { return RunLs(*a); }};
}

}  // namespace lakedump::cli
