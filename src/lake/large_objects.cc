#include "lake/large_objects.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <set>

#include "base/checksum.h"
#include "base/sha256.h"

namespace lakedump {
namespace {

bool LargeObjectRunIdShape(std::string_view run) {
  if (run.empty() || run.size() > 64) return false;
  for (char c : run) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') return false;
  }
  return true;
}

bool LargeObjectHexOfSize(const nlohmann::json& j, size_t size) {
  if (!j.is_string() || j.get_ref<const std::string&>().size() != size) return false;
  for (char c : j.get_ref<const std::string&>()) {
    if (!std::isdigit(static_cast<unsigned char>(c)) && (c < 'a' || c > 'f')) return false;
  }
  return true;
}

// A non-negative integer (parsed JSON gives unsigned; built in code, signed).
bool LargeObjectCount(const nlohmann::json& j, uint64_t* out) {
  if (j.is_number_unsigned()) {
    *out = j.get<uint64_t>();
    return true;
  }
  if (!j.is_number_integer() || j.get<int64_t>() < 0) return false;
  *out = static_cast<uint64_t>(j.get<int64_t>());
  return true;
}

// One privilege: {"grantee": role or "" (PUBLIC), "privilege": SELECT|UPDATE, "grantable"}.
Result<LargeObjectGrant> ParseLargeObjectGrant(const nlohmann::json& g) {
  if (!g.is_object() || !g.contains("grantee") || !g["grantee"].is_string() ||
      !g.contains("privilege") || !g["privilege"].is_string()) {
    return Status::InvalidArgument("a grant is not {grantee, privilege}");
  }
  if (g.contains("grantable") && !g["grantable"].is_boolean()) {
    return Status::InvalidArgument("a grant's grantable is not true or false");
  }
  LargeObjectGrant out{g["grantee"].get<std::string>(), g["privilege"].get<std::string>(),
                       g.contains("grantable") && g["grantable"].get<bool>()};
  if (out.privilege != "SELECT" && out.privilege != "UPDATE") {
    return Status::InvalidArgument(
        fmt::format("privilege \"{}\" is not SELECT or UPDATE", out.privilege));
  }
  return out;
}

Result<LargeObjectMeta> ParseLargeObjectMeta(const nlohmann::json& o) {
  LargeObjectMeta m;
  uint64_t oid = 0;
  if (!o.contains("oid") || !LargeObjectCount(o["oid"], &oid) || oid == 0 || oid > 0xFFFFFFFFull) {
    return Status::InvalidArgument("its oid is not a number from 1 to 4294967295");
  }
  m.oid = static_cast<uint32_t>(oid);
  if (!o.contains("owner") || !o["owner"].is_string() || o["owner"].get<std::string>().empty()) {
    return Status::InvalidArgument("it has no owner");
  }
  m.owner = o["owner"].get<std::string>();
  if (o.contains("acl") && !o["acl"].is_null()) {
    if (!o["acl"].is_array()) return Status::InvalidArgument("its acl is not a list");
    m.has_acl = true;
    for (const nlohmann::json& g : o["acl"]) {
      LD_ASSIGN_OR_RETURN(LargeObjectGrant grant, ParseLargeObjectGrant(g));
      m.acl.push_back(std::move(grant));
    }
  }
  if (o.contains("comment")) {
    if (!o["comment"].is_string()) return Status::InvalidArgument("its comment is not text");
    m.has_comment = true;
    m.comment = o["comment"].get<std::string>();
  }
  return m;
}

Result<LargeObjectEntry> ParseLargeObjectEntry(const nlohmann::json& o) {
  if (!o.is_object()) return Status::InvalidArgument("not an object");
  LargeObjectEntry e;
  LD_ASSIGN_OR_RETURN(e.meta, ParseLargeObjectMeta(o));
  // The key names this OID, in _large_objects/, and nothing else: never a path elsewhere.
  const std::string prefix = fmt::format("{}{}-", kLargeObjectsPrefix, e.meta.oid);
  if (!o.contains("key") || !o["key"].is_string() ||
      !IsLargeObjectKey(o["key"].get<std::string>(), "") ||
      !o["key"].get<std::string>().starts_with(prefix)) {
    return Status::InvalidArgument(fmt::format("its key is not {}<run>.bin", prefix));
  }
  e.key = o["key"].get<std::string>();
  if (!o.contains("bytes") || !LargeObjectCount(o["bytes"], &e.bytes)) {
    return Status::InvalidArgument("it has no size");
  }
  if (!o.contains("xxh64") || !LargeObjectHexOfSize(o["xxh64"], 16)) {
    return Status::InvalidArgument("it has no xxh64 checksum");
  }
  e.xxh64 = o["xxh64"].get<std::string>();
  if (o.contains("sha256")) {
    if (!LargeObjectHexOfSize(o["sha256"], 64)) return Status::InvalidArgument("its sha256 is malformed");
    e.sha256 = o["sha256"].get<std::string>();
  }
  return e;
}

}  // namespace

std::string LargeObjectKey(uint32_t oid, std::string_view run_id) {
  return fmt::format("{}{}-{}.bin", kLargeObjectsPrefix, oid, run_id);
}

