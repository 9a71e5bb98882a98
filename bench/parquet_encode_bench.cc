// Parquet encode throughput: generates a table in memory (deterministic), then
// times ParquetWriter encoding it into a file. Used by encode_vs_duckdb.sh.
//
//   parquet_encode_bench --table=wide|vmart --rows=N --codec=snappy --threads=1
//                        --runs=3 --out=FILE [--row-group-rows=N] [--level=N]
//                        [--page-bytes=N] [--warmup=1 (untimed runs first)]
// Prints one line: `lakedump table=... rows=... codec=... threads=... median_s=...
// rows_per_s=... bytes=...`.
#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "bench_util.h"
#include "base/byte_sink.h"
#include "base/thread_pool.h"
#include "format/parquet/parquet_writer.h"
#include "table/row_batch.h"
#include "table/temporal.h"

namespace lakedump {
namespace {

uint64_t Mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

class FileSink final : public ByteSink {
 public:
  explicit FileSink(const std::string& path) : f_(std::fopen(path.c_str(), "wb")) {}
  ~FileSink() override {
    if (f_) std::fclose(f_);
  }
  Status Append(std::string_view d) override {
    if (!f_ || std::fwrite(d.data(), 1, d.size(), f_) != d.size()) return Status::IOError("write");
    n_ += d.size();
    return Status::OK();
  }
  uint64_t bytes_written() const override { return n_; }

