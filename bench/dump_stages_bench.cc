// Where the dump of one SQLite table spends its time, stage by stage, for
// bench/dump_bench.sh:
//  - read:   the SQLite source alone (TableSource::Next into one reused RowBatch, as a table
//            task does, rows discarded);
//  - encode: the Parquet encoder alone, on the same table's rows held in memory (read once
//            first), with the dump's default writer options, into a sink that only counts.
//
//   dump_stages_bench --db=FILE --table=NAME [--runs=3] [--batch-rows=16384]
//                     [--encode-rows=N (0 = all)] [--stages=read,encode]
// Prints one line per stage:
//   `stage=read table=T rows=N runs=R median_s=S rows_per_s=X cpu_s=C rows_per_cpu_s=Y
//    first_s=S1 first_cpu_s=C1` (medians, then the first run; encode lines also carry bytes=B).
#include <fmt/format.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bench_util.h"
#include "base/byte_sink.h"
#include "dump/dump_options.h"
#include "format/parquet/parquet_writer.h"
#include "source/sqlite/sqlite_database.h"
#include "table/row_batch.h"

namespace lakedump {
namespace {

class CountingSink final : public ByteSink {
 public:
  Status Append(std::string_view d) override {
    n_ += d.size();
    return Status::OK();
  }
  uint64_t bytes_written() const override { return n_; }

 private:
  uint64_t n_ = 0;
};

struct Timing {
  std::vector<double> wall, cpu;
  // The first run is also printed (first_s, first_cpu_s): a dump process is always a first
  // run, whose fresh buffers pay their page faults.
  void Print(const char* stage, const std::string& table, uint64_t rows, uint64_t bytes) {
    const double first_w = wall.front(), first_c = cpu.front();
    std::sort(wall.begin(), wall.end());
    std::sort(cpu.begin(), cpu.end());
    const double w = wall[wall.size() / 2], c = cpu[cpu.size() / 2];
    std::string line = fmt::format(
        "stage={} table={} rows={} runs={} median_s={:.3f} rows_per_s={:.0f} cpu_s={:.3f} "
        "rows_per_cpu_s={:.0f} first_s={:.3f} first_cpu_s={:.3f}",
        stage, table, rows, wall.size(), w, static_cast<double>(rows) / w, c,
        static_cast<double>(rows) / c, first_w, first_c);
    if (bytes > 0) line += fmt::format(" bytes={}", bytes);
    std::printf("%s\n", line.c_str());
    std::fflush(stdout);
  }
};

Result<std::unique_ptr<TableSource>> OpenTable(const std::string& db_path,
                                               const std::string& table,
                                               std::unique_ptr<Database>* db) {
  LD_ASSIGN_OR_RETURN(*db, OpenSqliteDatabase(db_path, SqliteOptions{}));
  WorkUnit unit;
  unit.table.ref = {"main", table};
  return (*db)->Open(unit);
}

int Fail(const Status& s) {
  std::fprintf(stderr, "dump_stages_bench: %s\n", s.ToString().c_str());
  return 1;
}

int Main(int argc, char** argv) {
  auto args = bench::ParseArgs(argc, argv);
  if (!args.count("db") || !args.count("table")) {
    std::fprintf(stderr, "usage: dump_stages_bench --db=FILE --table=NAME [--runs=3] "
                         "[--batch-rows=16384] [--encode-rows=N] [--stages=read,encode]\n");
    return 2;
  }
  const std::string db_path = args["db"], table = args["table"];
  const int runs = args.count("runs") ? std::stoi(args["runs"]) : 3;
  const size_t batch_rows =
      args.count("batch-rows") ? std::stoull(args["batch-rows"]) : DumpOptions{}.batch_rows;
  const uint64_t encode_rows = args.count("encode-rows") ? std::stoull(args["encode-rows"]) : 0;
  const std::string stages = args.count("stages") ? args["stages"] : "read,encode";

  if (stages.find("read") != std::string::npos) {
    Timing t;
    uint64_t rows = 0;
    for (int run = 0; run < runs; ++run) {
      const auto w0 = std::chrono::steady_clock::now();
      const double c0 = bench::ProcessCpuSeconds();
      std::unique_ptr<Database> db;
      auto source = OpenTable(db_path, table, &db);
      if (!source.ok()) return Fail(source.status());
      RowBatch batch;
      rows = 0;
      for (;;) {
        Status s = (*source)->Next(batch_rows, &batch);
        if (!s.ok()) return Fail(s);
        if (batch.empty()) break;
        rows += batch.num_rows();
      }
      t.wall.push_back(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count());
      t.cpu.push_back(bench::ProcessCpuSeconds() - c0);
    }
    t.Print("read", table, rows, 0);
  }

  if (stages.find("encode") != std::string::npos) {
    std::vector<std::unique_ptr<RowBatch>> batches;
    Schema schema;
    uint64_t rows = 0;
    {
      std::unique_ptr<Database> db;
      auto source = OpenTable(db_path, table, &db);
      if (!source.ok()) return Fail(source.status());
      schema = (*source)->schema();
      for (;;) {
        auto b = std::make_unique<RowBatch>();
        Status s = (*source)->Next(batch_rows, b.get());
        if (!s.ok()) return Fail(s);
        if (b->empty()) break;
        rows += b->num_rows();
        batches.push_back(std::move(b));
        if (encode_rows > 0 && rows >= encode_rows) break;
      }
    }
    Timing t;
    uint64_t bytes = 0;
    for (int run = 0; run < runs; ++run) {
      const ParquetWriterOptions options = DumpOptions{}.parquet;
      CountingSink sink;
      const auto w0 = std::chrono::steady_clock::now();
      const double c0 = bench::ProcessCpuSeconds();
      {
        ParquetWriter w(schema, options, &sink);
        for (const auto& b : batches) {
          Status s = w.Write(*b);
          if (!s.ok()) return Fail(s);
        }
        Status s = w.Close();
        if (!s.ok()) return Fail(s);
      }
      t.wall.push_back(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count());
      t.cpu.push_back(bench::ProcessCpuSeconds() - c0);
      bytes = sink.bytes_written();
    }
    t.Print("encode", table, rows, bytes);
  }
  return 0;
}

}  // namespace
}  // namespace lakedump

int main(int argc, char** argv) { return lakedump::Main(argc, argv); }
