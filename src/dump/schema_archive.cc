#include "dump/schema_archive.h"

#include <fmt/format.h>

#include "base/checksum.h"
#include "dump/manifest.h"

namespace lakedump {

Result<SchemaArchiveEntry> ParseSchemaArchiveEntry(const nlohmann::json& schema) {
  SchemaArchiveEntry e;
  if (!schema.is_object() || !schema.contains("archive")) return e;
  const nlohmann::json& a = schema["archive"];
  const auto bad = [](std::string_view what) {
    return Status::Corruption(
        fmt::format("_manifest.json: schema.archive {} (the dump was altered or is damaged)", what));
  };
  if (!a.is_object()) return bad("is not an object");
  if (!a.contains("key") || !a["key"].is_string() || a["key"] != kPgSchemaArchiveKey) {
    return bad(fmt::format("must have key \"{}\"", kPgSchemaArchiveKey));
  }
  if (!a.contains("bytes") || !a["bytes"].is_number_unsigned() || a["bytes"] == 0) {
    return bad("has no size");
  }
  if (!a.contains("xxh64") || !a["xxh64"].is_string() || a["xxh64"].get<std::string>().size() != 16) {
    return bad("has no xxh64 checksum");
  }
  e.key = a["key"].get<std::string>();
  e.bytes = a["bytes"].get<uint64_t>();
  e.xxh64 = a["xxh64"].get<std::string>();
  if (a.contains("pg_dump_version") && a["pg_dump_version"].is_string()) {
    e.pg_dump_version = a["pg_dump_version"].get<std::string>();
  }
  if (e.bytes > kMaxSchemaArchiveBytes) return bad("is larger than 1 GiB");
  return e;
}

Result<std::string> ReadSchemaArchive(ObjectStore& store, const SchemaArchiveEntry& entry) {
  auto reader = store.NewReader(entry.key);
  if (!reader.ok()) {
    if (reader.status().code() == Code::kNotFound) {
      return Status::Corruption(
          fmt::format("{}: the schema archive is missing (the manifest lists it)", entry.key));
    }
    return reader.status().WithContext(entry.key);
  }
  if ((*reader)->size() != entry.bytes) {
    return Status::Corruption(fmt::format("{}: {} bytes but _manifest.json says {}", entry.key,
                                          (*reader)->size(), entry.bytes));
  }
  std::string data;
  LD_RETURN_IF_ERROR((*reader)->ReadAt(0, entry.bytes, &data).WithContext(entry.key));
  const std::string digest = Xxh64Hex(data);
  if (digest != entry.xxh64) {
    return Status::Corruption(fmt::format("{}: XXH64 is {} but _manifest.json says {}", entry.key,
                                          digest, entry.xxh64));
  }
  return data;
}

std::string SchemaFrom(const nlohmann::json& schema) {
  if (!schema.is_object() || !schema.contains("schema_from") || !schema["schema_from"].is_string()) {
    return "";
  }
  return schema["schema_from"].get<std::string>();
}

}  // namespace lakedump