 private:
  FILE* f_;
  uint64_t n_ = 0;
};

Column Col(const char* name, LogicalType t, bool nullable = true) { return {name, t, nullable, ""}; }

Schema WideSchema() {
  return Schema({Col("id", LogicalType::Of(TypeId::kInt64), false),
                 Col("k1", LogicalType::Of(TypeId::kInt64)), Col("k2", LogicalType::Of(TypeId::kInt64)),
                 Col("price", LogicalType::Of(TypeId::kDouble)),
                 Col("score", LogicalType::Of(TypeId::kDouble)),
                 Col("name", LogicalType::Of(TypeId::kString)),
                 Col("comment", LogicalType::Of(TypeId::kString)),
                 Col("day", LogicalType::Of(TypeId::kDate)),
                 Col("ts", LogicalType::Of(TypeId::kTimestamp))});
}

// ~5% nulls in every nullable column.
void FillWide(uint64_t first, size_t n, RowBatch* b) {
  static const int32_t kBaseDay = static_cast<int32_t>(DaysFromCivil(2000, 1, 1));
  char buf[64];
  for (size_t k = 0; k < n; ++k) {
    const uint64_t r = first + k;
    const uint64_t h = Mix(r);
    auto null = [&](int c) { return (Mix(h + c) % 100) < 5; };
    b->column(0).Append<int64_t>(static_cast<int64_t>(r));
    if (null(1)) b->column(1).AppendNull(); else b->column(1).Append<int64_t>(static_cast<int64_t>(h % 1000));
    if (null(2)) b->column(2).AppendNull(); else b->column(2).Append<int64_t>(static_cast<int64_t>(h >> 20));
    if (null(3)) b->column(3).AppendNull(); else b->column(3).Append<double>(static_cast<double>(h % 100000) / 100.0);
    if (null(4)) b->column(4).AppendNull(); else b->column(4).Append<double>(static_cast<double>(h >> 11) / 9007199254740992.0);
    if (null(5)) {
      b->column(5).AppendNull();
    } else {
      int len = std::snprintf(buf, sizeof buf, "customer_%u", static_cast<unsigned>((h >> 8) % 1000));
      b->column(5).AppendBytes(std::string_view(buf, static_cast<size_t>(len)));
    }
    if (null(6)) {
      b->column(6).AppendNull();
    } else {
      int len = std::snprintf(buf, sizeof buf, "comment %016llx %u",
                              static_cast<unsigned long long>(Mix(h)), static_cast<unsigned>(h % 97));
      b->column(6).AppendBytes(std::string_view(buf, static_cast<size_t>(len)));
    }
    if (null(7)) b->column(7).AppendNull(); else b->column(7).Append<int32_t>(kBaseDay + static_cast<int32_t>(h % 9000));
    if (null(8)) {
      b->column(8).AppendNull();
    } else {
      b->column(8).Append<int64_t>(946684800000000LL + static_cast<int64_t>((h >> 3) % (20ULL * 365 * 86400000000ULL)));
    }
  }
}

Schema VmartSchema() {
  const LogicalType i32 = LogicalType::Of(TypeId::kInt32), date = LogicalType::Of(TypeId::kDate);
  return Schema({Col("product_key", i32, false), Col("product_version", i32, false),
                 Col("store_key", i32, false), Col("vendor_key", i32, false),
                 Col("employee_key", i32, false), Col("order_number", LogicalType::Of(TypeId::kInt64), false),
                 Col("date_ordered", date), Col("date_shipped", date),
                 Col("expected_delivery_date", date), Col("date_delivered", date),
                 Col("quantity_ordered", i32), Col("quantity_delivered", i32),
                 Col("shipper_name", LogicalType::Of(TypeId::kString)),
                 Col("unit_price", LogicalType::Decimal(10, 2)),
                 Col("shipping_cost", LogicalType::Decimal(10, 2)),
                 Col("total_order_cost", LogicalType::Decimal(12, 2)),
                 Col("quantity_in_stock", i32), Col("reorder_level", i32), Col("overstock_ceiling", i32)});
}

void FillVmart(uint64_t first, size_t n, RowBatch* b) {
  static const char* kShippers[] = {"Amplify", "Beyond", "Carry", "Dove", "Express", "Federated",
                                    "Golden", "Hermes", "Indy", "Jet"};
  static const int32_t kBaseDay = static_cast<int32_t>(DaysFromCivil(2003, 1, 1));
  for (size_t k = 0; k < n; ++k) {
    const uint64_t r = first + k;
    const uint64_t h = Mix(r), g = Mix(h);
    b->column(0).Append<int32_t>(static_cast<int32_t>(1 + h % 60000));
    b->column(1).Append<int32_t>(static_cast<int32_t>(1 + (h >> 16) % 5));
    b->column(2).Append<int32_t>(static_cast<int32_t>(1 + (h >> 20) % 250));
    b->column(3).Append<int32_t>(static_cast<int32_t>(1 + (h >> 28) % 100));
    b->column(4).Append<int32_t>(static_cast<int32_t>(1 + (h >> 36) % 10000));
    b->column(5).Append<int64_t>(static_cast<int64_t>(r));
    const int32_t ordered = kBaseDay + static_cast<int32_t>(g % 2000);
    b->column(6).Append<int32_t>(ordered);
    b->column(7).Append<int32_t>(ordered + static_cast<int32_t>((g >> 12) % 5));
    b->column(8).Append<int32_t>(ordered + 7);
    if ((g >> 20) % 20 == 0) b->column(9).AppendNull(); else b->column(9).Append<int32_t>(ordered + static_cast<int32_t>(3 + (g >> 24) % 8));
    const int32_t qty = static_cast<int32_t>(1 + (g >> 30) % 100);
    b->column(10).Append<int32_t>(qty);
    b->column(11).Append<int32_t>(qty - static_cast<int32_t>((g >> 40) % 2));
    b->column(12).AppendBytes(kShippers[(g >> 44) % 10]);
    const int128_t price = static_cast<int128_t>(100 + (h >> 8) % 50000);
    const int128_t ship = static_cast<int128_t>(500 + (g >> 4) % 5000);
    b->column(13).Append<int128_t>(price);
    b->column(14).Append<int128_t>(ship);
    b->column(15).Append<int128_t>(price * qty + ship);
    b->column(16).Append<int32_t>(static_cast<int32_t>((h >> 44) % 1000));
    b->column(17).Append<int32_t>(static_cast<int32_t>(10 + (g >> 50) % 40));
    b->column(18).Append<int32_t>(static_cast<int32_t>(200 + (h >> 52) % 800));
  }
}

int Main(int argc, char** argv) {
  auto args = bench::ParseArgs(argc, argv);
  const std::string table = args.count("table") ? args["table"] : "wide";
  const bool wide = table == "wide";
  const size_t rows = args.count("rows") ? std::stoull(args["rows"]) : (wide ? 10000000 : 300000);
  const int threads = args.count("threads") ? std::stoi(args["threads"]) : 1;
  const int runs = args.count("runs") ? std::stoi(args["runs"]) : 3;
  // Untimed runs first: the first file of a process pays the page faults of its fresh
  // buffers (the writer's pool then reuses them), as DuckDB's first COPY pays its own.
  const int warmup = args.count("warmup") ? std::stoi(args["warmup"]) : 1;
  const std::string out = args.count("out") ? args["out"] : "/tmp/lakedump_bench.parquet";
  auto codec = ParseCodec(args.count("codec") ? args["codec"] : "snappy");
  if (!codec.ok()) {
    std::fprintf(stderr, "%s\n", codec.status().ToString().c_str());
    return 2;
  }
  const Schema schema = wide ? WideSchema() : VmartSchema();
  // The source side: batches of 10,000 rows already in memory, as a database reader makes them.
  const size_t batch_rows = 10000;
  std::vector<std::unique_ptr<RowBatch>> batches;
  for (size_t at = 0; at < rows; at += batch_rows) {
    auto b = std::make_unique<RowBatch>(schema);
    const size_t n = std::min(batch_rows, rows - at);
    if (wide) FillWide(at, n, b.get()); else FillVmart(at, n, b.get());
    batches.push_back(std::move(b));
  }
  std::unique_ptr<ThreadPool> pool;
  if (threads > 1) pool = std::make_unique<ThreadPool>(static_cast<size_t>(threads));
  std::vector<double> times, cpu_times;
  uint64_t bytes = 0;
  for (int run = -warmup; run < runs; ++run) {
    ParquetWriterOptions o;
    o.codec = *codec;
    o.threads = threads;
    o.pool = pool.get();
    if (args.count("row-group-rows")) o.row_group_rows = std::stoull(args["row-group-rows"]);
    if (args.count("no-dictionary")) o.dictionary = false;
    if (args.count("level")) o.compression_level = std::stoi(args["level"]);
    if (args.count("page-bytes")) o.page_bytes = std::stoull(args["page-bytes"]);
    // The previous run's file goes first, untimed: truncating 10 MB of it in
    // fopen("wb") took 4-9 ms here, a serial cost that is no encoding (a dump
    // writes new files).
    std::remove(out.c_str());
    const auto t0 = std::chrono::steady_clock::now();
    const double c0 = bench::ProcessCpuSeconds();
    {
      FileSink sink(out);
      ParquetWriter w(schema, o, &sink);
      for (const auto& b : batches) {
        Status s = w.Write(*b);
        if (!s.ok()) {
          std::fprintf(stderr, "%s\n", s.ToString().c_str());
          return 1;
        }
      }
      Status s = w.Close();
      if (!s.ok()) {
        std::fprintf(stderr, "%s\n", s.ToString().c_str());
        return 1;
      }
      bytes = w.stats().bytes;
    }
    if (run < 0) continue;  // warm-up
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    cpu_times.push_back(bench::ProcessCpuSeconds() - c0);
  }
  std::sort(times.begin(), times.end());
  std::sort(cpu_times.begin(), cpu_times.end());
  const double median = times[times.size() / 2];
  const double cpu = cpu_times[cpu_times.size() / 2];
  std::printf("lakedump table=%s rows=%zu codec=%s threads=%d median_s=%.3f rows_per_s=%.0f "
              "cpu_s=%.3f rows_per_cpu_s=%.0f bytes=%llu\n",
              table.c_str(), rows, std::string(CodecName(*codec)).c_str(), threads, median,
              static_cast<double>(rows) / median, cpu, static_cast<double>(rows) / cpu,
              static_cast<unsigned long long>(bytes));
  return 0;
}

}  // namespace
}  // namespace lakedump

int main(int argc, char** argv) { return lakedump::Main(argc, argv); }
