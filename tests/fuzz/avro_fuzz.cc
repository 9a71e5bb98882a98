// libFuzzer target: the Avro reader of Iceberg manifest lists and manifests that an earlier run
// wrote (src/format/avro, src/format/iceberg/removed_files). Any input must yield records or an
// error, never a crash, and within the bounds of avro_reader.h: what it reads splits into
// records that lie inside the input, no more of them than bytes.
// Seeds: with LD_AVRO_FUZZ_WRITE_SEEDS=DIR it first writes the manifest lists and manifests of
// two real snapshots (one partitioned) into DIR, as tests/format/iceberg builds them.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>

#include "../format/iceberg/snapshot_input_util.h"
#include "format/avro/avro_reader.h"
#include "format/iceberg/removed_files.h"

namespace {

void WriteSeeds(const std::string& dir) {
  using namespace lakedump;
  using namespace lakedump::iceberg;
  for (bool partitioned : {false, true}) {
    Schema schema({{"id", LogicalType::Of(TypeId::kInt64), false, ""},
                   {"region", LogicalType::Of(TypeId::kString), true, ""}});
    SnapshotInput in = TestSnapshotInput(partitioned ? "runp" : "run1", 7, schema, nullptr);
    if (partitioned) {
      in.partition_column = 1;
      in.files[0].partition_value = "r1";
    }
    auto files = BuildSnapshot(in);
    if (!files.ok()) std::abort();
    for (const auto& [name, bytes] : *files) {
      if (!name.ends_with(".avro")) continue;
      std::ofstream(dir + "/" + (partitioned ? "p-" : "u-") + name, std::ios::binary) << bytes;
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  if (const char* dir = std::getenv("LD_AVRO_FUZZ_WRITE_SEEDS")) WriteSeeds(dir);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace lakedump;
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  auto c = avro::ReadAvroContainer(in, iceberg::kMaxManifestRecords);
  if (c.ok()) {
    if (c->records.size() > size) std::abort();
    for (std::string_view r : c->records) {
      if (r.empty() || r.data() < in.data() || r.data() + r.size() > in.data() + in.size()) {
        std::abort();
      }
    }
  }
  (void)iceberg::ReadManifestList(in);
  iceberg::ManifestRef ref;
  ref.path = "s3://b/t/metadata/m.avro";
  (void)iceberg::LiveEntriesOf(in, ref, "s3://b/t");
  return 0;
}
