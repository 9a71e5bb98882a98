#include "dump/large_object_dump.h"

#include <fmt/format.h>

#include "base/checksum.h"
#include "lake/large_objects.h"

namespace lakedump {
namespace {

Result<LargeObjectEntry> DumpOneLargeObject(LargeObjectSource& source, ObjectStore& store,
                                            const LargeObjectMeta& meta, std::string key,
                                            bool sha256) {
  LD_ASSIGN_OR_RETURN(std::unique_ptr<ObjectWriter> writer, store.NewWriter(key));
  ChecksumSink sink(writer.get());
  if (sha256) sink.EnableSha256();
  LD_RETURN_IF_ERROR(source.Read(meta.oid, kLargeObjectChunkBytes, &sink));
  LD_RETURN_IF_ERROR(writer->Close().WithContext(key));
  LargeObjectEntry e;
  e.meta = meta;
  e.key = std::move(key);
  e.bytes = sink.bytes_hashed();
  e.xxh64 = sink.hex_digest();
  e.sha256 = sink.sha256_hex();
  return e;
}

}  // namespace

Result<LargeObjectDumpResult> DumpLargeObjects(LargeObjectSource& source, ObjectStore& store,
                                               RunJournalWriter& journal, bool sha256,
                                               std::stop_token stop) {
  std::vector<std::string> keys;
  for (const LargeObjectMeta& m : source.objects()) {
    keys.push_back(LargeObjectKey(m.oid, journal.run_id()));
  }
  LD_RETURN_IF_ERROR(journal.Record(keys));
  LargeObjectDumpResult out;
  for (size_t i = 0; i < keys.size(); ++i) {
    if (stop.stop_requested()) return Status::Cancelled("the dump stopped before its commit");
    const LargeObjectMeta& m = source.objects()[i];
    auto e = DumpOneLargeObject(source, store, m, keys[i], sha256);
    if (!e.ok()) return e.status().WithContext(fmt::format("large object {}", m.oid));
    out.bytes += e->bytes;
    out.entries.push_back(LargeObjectJson(*e));
  }
  return out;
}

}  // namespace lakedump
