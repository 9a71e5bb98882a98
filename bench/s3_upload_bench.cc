// Raw upload benchmark of the S3 store: uploads one file as one object with a
// given upload parallelism, `repeats` times, and prints per-run wall time,
// MiB/s and client CPU seconds, then the median. Not a Google Benchmark (it
// talks to a real server); run by bench/s3_upload.sh.
//   s3_upload_bench FILE s3://bucket/prefix PARALLELISM [PART_SIZE_MIB] [REPEATS] [CHECKSUM]
// CHECKSUM: none (lakedump's default: SigV4's payload hash only), md5 (--s3-content-md5),
// crc32c (--s3-checksum crc32c). Endpoint and credentials come from the usual AWS_* variables.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "store/s3/s3_store.h"

namespace {

double CpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr,
                 "usage: %s FILE s3://bucket/prefix PARALLELISM [PART_SIZE_MIB] [REPEATS] "
                 "[none|md5|crc32c]\n",
                 argv[0]);
    return 2;
  }
  // One sized read (a byte-by-byte istreambuf_iterator copy cost about 1 CPU-s per GiB).
  std::ifstream in(argv[1], std::ios::binary | std::ios::ate);
  std::string data(static_cast<size_t>(in.tellg()), '\0');
  in.seekg(0);
  in.read(data.data(), static_cast<std::streamsize>(data.size()));
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", argv[1]);
    return 1;
  }
  lakedump::StoreOptions options;
  options.s3.upload_parallelism = std::atoi(argv[3]);
  options.s3.part_size = (argc > 4 ? std::strtoull(argv[4], nullptr, 10) : 8) << 20;
  options.s3.max_connections = std::max(4, options.s3.upload_parallelism + 1);
  const int repeats = argc > 5 ? std::atoi(argv[5]) : 3;
  const std::string checksum = argc > 6 ? argv[6] : "none";
  if (checksum != "none" && checksum != "md5" && checksum != "crc32c") {
    std::fprintf(stderr, "checksum must be none, md5 or crc32c, not %s\n", checksum.c_str());
    return 2;
  }
  options.s3.content_md5 = checksum == "md5";
  options.s3.checksum_crc32c = checksum == "crc32c";
  auto store = lakedump::OpenS3Store(argv[2], options);
  if (!store.ok()) {
    std::fprintf(stderr, "%s\n", store.status().ToString().c_str());
    return 1;
  }
  // Warm-up: a small upload so the connection and part buffers exist.
  if (auto s = (*store)->PutObject("warmup", std::string(1 << 20, 'w')); !s.ok()) {
    std::fprintf(stderr, "%s\n", s.ToString().c_str());
    return 1;
  }
  std::vector<double> rates, cpus;
  for (int i = 0; i < repeats; ++i) {
    double cpu0 = CpuSeconds();
    auto t0 = std::chrono::steady_clock::now();
    auto writer = (*store)->NewWriter("bench.bin");
    if (!writer.ok()) return 1;
    // Appends of 1 MiB, as an encoder would produce them.
    lakedump::Status s;
    for (size_t pos = 0; pos < data.size() && s.ok(); pos += 1 << 20) {
      s = (*writer)->Append(std::string_view(data).substr(pos, 1 << 20));
    }
    if (s.ok()) s = (*writer)->Close();
    if (!s.ok()) {
      std::fprintf(stderr, "%s\n", s.ToString().c_str());
      return 1;
    }
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    double cpu = CpuSeconds() - cpu0;
    double mib = static_cast<double>(data.size()) / (1 << 20);
    rates.push_back(mib / secs);
    cpus.push_back(cpu / (mib / 1024));
    std::printf("run %d: P=%d %.2fs %.1f MiB/s cpu %.2fs/GiB\n", i + 1,
                options.s3.upload_parallelism, secs, mib / secs, cpu / (mib / 1024));
  }
  std::sort(rates.begin(), rates.end());
  std::sort(cpus.begin(), cpus.end());
  std::printf("median P=%d %.1f MiB/s cpu %.2fs/GiB\n", options.s3.upload_parallelism,
              rates[rates.size() / 2], cpus[cpus.size() / 2]);
  return 0;
}
