// Loads a lakedump dump into PostgreSQL through PostgresTarget and prints the
// seconds taken, for bench/load_vs_pg_restore.sh while `lakedump load` is not
// available (the script prefers the CLI when it is):
//   pg_load_bench DUMP_DIR CONNINFO [FILES_AT_ONCE]
// Tables one after another; the files of a table FILES_AT_ONCE at a time
// (default 2, one sink and connection each); --if-exists replace.
#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "lake/manifest.h"
#include "format/parquet/parquet_reader.h"
#include "load/postgres/postgres_target.h"
#include "store/open_store.h"

namespace lakedump {
namespace {

Status LoadFile(ObjectStore& store, TargetDatabase& target, const TablePlan& plan,
                const DataFile& file, std::atomic<uint64_t>* rows) {
  LD_ASSIGN_OR_RETURN(auto reader, store.NewReader(file.key));
  ObjectReader* raw = reader.get();
  LD_ASSIGN_OR_RETURN(auto parquet, ParquetReader::Open(raw->size(), [raw](uint64_t off,
                                                                          uint64_t len,
                                                                          std::string* out) {
    return raw->ReadAt(off, len, out);
  }));
  LD_ASSIGN_OR_RETURN(auto sink, target.OpenSink(plan));
  RowBatch batch;
  while (true) {
    LD_RETURN_IF_ERROR(parquet->Next(16384, &batch));
    if (batch.empty()) break;
    LD_RETURN_IF_ERROR(sink->Append(batch));
  }
  LD_ASSIGN_OR_RETURN(uint64_t n, sink->Finish());
  *rows += n;
  return Status::OK();
}

Status LoadTable(ObjectStore& store, TargetDatabase& target, const TablePlan& plan,
                 const TableManifest& table, int files_at_once, std::atomic<uint64_t>* rows) {
  LD_RETURN_IF_ERROR(target.PrepareTable(plan));
  std::atomic<size_t> next{0};
  std::mutex mu;
  Status first;
  std::vector<std::thread> workers;
  for (int w = 0; w < files_at_once; ++w) {
    workers.emplace_back([&] {
      for (size_t i = next++; i < table.files.size(); i = next++) {
        Status s = LoadFile(store, target, plan, table.files[i], rows);
        std::lock_guard lock(mu);
        if (!s.ok() && first.ok()) first = s;
        if (!first.ok()) return;
      }
    });
  }
  for (auto& t : workers) t.join();
  if (first.ok()) first = target.CommitTable(plan);
  if (!first.ok()) target.AbortTable(plan).IgnoreError();
  return first;
}

int Main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: pg_load_bench DUMP_DIR CONNINFO [FILES_AT_ONCE]\n");
    return 2;
  }
  const int files_at_once = argc > 3 ? std::max(1, std::atoi(argv[3])) : 2;
  const auto start = std::chrono::steady_clock::now();
  auto run = [&]() -> Status {
    LD_ASSIGN_OR_RETURN(auto store, OpenStore(argv[1], StoreOptions{}));
    LD_ASSIGN_OR_RETURN(DumpManifest manifest, ReadDumpManifest(*store));
    PostgresTargetOptions options;
    options.max_sinks_per_table = files_at_once;
    LD_ASSIGN_OR_RETURN(auto target, OpenPostgresTarget(argv[2], options));
    std::atomic<uint64_t> rows{0};
    for (const TableSummary& summary : manifest.tables) {
      LD_ASSIGN_OR_RETURN(TableManifest table, ReadTableManifest(*store, summary.key));
      TablePlan plan;
      plan.source = plan.target = table.table;
      plan.definition = TableDefinition{table.schema, table.ddl, table.primary_key};
      plan.source_kind = manifest.source.value("kind", "");
      plan.if_exists = LoadIfExists::kReplace;
      plan.rows = table.rows;
      plan.file_count = table.files.size();
      LD_RETURN_IF_ERROR(LoadTable(*store, *target, plan, table, files_at_once, &rows)
                             .WithContext(table.table.QualifiedName()));
    }
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("%llu rows in %.3f s\n", static_cast<unsigned long long>(rows.load()), secs);
    return Status::OK();
  };
  Status s = run();
  if (!s.ok()) {
    std::fprintf(stderr, "pg_load_bench: %s\n", s.ToString().c_str());
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace lakedump

int main(int argc, char** argv) { return lakedump::Main(argc, argv); }