bool IsLargeObjectKey(std::string_view key, std::string_view run_id) {
  if (!key.starts_with(kLargeObjectsPrefix) || !key.ends_with(".bin")) return false;
  std::string_view name = key.substr(kLargeObjectsPrefix.size());
  name.remove_suffix(4);
  const size_t dash = name.find('-');
  if (dash == 0 || dash == std::string_view::npos || dash > 10) return false;
  for (size_t i = 0; i < dash; ++i) {
    if (!std::isdigit(static_cast<unsigned char>(name[i]))) return false;
  }
  const std::string_view run = name.substr(dash + 1);
  return run_id.empty() ? LargeObjectRunIdShape(run) : run == run_id;
}

nlohmann::json LargeObjectJson(const LargeObjectEntry& e) {
  nlohmann::json j = {{"oid", e.meta.oid}, {"owner", e.meta.owner}, {"acl", nullptr}};
  if (e.meta.has_acl) {
    j["acl"] = nlohmann::json::array();
    for (const LargeObjectGrant& g : e.meta.acl) {
      j["acl"].push_back(
          {{"grantee", g.grantee}, {"privilege", g.privilege}, {"grantable", g.grantable}});
    }
  }
  if (e.meta.has_comment) j["comment"] = e.meta.comment;
  j["key"] = e.key;
  j["bytes"] = e.bytes;
  j["xxh64"] = e.xxh64;
  if (!e.sha256.empty()) j["sha256"] = e.sha256;
  return j;
}

Result<std::vector<LargeObjectEntry>> ParseLargeObjects(const nlohmann::json& schema) {
  std::vector<LargeObjectEntry> out;
  if (!schema.is_object() || !schema.contains("large_objects")) return out;
  const nlohmann::json& list = schema["large_objects"];
  uint64_t count = 0;
  if (LargeObjectCount(list, &count)) return out;  // an older dump's: UnheldLargeObjectsWarning
  if (!list.is_array()) {
    return Status::InvalidArgument(
        "_manifest.json: schema.large_objects is not a list (the dump was altered or is damaged)");
  }
  std::set<uint32_t> seen;
  for (size_t i = 0; i < list.size(); ++i) {
    auto e = ParseLargeObjectEntry(list[i]);
    if (e.ok() && !seen.insert(e->meta.oid).second) {
      e = Status::InvalidArgument(fmt::format("oid {} is listed twice", e->meta.oid));
    }
    if (!e.ok()) {
      return Status::InvalidArgument(fmt::format(
          "_manifest.json: schema.large_objects[{}]: {} (the dump was altered or is damaged)", i,
          e.status().message()));
    }
    out.push_back(std::move(*e));
  }
  return out;
}

std::vector<std::string> LargeObjectKeys(const nlohmann::json& schema) {
  std::vector<std::string> keys;
  if (!schema.is_object() || !schema.contains("large_objects") ||
      !schema["large_objects"].is_array()) {
    return keys;
  }
  for (const nlohmann::json& o : schema["large_objects"]) {
    if (!o.is_object() || !o.contains("key") || !o["key"].is_string()) continue;
    const std::string key = o["key"].get<std::string>();
    if (IsLargeObjectKey(key, "")) keys.push_back(key);
  }
  return keys;
}

Status ReadLargeObjectChecked(ObjectStore& store, const LargeObjectEntry& e,
                              const std::function<Status(std::string_view)>& consume) {
  auto reader = store.NewReader(e.key);
  if (!reader.ok()) {
    if (reader.status().code() == Code::kNotFound) {
      return Status::InvalidArgument(
          fmt::format("{}: the large object's file is missing (the manifest lists it)", e.key));
    }
    return reader.status().WithContext(e.key);
  }
  if ((*reader)->size() != e.bytes) {
    return Status::InvalidArgument(fmt::format("{}: {} bytes but _manifest.json says {}", e.key,
                                               (*reader)->size(), e.bytes));
  }
  Xxh64Hasher xxh;
  Sha256Hasher sha;
  std::string chunk;
  for (uint64_t offset = 0; offset < e.bytes; offset += chunk.size()) {
    const uint64_t n = std::min<uint64_t>(kLargeObjectChunkBytes, e.bytes - offset);
    LD_RETURN_IF_ERROR((*reader)->ReadAt(offset, n, &chunk).WithContext(e.key));
    if (chunk.size() != n) {
      return Status::InvalidArgument(fmt::format("{}: shorter than _manifest.json says", e.key));
    }
    xxh.Update(chunk);
    if (!e.sha256.empty()) sha.Update(chunk);
    LD_RETURN_IF_ERROR(consume(chunk));
  }
  if (xxh.HexDigest() != e.xxh64) {
    return Status::InvalidArgument(fmt::format("{}: XXH64 is {} but _manifest.json says {}",
                                               e.key, xxh.HexDigest(), e.xxh64));
  }
  if (!e.sha256.empty() && sha.HexDigest() != e.sha256) {
    return Status::InvalidArgument(
        fmt::format("{}: SHA-256 differs from the one _manifest.json records", e.key));
  }
  return Status::OK();
}

std::string UnheldLargeObjectsWarning(const nlohmann::json& schema) {
  uint64_t count = 0;
  if (!schema.is_object() || !schema.contains("large_objects") ||
      !LargeObjectCount(schema["large_objects"], &count) || count == 0) {
    return "";
  }
  return fmt::format(
      "the dump's source held {} large object(s), which this dump (of an older lakedump) does "
      "not hold: they are not restored (an oid column that names one points at nothing)",
      count);
}

}  // namespace lakedump
