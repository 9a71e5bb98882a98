#include "dump/table_reuse.h"

#include <algorithm>

#include "base/checksum.h"
#include "lake/object_keys.h"

namespace lakedump {

std::string SchemaDigest(const Schema& schema) {
  nlohmann::json cols = nlohmann::json::array();
  for (const Column& c : schema.columns()) {
    cols.push_back({c.name, c.type.ToString(), c.nullable, c.source_type});
  }
  Xxh64Hasher hasher;
  hasher.Update(cols.dump());
  return hasher.HexDigest();
}

Result<nlohmann::json> TableFingerprint(Database& db, const TableInfo& table,
                                        const TableDefinition& def) {
  LD_ASSIGN_OR_RETURN(nlohmann::json source, db.Fingerprint(table));
  return nlohmann::json{{"source", std::move(source)}, {"columns_xxh64", SchemaDigest(def.schema)}};
}

std::string RunTableManifestKey(const TableRef& table, std::string_view run_id) {
  return TablePrefix(table) + "_table-" + std::string(run_id) + ".json";
}

std::vector<std::string> TableManifestCandidates(const std::vector<ObjectInfo>& listing,
                                                 const TableRef& table) {
  const std::string prefix = TablePrefix(table);
  const std::string canonical = TableManifestKey(table);
  std::vector<std::string> runs;
  bool has_canonical = false;
  for (const ObjectInfo& o : listing) {
    if (o.key == canonical) {
      has_canonical = true;
      continue;
    }
    if (!o.key.starts_with(prefix)) continue;
    const std::string_view name = std::string_view(o.key).substr(prefix.size());
    if (name.starts_with("_table-") && name.ends_with(".json") &&
        name.find('/') == std::string_view::npos) {
      runs.push_back(o.key);
    }
  }
  std::sort(runs.rbegin(), runs.rend());
  if (has_canonical) runs.push_back(canonical);
  return runs;
}

}  // namespace lakedump
