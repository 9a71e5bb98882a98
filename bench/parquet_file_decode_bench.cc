// Decode throughput of lakedump's ParquetReader on a Parquet file on disk (ours, DuckDB's,
// anyone's): opens the file, reads the footer, decodes every page of every column into
// RowBatches (every value materialized), one thread. Used by decode_vs_duckdb.sh.
//
//   parquet_file_decode_bench --file=PATH [--runs=3] [--batch-rows=65536] [--label=NAME]
// Prints one line: `lakedump file=NAME rows=N columns=C runs=R median_s=S rows_per_s=X
// cpu_s=C rows_per_cpu_s=Y bytes=B` (median_s: wall; cpu_s: process CPU time, median).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "bench_util.h"
#include "format/parquet/parquet_reader.h"

namespace lakedump {
namespace {

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// One full decode of the file through pread; returns rows, or -1 after printing the error.
int64_t DecodeOnce(int fd, uint64_t size, size_t batch_rows, const std::string& name,
                   size_t* columns) {
  auto read_at = [fd](uint64_t off, uint64_t len, std::string* out) -> Status {
    out->resize(len);
    uint64_t done = 0;
    while (done < len) {
      const ssize_t n = ::pread(fd, out->data() + done, len - done, static_cast<off_t>(off + done));
      if (n <= 0) return Status::IOError("pread failed or hit the end of the file");
      done += static_cast<uint64_t>(n);
    }
    return Status::OK();
  };
  ParquetReaderOptions o;
  o.name = name;
  auto reader = ParquetReader::Open(size, read_at, o);
  if (!reader.ok()) {
    fmt::print(stderr, "open: {}\n", reader.status().ToString());
    return -1;
  }
  *columns = (*reader)->schema().num_columns();
  RowBatch batch;
  int64_t rows = 0;
  while (true) {
    Status s = (*reader)->Next(batch_rows, &batch);
    if (!s.ok()) {
      fmt::print(stderr, "read: {}\n", s.ToString());
      return -1;
    }
    if (batch.num_rows() == 0) break;
    rows += static_cast<int64_t>(batch.num_rows());
  }
  return rows;
}

int Main(int argc, char** argv) {
  auto args = bench::ParseArgs(argc, argv);
  if (!args.count("file")) {
    fmt::print(stderr, "usage: parquet_file_decode_bench --file=PATH [--runs=3] "
                       "[--batch-rows=65536] [--label=NAME]\n");
    return 2;
  }
  const std::string path = args["file"];
  const int runs = std::max(1, args.count("runs") ? std::stoi(args["runs"]) : 3);
  const size_t batch_rows =
      std::max<size_t>(1, args.count("batch-rows") ? std::stoul(args["batch-rows"]) : 65536);
  const std::string label = args.count("label") ? args["label"] : path;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  struct stat st {};
  if (fd < 0 || ::fstat(fd, &st) != 0) {
    fmt::print(stderr, "cannot open {}\n", path);
    return 1;
  }
  std::vector<double> wall, cpu;
  int64_t rows = 0;
  size_t columns = 0;
  for (int i = 0; i < runs; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    const double c0 = bench::ProcessCpuSeconds();
    rows = DecodeOnce(fd, static_cast<uint64_t>(st.st_size), batch_rows, label, &columns);
    if (rows < 0) return 1;
    cpu.push_back(bench::ProcessCpuSeconds() - c0);
    wall.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  ::close(fd);
  const double w = Median(wall), c = Median(cpu);
  fmt::print("lakedump file={} rows={} columns={} runs={} median_s={:.4f} rows_per_s={:.0f} "
             "cpu_s={:.4f} rows_per_cpu_s={:.0f} bytes={}\n",
             label, rows, columns, runs, w, static_cast<double>(rows) / w, c,
             static_cast<double>(rows) / c, static_cast<long long>(st.st_size));
  return 0;
}

}  // namespace
}  // namespace lakedump

int main(int argc, char** argv) { return lakedump::Main(argc, argv); }
