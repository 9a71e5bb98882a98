#include "dump/iceberg_commit.h"

#include <cctype>
#include <chrono>

#include <nlohmann/json.hpp>
#include <filesystem>
#include <random>

#include "dump/object_keys.h"
#include "format/iceberg/iceberg_table.h"

namespace lakedump {

Result<std::shared_ptr<const IcebergFileMetrics>> CollectIcebergMetrics(
    const Schema& schema, const parquet::FileMetaData* footer,
    std::optional<std::string> partition_value) {
  if (footer == nullptr) {
    return Status::Internal("the file format has no Parquet footer to take Iceberg metrics from");
  }
  auto m = std::make_shared<IcebergFileMetrics>();
  LD_ASSIGN_OR_RETURN(m->stats, iceberg::StatsFromParquetFooter(schema, *footer));
  m->partition_value = std::move(partition_value);
  return std::shared_ptr<const IcebergFileMetrics>(std::move(m));
}

std::string StoreRootUri(const ObjectStore& store) {
  std::string root = store.Describe();
  if (root.find("://") != std::string::npos) return root;  // s3://, memory://
  std::error_code ec;
  std::filesystem::path abs = std::filesystem::absolute(root, ec);
  std::string path = ec ? root : abs.lexically_normal().string();
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return "file://" + path;
}

std::vector<std::string> IcebergMetadataKeys(const TableManifest& table) {
  const std::string prefix = TablePrefix(table.table) + "metadata/";
  std::vector<std::string> keys;
  for (const std::string& name : iceberg::MetadataFileNames(table.run_id)) {
    keys.push_back(prefix + name);
  }
  return keys;
}

Status WriteIcebergTable(ObjectStore& store, const TableManifest& table,
                         std::vector<std::pair<std::string, std::string>>* deferred) {
  std::string root = StoreRootUri(store);
  if (root == "file:///") root = "file://";  // a dump into "/" itself
  const std::string table_prefix = TablePrefix(table.table);
  iceberg::SnapshotInput in;
  in.schema = table.schema;
  if (!table.partition_by.empty()) {
    in.partition_column = table.schema.FindColumn(table.partition_by);
  }
  in.location = root + "/" + table_prefix.substr(0, table_prefix.size() - 1);
  in.table_uuid = iceberg::RandomUuid();
  in.snapshot_id = iceberg::RandomSnapshotId();
  in.timestamp_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                        std::chrono::system_clock::now().time_since_epoch())
                        .count();
  in.file_tag = table.run_id;
  in.random_seed = std::random_device{}();
  in.properties["lakedump.run-id"] = table.run_id;
  for (const DataFile& f : table.files) {
    if (!f.iceberg) {
      return Status::Internal("data file " + f.key + " has no Iceberg metrics");
    }
    iceberg::DataFileEntry e;
    e.path = root + "/" + f.key;
    e.record_count = f.rows;
    e.file_size_in_bytes = f.bytes;
    e.stats = f.iceberg->stats;
    e.partition_value = f.iceberg->partition_value;
    in.files.push_back(std::move(e));
  }
  LD_ASSIGN_OR_RETURN(auto files, iceberg::BuildSnapshot(in));
  const std::string meta_prefix = table_prefix + "metadata/";
  // In order: the manifests and the metadata file first, version-hint.text last, so
  // that no hint ever points at a metadata file that is not complete.
  for (auto& [name, bytes] : files) {
    if (deferred != nullptr && name.find(table.run_id) == std::string::npos) {
      // A fixed name (v1.metadata.json, version-hint.text): the caller writes it later.
      deferred->emplace_back(meta_prefix + name, std::move(bytes));
      continue;
    }
    LD_RETURN_IF_ERROR(store.PutObject(meta_prefix + name, bytes).WithContext(meta_prefix + name));
  }
  return Status::OK();
}

bool IsIcebergVersionHint(std::string_view key) {
  constexpr std::string_view kSuffix = "/metadata/version-hint.text";
  return key.size() > kSuffix.size() && key.ends_with(kSuffix);
}

