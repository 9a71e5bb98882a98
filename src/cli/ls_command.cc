// `lakedump ls DEST`: what a dump holds, from its manifest.
#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "base/units.h"
#include "cli/cli_util.h"
#include "cli/commands.h"
#include "dump/manifest.h"

namespace lakedump::cli {
namespace {

struct LsArgs {
  std::string dest;
  bool json = false;
  bool ddl = false;
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
  if (!source.is_object()) return {"source: " + source.dump()};
  const std::string kind = Str(source, "kind");
  if (kind == "postgresql") {
    std::string where = Str(source, "host");
    if (!Str(source, "port").empty()) where += ":" + Str(source, "port");
    where += "/" + Str(source, "database");
    out.push_back(fmt::format("source: PostgreSQL {} at {} (user {})",
                              Str(source, "server_version"), where, Str(source, "user")));
    std::string snap = "snapshot: " + Str(source, "snapshot_id");
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
    out.push_back("source: " + (kind.empty() ? source.dump() : kind));
  }
  return out;
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
  std::vector<TableManifest> details;
  if (a.ddl) {
    for (const TableSummary& t : m.tables) {
      auto tm = ReadTableManifest(*store, t.key);
      if (!tm.ok()) return PrintError(tm.status(), kExitFailed);
      details.push_back(std::move(*tm));
    }
  }
  if (a.json) {
    nlohmann::json j = ToJson(m);
    if (a.ddl) {
      for (size_t i = 0; i < details.size(); ++i) j["tables"][i]["ddl"] = details[i].ddl;
    }
    std::printf("%s\n", j.dump(2).c_str());
    return kExitOk;
  }
  std::printf("dump %s  (%s)\n", m.dump_id.c_str(), m.created_by.c_str());
  std::printf("format: %s %d.%d\n", std::string(kDumpFormatName).c_str(), m.format_version,
              m.format_minor_version);
  for (const std::string& line : SourceFacts(m.source)) std::printf("%s\n", line.c_str());
  std::printf("started %s, finished %s, %s\n", m.started_at.c_str(), m.finished_at.c_str(),
              FormatSeconds(m.seconds).c_str());
  size_t width = 5;
  for (const TableSummary& t : m.tables) width = std::max(width, t.table.QualifiedName().size());
  width = std::min<size_t>(width, 60);
  std::printf("\n%-*s %12s %6s %12s %-8s %9s\n", static_cast<int>(width), "table", "rows",
              "files", "bytes", "codec", "seconds");
  for (const TableSummary& t : m.tables) {
    std::printf("%-*s %12llu %6llu %12s %-8s %9.2f\n", static_cast<int>(width),
                t.table.QualifiedName().c_str(), static_cast<unsigned long long>(t.rows),
                static_cast<unsigned long long>(t.files), FormatBytes(t.bytes).c_str(),
                t.codec.c_str(), t.seconds);
  }
  std::printf("\n%zu tables, %llu rows, %llu files, %s\n", m.tables.size(),
              static_cast<unsigned long long>(m.total_rows),
              static_cast<unsigned long long>(m.total_files), FormatBytes(m.total_bytes).c_str());
  for (const TableManifest& t : details) {
    std::printf("\n-- %s\n%s;\n", t.table.QualifiedName().c_str(), t.ddl.c_str());
  }
  return kExitOk;
}

}  // namespace

CommandEntry AddLsCommand(CLI::App& parent) {
  auto a = std::make_shared<LsArgs>();
  CLI::App* app = parent.add_subcommand(
      "ls",
      "List the tables of a dump (rows, files, bytes, codec, timings) and its source, snapshot "
      "and format version.");
  app->add_option("DEST", a->dest, "the dump's location (directory, file:// or s3:// URL)")
      ->required();
  app->add_flag("--json", a->json,
                "print the manifest as JSON (format version, created_by, source with its "
                "version and snapshot; with --ddl each table's DDL)");
  app->add_flag("--ddl", a->ddl, "also print each table's recorded DDL");
  AddS3Flags(app, &a->s3, /*with_upload=*/false);
  app->footer(
      "Examples:\n"
      "  lakedump ls ./lakedump-demo\n"
      "  lakedump ls ./lakedump-demo --ddl\n"
      "  lakedump ls s3://bucket/dumps/app --json");
  return {app, [a] { return RunLs(*a); }};
}

}  // namespace lakedump::cli
