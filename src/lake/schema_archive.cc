#include "lake/schema_archive.h"

#include <fmt/format.h>

#include <cctype>

#include "base/checksum.h"
#include "base/sha256.h"
#include "lake/manifest.h"

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
  // _schema/postgres.dump, or _schema/postgres-<run>.dump for a dump written over another.
  if (!a.contains("key") || !a["key"].is_string() ||
      !IsSchemaArchiveKey(a["key"].get<std::string>())) {
    return bad(fmt::format("must have key \"{}\" (or _schema/postgres-<run>.dump)",
                           kPgSchemaArchiveKey));
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
  if (a.contains("sha256") && a["sha256"].is_string()) e.sha256 = a["sha256"].get<std::string>();
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
  if (!entry.sha256.empty() && Sha256Hex(data) != entry.sha256) {
    return Status::Corruption(
        fmt::format("{}: SHA-256 differs from the one _manifest.json records", entry.key));
  }
  return data;
}

bool IsSchemaArchiveKey(std::string_view key) {
  if (key == kPgSchemaArchiveKey) return true;
  constexpr std::string_view kPrefix = "_schema/postgres-", kSuffix = ".dump";
  if (!key.starts_with(kPrefix) || !key.ends_with(kSuffix)) return false;
  const std::string_view run = key.substr(kPrefix.size(), key.size() - kPrefix.size() - kSuffix.size());
  if (run.empty() || run.size() > 64) return false;
  for (char c : run) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') return false;
  }
  return true;
}

std::string SchemaFrom(const nlohmann::json& schema) {
  if (!schema.is_object() || !schema.contains("schema_from") || !schema["schema_from"].is_string()) {
    return "";
  }
  return schema["schema_from"].get<std::string>();
}

}  // namespace lakedump
