// Parquet decode throughput: lakedump's ParquetReader vs DuckDB (one thread) on
// the same file, in the same run. The file (written by our writer, snappy):
// 3 int64, 2 double, 2 varchar, date, timestamp, 5% nulls.
//   usage: parquet_decode_bench [ROWS (default 3000000)] [REPEATS (default 3)]
// DuckDB runs through tests/interop/duckdb_scan_bench.mjs when node_modules is
// installed there (or in LD_INTEROP_DIR); otherwise only our numbers are shown.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "format/parquet/parquet_reader.h"
#include "format/parquet/parquet_writer.h"

namespace lakedump {
namespace {

uint64_t Mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

Schema BenchSchema() {
  auto col = [](const char* n, TypeId t) { return Column{n, LogicalType::Of(t), true, ""}; };
  return Schema({col("a", TypeId::kInt64), col("b", TypeId::kInt64), col("c", TypeId::kInt64),
                 col("d", TypeId::kDouble), col("e", TypeId::kDouble), col("f", TypeId::kString),
                 col("g", TypeId::kString), col("h", TypeId::kDate),
                 col("i", TypeId::kTimestamp)});
}

std::string WriteBenchFile(size_t rows) {
  const Schema schema = BenchSchema();
  StringSink sink;
  ParquetWriter writer(schema, {}, &sink);
  RowBatch batch(schema);
  for (size_t at = 0; at < rows; at += 10000) {
    batch.Clear();
    const size_t n = std::min<size_t>(10000, rows - at);
    for (size_t c = 0; c < schema.num_columns(); ++c) {
      ColumnVector& v = batch.column(c);
      for (size_t k = 0; k < n; ++k) {
        const uint64_t r = at + k, h = Mix(r * 16 + c);
        if (h % 100 < 5) {
          v.AppendNull();
          continue;
        }
        switch (c) {
          case 0: v.Append<int64_t>(static_cast<int64_t>(r)); break;
          case 1: v.Append<int64_t>(static_cast<int64_t>(h % 1000)); break;
          case 2: v.Append<int64_t>(static_cast<int64_t>(h)); break;
          case 3: v.Append<double>(static_cast<double>(h % 1000000) / 100.0); break;
          case 4: v.Append<double>(static_cast<double>(h) / 3.0); break;
          case 5: v.AppendBytes(fmt::format("customer#{:09d}", h % 100000)); break;
          case 6: v.AppendBytes(fmt::format("comment {} {}", h, r)); break;
          case 7: v.Append<int32_t>(static_cast<int32_t>(h % 20000)); break;
          default: v.Append<int64_t>(static_cast<int64_t>(h % (1ull << 50))); break;
        }
      }
    }
    Status s = writer.Write(batch);
    if (!s.ok()) {
      fmt::print(stderr, "write: {}\n", s.ToString());
      std::exit(1);
    }
  }
  if (!writer.Close().ok()) std::exit(1);
  return sink.str();
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace
}  // namespace lakedump

int main(int argc, char** argv) {
  using namespace lakedump;
  const size_t rows = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 3000000;
  const int repeats = argc > 2 ? std::atoi(argv[2]) : 3;
  const std::string file = WriteBenchFile(rows);
  const std::string path =
      (std::filesystem::temp_directory_path() / "lakedump_decode_bench.parquet").string();
  std::ofstream(path, std::ios::binary).write(file.data(), static_cast<std::streamsize>(file.size()));
  fmt::print("file: {} rows, {:.1f} MiB, {}\n", rows, file.size() / 1048576.0, path);

  std::vector<double> ours;
  for (int i = 0; i < repeats; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    auto reader = ParquetReader::OpenBuffer(file);
    if (!reader.ok()) return 1;
    RowBatch batch;
    uint64_t n = 0;
    while (true) {
      Status s = (*reader)->Next(65536, &batch);
      if (!s.ok()) {
        fmt::print(stderr, "read: {}\n", s.ToString());
        return 1;
      }
      if (batch.num_rows() == 0) break;
      n += batch.num_rows();
    }
    ours.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    if (n != rows) return 1;
  }
  const double our_s = Median(ours);
  fmt::print("lakedump ParquetReader: median {:.3f} s, {:.2f} M rows/s\n", our_s, rows / our_s / 1e6);

  const char* env = std::getenv("LD_INTEROP_DIR");
  const std::filesystem::path dir = env != nullptr && *env ? std::filesystem::path(env)
                                    : std::filesystem::path(__FILE__).parent_path().parent_path() / "tests" / "interop";
  if (!std::filesystem::exists(dir / "node_modules")) {
    fmt::print("DuckDB: skipped (no node_modules in {})\n", dir.string());
    return 0;
  }
  const std::string cmd = fmt::format("cd '{}' && node duckdb_scan_bench.mjs '{}' {}", dir.string(),
                                      path, repeats);
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  char buf[512];
  size_t got;
  while (p != nullptr && (got = fread(buf, 1, sizeof(buf), p)) > 0) out.append(buf, got);
  if (p == nullptr || pclose(p) != 0) {
    fmt::print("DuckDB: failed: {}\n", out);
    return 1;
  }
  // {"seconds":[a,b,c],"rows":N}
  std::vector<double> duck;
  const size_t l = out.find('['), r = out.find(']');
  std::stringstream ss(out.substr(l + 1, r - l - 1));
  for (std::string item; std::getline(ss, item, ',');) duck.push_back(std::stod(item));
  const double duck_s = Median(duck);
  fmt::print("DuckDB (threads=1, count + sum(hash(*))): median {:.3f} s, {:.2f} M rows/s\n", duck_s,
             rows / duck_s / 1e6);
  fmt::print("ratio lakedump/DuckDB time: {:.2f}\n", our_s / duck_s);
  std::filesystem::remove(path);
  return 0;
}
