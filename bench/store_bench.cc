// LocalStore write throughput against plain `cp` of the same bytes.
//
//   BM_LocalStoreWrite/<MiB>   LocalStore writer, 1 MiB appends, Close() = fsync +
//                              rename + directory fsync.
//   BM_CpFile/<MiB>            `cp src dst` (no fsync: cp never syncs).
//   BM_CpFileSync/<MiB>        `cp src dst && sync dst` (cp plus one fsync).
//
// Files go under $LD_BENCH_DIR (default /tmp). Every iteration writes a new
// object and deletes it afterwards, so the disk does not fill up. The source
// file for cp is written once and is in the page cache, like the store's
// in-memory input. Dirty data is synced (untimed) before every iteration. Note
// that the CPU column of the cp runs misses cp itself (a child process).
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "store/local/local_store.h"

namespace lakedump {
namespace {

std::string BenchDir() {
  const char* env = std::getenv("LD_BENCH_DIR");
  std::string base = env && *env ? env : "/tmp";
  return base + "/lakedump-store-bench-" + std::to_string(::getpid());
}

const std::string& Chunk() {
  static const std::string chunk = [] {
    std::mt19937_64 rng(42);
    std::string s(1 << 20, '\0');
    for (size_t i = 0; i + 8 <= s.size(); i += 8) {
      const uint64_t v = rng();
      std::memcpy(&s[i], &v, 8);
    }
    return s;
  }();
  return chunk;
}

// Untimed sync(2) before each measured write, so that background writeback of
// earlier files (the warm-up, cp's source, the previous iteration) does not
// compete with the one being measured.
void FlushPageCache(benchmark::State& state) {
  state.PauseTiming();
  ::sync();
  state.ResumeTiming();
}

void BM_LocalStoreWrite(benchmark::State& state) {
  const int64_t mib = state.range(0);
  const std::string dir = BenchDir();
  auto store = LocalStore::Open(dir);
  if (!store.ok()) {
    state.SkipWithError(store.status().ToString().c_str());
    return;
  }
  // Creates the folder and the input chunk outside the timed loop. (A warm-up
  // object as large as the measured one made the measured write slower: the
  // kernel's dirty-page throttling penalises a task that just dirtied a lot.)
  if (Status s = (*store)->PutObject("warmup", Chunk()); !s.ok()) {
    state.SkipWithError(s.ToString().c_str());
    return;
  }
  int n = 0;
  for (auto _ : state) {
    FlushPageCache(state);
    const std::string key = "t/part-" + std::to_string(n++) + ".parquet";
    auto writer = (*store)->NewWriter(key);
    if (!writer.ok()) {
      state.SkipWithError(writer.status().ToString().c_str());
      break;
    }
    Status s;
    for (int64_t i = 0; i < mib && s.ok(); ++i) s = (*writer)->Append(Chunk());
    if (s.ok()) s = (*writer)->Close();
    if (!s.ok()) {
      state.SkipWithError(s.ToString().c_str());
      break;
    }
    state.PauseTiming();
    std::vector<std::string> keys = {key};
    (*store)->Delete(keys).IgnoreError();
    state.ResumeTiming();
  }
  state.SetBytesProcessed(state.iterations() * mib * (1 << 20));
  std::filesystem::remove_all(dir);
}

// The same system calls without LocalStore: open, write(2) 1 MiB at a time,
// fsync, close. The floor LocalStore's overhead is measured against.
void BM_RawWriteFsync(benchmark::State& state) {
  const int64_t mib = state.range(0);
  const std::string dir = BenchDir();
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/raw.bin";
  for (auto _ : state) {
    FlushPageCache(state);
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    bool ok = fd >= 0;
    for (int64_t i = 0; i < mib && ok; ++i) {
      ok = ::write(fd, Chunk().data(), Chunk().size()) == static_cast<ssize_t>(Chunk().size());
    }
    ok = ok && ::fsync(fd) == 0;
    if (fd >= 0) ::close(fd);
    if (!ok) {
      state.SkipWithError("raw write failed");
      break;
    }
    state.PauseTiming();
    std::filesystem::remove(path);
    state.ResumeTiming();
  }
  state.SetBytesProcessed(state.iterations() * mib * (1 << 20));
  std::filesystem::remove_all(dir);
}

void CpBench(benchmark::State& state, bool sync) {
  const int64_t mib = state.range(0);
  const std::string dir = BenchDir();
  std::filesystem::create_directories(dir);
  const std::string src = dir + "/src.bin";
  {
    std::ofstream out(src, std::ios::binary);
    for (int64_t i = 0; i < mib; ++i) out.write(Chunk().data(), Chunk().size());
  }
  const std::string dst = dir + "/dst.bin";
  const std::string cmd = "cp " + src + " " + dst + (sync ? " && sync " + dst : "");
  for (auto _ : state) {
    FlushPageCache(state);
    if (std::system(cmd.c_str()) != 0) {
      state.SkipWithError("cp failed");
      break;
    }
    state.PauseTiming();
    std::filesystem::remove(dst);
    state.ResumeTiming();
  }
  state.SetBytesProcessed(state.iterations() * mib * (1 << 20));
  std::filesystem::remove_all(dir);
}

void BM_CpFile(benchmark::State& state) { CpBench(state, false); }
void BM_CpFileSync(benchmark::State& state) { CpBench(state, true); }

BENCHMARK(BM_LocalStoreWrite)->Arg(16)->Arg(256)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_RawWriteFsync)->Arg(16)->Arg(256)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_CpFile)->Arg(16)->Arg(256)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_CpFileSync)->Arg(16)->Arg(256)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace lakedump

BENCHMARK_MAIN();
