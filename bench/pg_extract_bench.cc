// Extraction throughput of the PostgreSQL source against the server-bound
// ceiling, in the same run, on a generated table (default 10M rows: 3 int8,
// 2 float8, 2 text, date, timestamp; about 5% NULLs):
//   RawLibpqBinaryCopy  minimal libpq client: binary COPY read and discarded
//   PsqlCopyBinary      psql \copy (select ...) to /dev/null (format binary)
//   SourceOneUnit       PostgresTableSource -> RowBatch (discarded)
//   SourceTwoUnits      the same table split in 2 ctid ranges read in parallel
// Needs LD_BENCH_PG_DSN (or LD_TEST_PG_DSN); the table is created once in the
// database `lakedump_bench`. LD_BENCH_PG_ROWS overrides the row count.
// Run: ./build/bench/pg_extract_bench --benchmark_repetitions=3 (medians reported).
#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <libpq-fe.h>

#include <cstdlib>
#include <map>
#include <thread>

#include "source/postgres/pg_conn.h"
#include "source/postgres/postgres_database.h"

namespace lakedump {
namespace {

constexpr const char* kTable = "extract_bench";
constexpr const char* kColumns = "a, b, c, x, y, s1, s2, d, ts";

std::string BaseDsn() {
  const char* dsn = std::getenv("LD_BENCH_PG_DSN");
  if (!dsn) dsn = std::getenv("LD_TEST_PG_DSN");
  return dsn ? dsn : "";
}

int64_t Rows() {
  const char* r = std::getenv("LD_BENCH_PG_ROWS");
  return r ? std::atoll(r) : 10'000'000;
}

std::string DsnFor(const std::string& dbname) {
  char* err = nullptr;
  PQconninfoOption* opts = PQconninfoParse(BaseDsn().c_str(), &err);
  if (err) PQfreemem(err);
  std::map<std::string, std::string> kv;
  for (PQconninfoOption* o = opts; o && o->keyword; ++o) {
    if (o->val && *o->val) kv[o->keyword] = o->val;
  }
  PQconninfoFree(opts);
  kv["dbname"] = dbname;
  std::string out;
  for (const auto& [k, v] : kv) out += k + "='" + v + "' ";
  return out;
}

// Creates the bench database and table once; returns false when unavailable.
bool Prepare(std::string* error) {
  static bool ready = false;
  static std::string last_error;
  if (ready) return true;
  if (BaseDsn().empty()) {
    *error = "set LD_BENCH_PG_DSN or LD_TEST_PG_DSN";
    return false;
  }
  auto admin = PgConn::Connect(BaseDsn(), 10);
  if (!admin.ok()) {
    *error = admin.status().ToString();
    return false;
  }
  auto exists = (*admin)->Query("SELECT 1 FROM pg_database WHERE datname = 'lakedump_bench'");
  if (exists.ok() && PQntuples(exists->get()) == 0) {
    (*admin)->Exec("CREATE DATABASE lakedump_bench").IgnoreError();
  }
  auto conn = PgConn::Connect(DsnFor("lakedump_bench"), 10);
  if (conn.ok()) (*conn)->Exec("SET client_min_messages = warning").IgnoreError();
  if (!conn.ok()) {
    *error = conn.status().ToString();
    return false;
  }
  const int64_t rows = Rows();
  auto count = (*conn)->Query(fmt::format(
      "SELECT CASE WHEN to_regclass('public.{0}') IS NULL THEN -1 ELSE "
      "(SELECT count(*) FROM public.{0}) END", kTable));
  if (!count.ok() || std::atoll(PQgetvalue(count->get(), 0, 0)) != rows) {
    fprintf(stderr, "creating %s with %lld rows...\n", kTable, static_cast<long long>(rows));
    Status s = (*conn)->Exec(fmt::format(
        "DROP TABLE IF EXISTS public.{0}; "
        "CREATE UNLOGGED TABLE public.{0} (a int8, b int8, c int8, x float8, y float8, s1 text, "
        "s2 text, d date, ts timestamp); "
        "INSERT INTO public.{0} SELECT g, g * 7, CASE WHEN g % 20 = 1 THEN NULL ELSE g % 1000 END, "
        "g * 0.37, CASE WHEN g % 20 = 2 THEN NULL ELSE 1.0 / g END, "
        "substr(md5(g::text), 1, 20), CASE WHEN g % 20 = 3 THEN NULL ELSE 'customer_' || g END, "
        "DATE '2000-01-01' + (g % 9000)::int, "
        "CASE WHEN g % 20 = 4 THEN NULL ELSE TIMESTAMP '2020-01-01' + g * INTERVAL '1 second' END "
        "FROM generate_series(1, {1}) g",
        kTable, rows));
    if (s.ok()) s = (*conn)->Exec(fmt::format("VACUUM (FREEZE, ANALYZE) public.{}", kTable));
    if (!s.ok()) {
      *error = s.ToString();
      return false;
    }
  }
  ready = true;
  return true;
}

void SetRate(benchmark::State& state, int64_t rows) {
  state.counters["rows_per_s"] =
      benchmark::Counter(static_cast<double>(rows), benchmark::Counter::kIsRate);
  state.counters["rows"] = static_cast<double>(rows);
}

void BM_RawLibpqBinaryCopy(benchmark::State& state) {
  std::string error;
  if (!Prepare(&error)) return state.SkipWithError(error.c_str());
  int64_t rows = 0;
  for (auto _ : state) {
    PGconn* c = PQconnectdb(DsnFor("lakedump_bench").c_str());
    const std::string sql = fmt::format("COPY (SELECT {} FROM public.{}) TO STDOUT (FORMAT binary)",
                                        kColumns, kTable);
    PGresult* r = PQexec(c, sql.c_str());
    PQclear(r);
    char* buf = nullptr;
    int n;
    while ((n = PQgetCopyData(c, &buf, 0)) > 0) {
      ++rows;
      PQfreemem(buf);
    }
    while ((r = PQgetResult(c)) != nullptr) PQclear(r);
    PQfinish(c);
    rows -= 1;  // the trailer message
  }
  SetRate(state, rows);
}

void BM_PsqlCopyBinary(benchmark::State& state) {
  std::string error;
  if (!Prepare(&error)) return state.SkipWithError(error.c_str());
  const std::string cmd = fmt::format(
      "psql \"{}\" -q -c \"\\copy (SELECT {} FROM public.{}) to '/dev/null' (format binary)\"",
      DsnFor("lakedump_bench"), kColumns, kTable);
  for (auto _ : state) {
    if (std::system(cmd.c_str()) != 0) return state.SkipWithError("psql failed");
  }
  SetRate(state, Rows() * static_cast<int64_t>(state.iterations()));
}

Status ReadUnits(Database& db, const std::vector<WorkUnit>& units, int64_t* rows) {
  std::vector<Status> results(units.size());
  std::vector<int64_t> counts(units.size(), 0);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < units.size(); ++i) {
    threads.emplace_back([&, i] {
      auto source = db.Open(units[i]);
      if (!source.ok()) {
        results[i] = source.status();
        return;
      }
      RowBatch batch;
      while (true) {
        Status s = (*source)->Next(65536, &batch);
        if (!s.ok()) {
          results[i] = s;
          return;
        }
        if (batch.empty()) return;
        counts[i] += static_cast<int64_t>(batch.num_rows());
        benchmark::DoNotOptimize(batch.column(0).values<int64_t>());
      }
    });
  }
  for (auto& t : threads) t.join();
  for (size_t i = 0; i < units.size(); ++i) {
    LD_RETURN_IF_ERROR(results[i]);
    *rows += counts[i];
  }
  return Status::OK();
}

void BM_Source(benchmark::State& state) {
  std::string error;
  if (!Prepare(&error)) return state.SkipWithError(error.c_str());
  const int parts = static_cast<int>(state.range(0));
  int64_t rows = 0;
  for (auto _ : state) {
    PostgresOptions options;
    options.max_connections = parts;
    auto db = OpenPostgresDatabase(DsnFor("lakedump_bench"), options);
    if (!db.ok()) return state.SkipWithError(db.status().ToString().c_str());
    if (!(*db)->BeginSnapshot().ok()) return state.SkipWithError("snapshot");
    TableInfo table{TableRef{"public", kTable}};
    std::vector<WorkUnit> units{WorkUnit{table, 0, 1, ""}};
    if (parts > 1) {
      auto tables = (*db)->ListTables();
      uint64_t bytes = 0;
      for (const auto& t : *tables) {
        if (t.ref.name == kTable) bytes = t.estimated_bytes;
      }
      auto split = (*db)->Split(table, bytes / parts + 8192);
      if (!split.ok()) return state.SkipWithError(split.status().ToString().c_str());
      units = *split;
      state.counters["units"] = static_cast<double>(units.size());
    }
    Status s = ReadUnits(**db, units, &rows);
    if (!s.ok()) return state.SkipWithError(s.ToString().c_str());
  }
  SetRate(state, rows);
}

BENCHMARK(BM_RawLibpqBinaryCopy)->Iterations(1)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PsqlCopyBinary)->Iterations(1)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Source)->Name("BM_SourceOneUnit")->Arg(1)->Iterations(1)->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Source)->Name("BM_SourceTwoUnits")->Arg(2)->Iterations(1)->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace lakedump

BENCHMARK_MAIN();
