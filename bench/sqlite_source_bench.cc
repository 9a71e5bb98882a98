// SQLite source and demo generator throughput: big_table creation (rows/s),
// ListTables size estimates over dbstat, and a full read through the source.
// Rows: LAKEDUMP_BENCH_ROWS (default 1000000). The database is built once in
// /tmp and removed at exit (LAKEDUMP_BENCH_KEEP=1 keeps it), or taken from
// LAKEDUMP_BENCH_DB.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "source/demo/demo_database.h"
#include "source/sqlite/sqlite_database.h"

namespace lakedump {
namespace {

uint64_t BenchRows() {
  const char* env = std::getenv("LAKEDUMP_BENCH_ROWS");
  return env ? std::strtoull(env, nullptr, 10) : 1000000;
}

// Deliberately leaked: the atexit handler runs after static destructors.
const std::string& BigDatabase() {
  static const std::string& path = *[] {
    if (const char* given = std::getenv("LAKEDUMP_BENCH_DB")) return new std::string(given);
    auto* p = new std::string("/tmp/lakedump_sqlite_bench_" + std::to_string(::getpid()) + ".db");
    DemoOptions o;
    o.rows = 1000;
    o.big_rows = BenchRows();
    o.overwrite = true;
    const auto start = std::chrono::steady_clock::now();
    Status s = CreateDemoDatabase(*p, o);
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::fprintf(stderr, "created big_table with %llu rows in %.2f s (%.0f rows/s): %s\n",
                 static_cast<unsigned long long>(o.big_rows), secs,
                 static_cast<double>(o.big_rows) / secs, s.ToString().c_str());
    if (!std::getenv("LAKEDUMP_BENCH_KEEP")) std::atexit([] { std::remove(BigDatabase().c_str()); });
    return p;
  }();
  return path;
}

void BM_ListTables(benchmark::State& state) {
  for (auto _ : state) {
    auto db = OpenSqliteDatabase(BigDatabase(), {});
    auto tables = (*db)->ListTables();
    benchmark::DoNotOptimize(tables);
  }
}
BENCHMARK(BM_ListTables)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_ReadBigTable(benchmark::State& state) {
  uint64_t rows = 0;
  for (auto _ : state) {
    auto db = OpenSqliteDatabase(BigDatabase(), {});
    WorkUnit unit;
    unit.table.ref = {"main", "big_table"};
    auto source = (*db)->Open(unit);
    RowBatch batch;
    while ((*source)->Next(65536, &batch).ok() && !batch.empty()) rows += batch.num_rows();
  }
  state.counters["rows/s"] = benchmark::Counter(static_cast<double>(rows), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_ReadBigTable)->Unit(benchmark::kMillisecond)->Iterations(2)->UseRealTime();

}  // namespace
}  // namespace lakedump

BENCHMARK_MAIN();