Status CheckNoForeignIcebergTables(ObjectStore& store, const std::vector<ObjectInfo>& objects) {
  for (const ObjectInfo& o : objects) {
    const size_t dir = o.key.rfind("/metadata/");
    if (dir == std::string::npos || !o.key.ends_with(".metadata.json")) continue;
    LD_ASSIGN_OR_RETURN(std::string text, store.GetObject(o.key));
    const nlohmann::json m = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    const bool ours = m.is_object() && m.contains("properties") && m["properties"].is_object() &&
                      m["properties"].contains("lakedump.run-id");
    if (!ours) {
      return Status::AlreadyExists(
          store.Describe() + " holds an Iceberg table not written by lakedump (" + o.key +
          "); refusing to overwrite it: choose another destination");
    }
  }
  return Status::OK();
}

Result<bool> IcebergMetadataPresent(ObjectStore& store, const TableManifest& table) {
  for (const std::string& key : IcebergMetadataKeys(table)) {
    auto head = store.Head(key);
    if (!head.ok()) {
      if (head.status().code() == Code::kNotFound) return false;
      return head.status();
    }
    if (key.ends_with(".metadata.json")) {
      // The fixed-name metadata file must be this table's run's, not an older dump's
      // (over a committed dump it is rewritten only after the new manifest).
      LD_ASSIGN_OR_RETURN(std::string text, store.GetObject(key));
      const nlohmann::json m = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
      const bool same_run = m.is_object() && m.contains("properties") &&
                            m["properties"].is_object() &&
                            m["properties"].value("lakedump.run-id", "") == table.run_id;
      if (!same_run) return false;
    }
  }
  return true;
}

Result<IcebergTableStatus> ReadIcebergTableStatus(ObjectStore& store, const TableRef& table) {
  IcebergTableStatus out;
  const std::string dir = TablePrefix(table) + "metadata/";
  auto hint = store.GetObject(dir + "version-hint.text", /*max_bytes=*/64);
  if (!hint.ok()) {
    if (hint.status().code() == Code::kNotFound) {
      out.problem = "no version-hint.text";
      return out;
    }
    if (hint.status().code() == Code::kCorruption) {
      out.problem = "version-hint.text is not a version number";
      return out;
    }
    return hint.status();
  }
  // The number N, no newline (tolerate surrounding whitespace); at most 9 digits.
  std::string n = *hint;
  while (!n.empty() && std::isspace(static_cast<unsigned char>(n.back()))) n.pop_back();
  while (!n.empty() && std::isspace(static_cast<unsigned char>(n.front()))) n.erase(0, 1);
  if (n.empty() || n.size() > 9 || n.find_first_not_of("0123456789") != std::string::npos) {
    out.problem = "version-hint.text is not a version number";
    return out;
  }
  out.metadata_key = dir + "v" + n + ".metadata.json";
  auto text = store.GetObject(out.metadata_key, kMaxMetadataBytes);
  if (!text.ok()) {
    if (text.status().code() == Code::kNotFound) {
      out.problem = "version-hint.text names a missing v" + n + ".metadata.json";
      return out;
    }
    if (text.status().code() == Code::kCorruption) {
      out.problem = "v" + n + ".metadata.json is too large";
      return out;
    }
    return text.status();
  }
  const nlohmann::json m = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (!m.is_object() || !m.contains("snapshots") || !m["snapshots"].is_array()) {
    out.problem = "v" + n + ".metadata.json is not Iceberg table metadata";
    return out;
  }
  out.snapshots = m["snapshots"].size();
  if (m.contains("properties") && m["properties"].is_object()) {
    const nlohmann::json& run = m["properties"].value("lakedump.run-id", nlohmann::json());
    if (run.is_string()) out.run_id = run.get<std::string>();
  }
  if (out.run_id.empty()) out.problem = "not written by lakedump (no lakedump.run-id)";
  return out;
}

}  // namespace lakedump
