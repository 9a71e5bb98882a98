#include "fakes/crafted_dump.h"

#include <fmt/format.h>

#include "base/checksum.h"
#include "base/sha256.h"
#include "dump/file_encoder.h"
#include "lake/object_keys.h"
#include "lake/signature.h"
#include "store/open_store.h"
#include "table/row_batch.h"

namespace lakedump::testing_crafted {
namespace {

RowBatch Rows(const Schema& schema, uint64_t rows) {
  RowBatch batch(schema);
  for (uint64_t r = 0; r < rows; ++r) {
    for (size_t c = 0; c < schema.num_columns(); ++c) {
      ColumnVector& col = batch.column(c);
      switch (schema.column(c).type.id) {
        case TypeId::kInt64:
          col.Append(static_cast<int64_t>(r + 1));
          break;
        case TypeId::kInt32:
          col.Append(static_cast<int32_t>(r + 1));
          break;
        case TypeId::kString:
          col.AppendBytes(fmt::format("v{}", r + 1));
          break;
        default:
          col.AppendNull();
      }
    }
  }
  return batch;
}

}  // namespace

CraftedTable CraftedIntTable(const std::string& schema, const std::string& name,
                             const std::string& source_type) {
  CraftedTable t;
  t.table = TableRef{schema, name};
  t.schema = Schema({Column{"a", LogicalType::Of(TypeId::kInt64), false, source_type},
                     Column{"b", LogicalType::Of(TypeId::kString), true, "text"}});
  t.ddl = fmt::format("CREATE TABLE \"{}\".\"{}\" (\n  \"a\" {} NOT NULL,\n  \"b\" text\n)",
                      schema, name, source_type);
  return t;
}

Status WriteCraftedDump(const std::string& dir, const CraftedDump& dump) {
  LD_ASSIGN_OR_RETURN(auto store, OpenStore(dir, StoreOptions{}));
  const std::string run = "20260101T000000Z-crafted0";
  const bool sign = !dump.sign_key.empty();
  DumpManifest d;
  d.dump_id = run;
  d.created_by = "crafted_dump (tests)";
  d.source = {{"kind", dump.source_kind}};
  d.options = nlohmann::json::object();
  d.sha256 = sign;
  for (const CraftedTable& t : dump.tables) {
    TableManifest m;
    m.table = t.table;
    m.schema = t.schema;
    m.ddl = t.ddl;
    m.primary_key = t.primary_key;
    m.unique_keys = t.unique_keys;
    m.codec = "snappy";
    m.run_id = run;
    // One data file.
    const std::string key = DataFileKey(t.table, "", 0, 0, run);
    StringSink bytes;
    {
      ChecksumSink hash(&bytes);
      auto encoder = ParquetEncoderFactory(ParquetWriterOptions{})(t.schema, &hash);
      LD_RETURN_IF_ERROR(encoder->Write(Rows(t.schema, t.rows)));
      LD_RETURN_IF_ERROR(encoder->Close());
      m.files.push_back(DataFile{key, t.rows, bytes.str().size(), hash.hex_digest(), "",
                                 sign ? Sha256Hex(bytes.str()) : ""});
    }
    LD_RETURN_IF_ERROR(store->PutObject(key, bytes.str()));
    m.rows = t.rows;
    m.bytes = bytes.str().size();
    nlohmann::json j = ToJson(m);
    if (!t.record_unique_keys) j.erase("unique_keys");
    if (t.patch) t.patch(j);
    const std::string text = j.dump(2) + "\n";
    LD_RETURN_IF_ERROR(store->PutObject(TableManifestKey(t.table), text));
    d.tables.push_back(TableSummary{t.table, TableManifestKey(t.table), t.rows, 1, m.bytes,
                                    "snappy", 0.0, m.run_id, sign ? Sha256Hex(text) : ""});
    d.total_rows += t.rows;
    d.total_files += 1;
    d.total_bytes += m.bytes;
  }
  const std::string manifest = ToJson(d).dump(2) + "\n";
  if (sign) LD_RETURN_IF_ERROR(store->PutObject(kSignatureKey, SignatureObject(dump.sign_key, manifest)));
  return store->PutObject(kManifestKey, manifest);
}

}  // namespace lakedump::testing_crafted
