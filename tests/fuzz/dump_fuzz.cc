// libFuzzer target: whole dumps (manifest, table manifests and data files together) through
// `verify --deep --json` and a load into an in-memory SQLite database, as a hostile dump would
// reach them. Any input must give a report or an error, never a crash, a hang or unbounded
// memory (run with -rss_limit_mb; scripts/fuzz does).
//
// Input: a serialized dump, a sequence of objects, each
//   [u16 key length, little-endian][key][u32 data length, little-endian][data]
// (a trailing partial record is ignored). Seeds: with LD_DUMP_FUZZ_WRITE_SEED=FILE set, the
// target first writes a small valid dump in this form to FILE (scripts/fuzz does, into the
// corpus), built with our own Parquet writer and manifest code.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <string_view>

#include "base/byte_sink.h"
#include "base/checksum.h"
#include "lake/manifest.h"
#include "lake/object_keys.h"
#include "lake/verifier.h"
#include "format/parquet/parquet_writer.h"
#include "load/load_service.h"
#include "load/sqlite/sqlite_target.h"
#include "store/memory/memory_store.h"

namespace {

using namespace lakedump;

void AppendRecord(std::string* out, std::string_view key, std::string_view data) {
  const uint16_t k = static_cast<uint16_t>(key.size());
  const uint32_t d = static_cast<uint32_t>(data.size());
  out->append(reinterpret_cast<const char*>(&k), 2);
  out->append(key);
  out->append(reinterpret_cast<const char*>(&d), 4);
  out->append(data);
}

// A dump of one table (two files of an int64 and a nullable string column), serialized.
std::string SeedDump() {
  Schema schema({Column{"id", LogicalType::Of(TypeId::kInt64), false, "INTEGER"},
                 Column{"s", LogicalType::Of(TypeId::kString), true, "TEXT"}});
  const TableRef ref{"main", "t"};
  TableManifest t;
  t.table = ref;
  t.schema = schema;
  t.ddl = "CREATE TABLE t(id INTEGER, s TEXT)";
  t.codec = "zstd";
  t.run_id = "run";
  std::string out;
  for (int f = 0; f < 2; ++f) {
    ParquetWriterOptions o;
    o.codec = f == 0 ? CodecKind::kZstd : CodecKind::kSnappy;
    o.row_group_rows = 20;
    StringSink sink;
    ParquetWriter w(schema, o, &sink);
    RowBatch b(schema);
    for (int64_t i = 0; i < 50; ++i) {
      b.column(0).Append<int64_t>(i + f * 50);
      if (i % 5 == 0) {
        b.column(1).AppendNull();
      } else {
        b.column(1).AppendBytes("v" + std::to_string(i % 7));
      }
    }
    if (!w.Write(b).ok() || !w.Close().ok()) std::abort();
    const std::string key = DataFileKey(ref, "", 0, f, "run");
    t.files.push_back(DataFile{key, 50, sink.str().size(), Xxh64Hex(sink.str()), ""});
    t.rows += 50;
    t.bytes += sink.str().size();
    AppendRecord(&out, key, sink.str());
  }
  AppendRecord(&out, TableManifestKey(ref), ToJson(t).dump());
  DumpManifest d;
  d.dump_id = "run";
  d.source = {{"kind", "sqlite"}};
  d.tables.push_back(
      TableSummary{ref, TableManifestKey(ref), t.rows, t.files.size(), t.bytes, "zstd", 0});
  d.total_rows = t.rows;
  d.total_files = t.files.size();
  d.total_bytes = t.bytes;
  AppendRecord(&out, kManifestKey, ToJson(d).dump());
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  if (const char* seed = std::getenv("LD_DUMP_FUZZ_WRITE_SEED")) {
    std::ofstream(seed, std::ios::binary) << SeedDump();
  }
  // Whatever SQL a mutated dump carries runs against an in-memory database; a statement that
  // reaches for a file (ATTACH) lands in a scratch folder, not where the fuzzer was started.
  char dir[] = "/tmp/lakedump-dump-fuzz-XXXXXX";
  if (::mkdtemp(dir) != nullptr && ::chdir(dir) != 0) std::abort();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace lakedump;
  std::string_view in(reinterpret_cast<const char*>(data), size);
  MemoryStore store;
  while (in.size() >= 2) {
    uint16_t klen;
    std::memcpy(&klen, in.data(), 2);
    if (in.size() < 2u + klen + 4u) break;
    const std::string key(in.substr(2, klen));
    uint32_t dlen;
    std::memcpy(&dlen, in.data() + 2 + klen, 4);
    in.remove_prefix(2u + klen + 4u);
    const std::string_view value = in.substr(0, std::min<size_t>(dlen, in.size()));
    in.remove_prefix(value.size());
    (void)store.PutObject(key, value);  // keys the store refuses are simply absent
  }

  VerifyOptions vo;
  vo.deep = true;
  vo.parallelism = 2;
  auto report = Verify(store, vo);
  if (report.ok()) {
    // What `verify --json` prints; must not throw on any name a dump carries.
    (void)ToJson(*report).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }

  auto target = OpenSqliteTarget(":memory:", SqliteTargetOptions{});
  if (!target.ok()) std::abort();
  LoadOptions lo;
  lo.table_parallelism = 2;
  lo.batch_rows = 64;
  LoadService load(&store, target->get(), lo);
  (void)load.Run();
  return 0;
}
