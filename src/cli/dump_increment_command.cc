#include "cli/dump_increment_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <memory>

#include "base/units.h"
#include "dump/incremental/increment_runner.h"
#include "lake/manifest.h"
#include "source/postgres/pgoutput.h"

namespace lakedump::cli {
namespace {

std::string TableList(const std::vector<RedumpedTable>& tables) {
  std::string out;
  for (const RedumpedTable& t : tables) {
    out += (out.empty() ? "" : "; ") + t.table.QualifiedName() + ": " + t.reason;
  }
  return out;
}

// The next increment of an incremental dump at DEST: runs it, prints its summary, returns
// the exit code.
int RunIncrementCommand(const DumpArgs& a, const DumpOptions& options, SourceOptions source_options,
                 const DumpManifest& base, InterruptWatcher& interrupt) {
  // The increment decodes with the type policies of its base, whatever the flags say.
  if (base.incremental.contains("pg_options")) {
    const nlohmann::json& o = base.incremental["pg_options"];
    source_options.pg_numeric = o.value("numeric", source_options.pg_numeric);
    source_options.pg_infinity = o.value("infinity", source_options.pg_infinity);
    source_options.pg_numeric_nan = o.value("numeric_nan", source_options.pg_numeric_nan);
  }
  auto pg = PostgresOptionsFrom(source_options);
  if (!pg.ok()) return PrintError(pg.status(), kExitUsage);
  DumpOptions dump = options;
  dump.store.stop = interrupt.token();
  std::unique_ptr<ObjectStore> store, lease_store;
  if (int rc = OpenCommandStore(a.dest, a.s3, dump.store, &store); rc != kExitOk) return rc;
  StoreOptions lease_options = dump.store;
  lease_options.stop = {};
  if (int rc = OpenCommandStore(a.dest, a.s3, lease_options, &lease_store); rc != kExitOk) {
    return rc;
  }
  IncrementRequest request{a.source, *pg, dump};
  auto result = RunIncrement(store.get(), lease_store.get(), base, request, interrupt.token());
  if (!result.ok()) {
    Status s = result.status();
    if (interrupt.interrupted()) {
      s = Status::Cancelled("interrupted: the increment was not committed");
    }
    if (a.json) {
      std::printf("%s\n", DisplayJson(nlohmann::json(
                            {{"status", "error"}, {"error", OneLine(s.message())}}))
                            .c_str());
    }
    return PrintError(s.WithContext("increment not committed"),
                      s.code() == Code::kInvalidArgument || s.code() == Code::kNotFound
                          ? kExitUsage
                          : kExitFailed);
  }
  for (const std::string& w : result->warnings) {
    std::fprintf(stderr, "lakedump: warning: %s\n", OneLine(w).c_str());
  }
  const IncrementManifest& m = result->manifest;
  if (a.json) {
    nlohmann::json j = ToJson(m);
    j["status"] = "ok";
    j.erase("tables");
    std::printf("%s\n", DisplayJson(j).c_str());
    return kExitOk;
  }
  std::printf("increment %d: %s changes in %s transactions (%zu change files), WAL %s to %s, "
              "in %s to %s\n",
              m.sequence, FormatCount(static_cast<double>(m.changes)).c_str(),
              FormatCount(static_cast<double>(m.transactions)).c_str(), m.change_files.size(),
              FormatLsn(m.start_lsn).c_str(), FormatLsn(m.end_lsn).c_str(),
              FormatSeconds(m.seconds).c_str(), store->Describe().c_str());
  if (!m.redumped.empty()) {
    std::printf("re-dumped whole (%zu): %s\n", m.redumped.size(), TableList(m.redumped).c_str());
  }
  for (const TableRef& t : m.dropped) {
    std::printf("dropped from the source: %s\n", t.QualifiedName().c_str());
  }
  std::printf(
      "replication slot %s retains %s of WAL (lakedump gc DEST --drop-slot --source SOURCE "
      "removes it)\n",
      m.slot.c_str(), FormatBytes(m.retained_wal_bytes).c_str());
  return kExitOk;
}

}  // namespace

std::optional<int> PrepareIncrementalDump(const DumpArgs& a, const DumpOptions& options,
                                          InterruptWatcher& interrupt,
                                          std::optional<IncrementalBasePlan>* base_plan) {
  std::unique_ptr<ObjectStore> probe;
  if (int rc = OpenCommandStore(a.dest, a.s3, options.store, &probe); rc != kExitOk) return rc;
  auto manifest = ReadDumpManifest(*probe);
  if (manifest.ok() && !manifest->incremental.is_null() &&
      options.if_exists != IfExists::kOverwrite) {
    SourceOptions so;
    so.connections = a.source_connections > 0 ? a.source_connections
                                              : std::max(1, options.table_parallelism);
    so.pg_numeric = a.pg_numeric;
    so.pg_infinity = a.pg_infinity;
    so.pg_numeric_nan = a.pg_numeric_nan;
    return RunIncrementCommand(a, options, so, *manifest, interrupt);
  }
  if (manifest.ok() && options.if_exists != IfExists::kOverwrite) {
    return PrintError(Status::InvalidArgument(fmt::format(
                          "{} holds a dump that is not the base of incremental dumps (use "
                          "--if-exists overwrite to replace it with one)",
                          probe->Describe())),
                      kExitUsage);
  }
  if (!manifest.ok() && manifest.status().code() != Code::kNotFound) {
    return PrintError(manifest.status(), kExitFailed);
  }
  PgTypeOptions types;
  if (Status s = ParsePgNumericPolicy(a.pg_numeric, &types); !s.ok()) {
    return PrintError(s.WithContext("--pg-numeric"), kExitUsage);
  }
  // The base this one overwrites: its slot goes when it is lakedump's (never by its name alone).
  const DumpManifest* replaced =
      manifest.ok() && !manifest->incremental.is_null() ? &*manifest : nullptr;
  auto plan = PrepareIncrementalBase(
      a.source, 10, options, types,
      {{"numeric", a.pg_numeric}, {"infinity", a.pg_infinity}, {"numeric_nan", a.pg_numeric_nan}},
      replaced);
  if (!plan.ok()) {
    return PrintError(plan.status(), plan.status().code() == Code::kInvalidArgument
                                         ? kExitUsage
                                         : kExitFailed);
  }
  for (const std::string& w : plan->warnings) {
    std::fprintf(stderr, "lakedump: warning: %s\n", OneLine(w).c_str());
  }
  *base_plan = std::move(*plan);
  return std::nullopt;
}

}  // namespace lakedump::cli
