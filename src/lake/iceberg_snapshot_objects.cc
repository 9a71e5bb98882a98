#include "lake/iceberg_snapshot_objects.h"

#include <fmt/format.h>

#include "format/avro/avro_reader.h"
#include "lake/iceberg_layout.h"
#include "lake/incremental_state.h"
#include "lake/manifest.h"
#include "lake/object_keys.h"

namespace lakedump {
namespace {

// A name under the table's metadata/ (one name, nothing climbing out) as its key.
Result<std::string> SnapshotMetadataKey(const TableRef& table, const std::string& location,
                                        std::string_view uri) {
  const std::string dir = location + "/metadata/";
  const std::string_view name = uri.starts_with(dir) ? uri.substr(dir.size()) : "";
  if (name.empty() || name.find('/') != std::string_view::npos || name == "." || name == "..") {
    return Status::Corruption(fmt::format("{} is not a file of the table's metadata/", uri));
  }
  return TablePrefix(table) + "metadata/" + std::string(name);
}

}  // namespace

Result<std::string> IcebergEntryPath(const iceberg::RemovedEntry& entry) {
  avro::AvroDecoder d(entry.data_file);
  LD_RETURN_IF_ERROR(d.ReadLong().status());  // content
  LD_ASSIGN_OR_RETURN(std::string_view path, d.ReadBytes());
  return std::string(path);
}

Result<std::string> IcebergUriKey(const ObjectStore& store, std::string_view uri) {
  std::string root = StoreRootUri(store);
  if (root == "file:///") root = "file://";
  root += "/";
  const std::string_view key = uri.starts_with(root) ? uri.substr(root.size()) : "";
  if (key.empty() || key.find("/../") != std::string_view::npos || key.starts_with("../")) {
    return Status::Corruption(fmt::format("{} is not a file of the dump", uri));
  }
  return std::string(key);
}

SnapshotObjects::SnapshotObjects(ObjectStore* store, TableRef table)
    : store_(store), table_(std::move(table)),
      location_(IcebergTableLocation(*store, table_)) {}

Status SnapshotObjects::Add(const nlohmann::ordered_json& snapshot,
                            std::set<std::string>* keys) {
  // The list, read as ReadCurrentManifestList reads the current one.
  iceberg::TableHistory one;
  one.metadata["snapshots"] = nlohmann::ordered_json::array({snapshot});
  one.current_snapshot_id = snapshot["snapshot-id"].get<int64_t>();
  LD_ASSIGN_OR_RETURN(std::string list_key,
                      SnapshotMetadataKey(table_, location_,
                                          snapshot["manifest-list"].get<std::string>()));
  keys->insert(list_key);
  LD_ASSIGN_OR_RETURN(std::vector<iceberg::ManifestRef> refs,
                      ReadCurrentManifestList(*store_, table_, location_, one));
  const std::string increments =
      StoreRootUri(*store_) + "/" + std::string(kIncrementsFolder);
  for (const iceberg::ManifestRef& ref : refs) {
    LD_ASSIGN_OR_RETURN(std::string key, SnapshotMetadataKey(table_, location_, ref.path));
    keys->insert(key);
    auto cached = manifests_.find(key);
    if (cached == manifests_.end()) {
      LD_ASSIGN_OR_RETURN(std::string bytes, store_->GetObject(key, kMaxMetadataBytes));
      LD_ASSIGN_OR_RETURN(iceberg::RemovedManifest m,
                          iceberg::LiveEntriesOf(bytes, ref, location_, increments));
      std::vector<std::string> files;
      for (const iceberg::RemovedEntry& e : m.entries) {
        LD_ASSIGN_OR_RETURN(std::string uri, IcebergEntryPath(e));
        LD_ASSIGN_OR_RETURN(std::string file, IcebergUriKey(*store_, uri));
        files.push_back(std::move(file));
      }
      cached = manifests_.emplace(key, std::move(files)).first;
    }
    keys->insert(cached->second.begin(), cached->second.end());
  }
  const auto& summary = snapshot["summary"];
  const auto& index = summary.value("lakedump.key-index", nlohmann::ordered_json());
  if (index.is_string()) {
    const std::string name = index.get<std::string>();
    if (name.find('/') != std::string::npos || !name.starts_with("keyindex-")) {
      return Status::Corruption(fmt::format("the key index {} is not in the table's metadata/",
                                            name));
    }
    keys->insert(TablePrefix(table_) + "metadata/" + name);
  }
  return Status::OK();
}

}  // namespace lakedump
