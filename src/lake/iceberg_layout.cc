#include "lake/iceberg_layout.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <chrono>

#include <nlohmann/json.hpp>
#include <filesystem>
#include <random>

#include "lake/incremental_state.h"
#include "lake/object_keys.h"
#include "format/iceberg/iceberg_table.h"

namespace lakedump {

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
  const std::vector<std::string> names = iceberg::MetadataFileNames(table.run_id, 1);
  return {prefix + names[0], prefix + names[1]};
}

std::string IcebergHintKey(const TableRef& table) {
  return TablePrefix(table) + "metadata/version-hint.text";
}

std::string IcebergKeyIndexName(std::string_view run) {
  return fmt::format("keyindex-{}.parquet", run);
}

std::string IcebergMetadataFileKey(const TableRef& table, int version) {
  return fmt::format("{}metadata/v{}.metadata.json", TablePrefix(table), version);
}

std::string IcebergTableLocation(const ObjectStore& store, const TableRef& table) {
  std::string root = StoreRootUri(store);
  if (root == "file:///") root = "file://";  // a dump into "/" itself
  const std::string prefix = TablePrefix(table);
  return root + "/" + prefix.substr(0, prefix.size() - 1);
}

bool IcebergTableKeep::KeepsObject(std::string_view key) const {
  if (std::find(keys.begin(), keys.end(), key) != keys.end()) return true;
  if (!key.starts_with(prefix)) return false;
  const size_t slash = key.rfind('/');
  const std::string_view name = key.substr(slash == std::string_view::npos ? 0 : slash + 1);
  // Data files and the snapshots' Avro files; never a table manifest (_table-<run>.json).
  const bool metadata = key.substr(prefix.size()).starts_with("metadata/");
  if (!metadata && !name.ends_with(".parquet")) return false;
  return std::any_of(run_ids.begin(), run_ids.end(),
                     [&](const std::string& run) { return name.find(run) != std::string_view::npos; });
}

Result<IcebergHistoryRead> ReadIcebergHistory(ObjectStore& store, const TableRef& table) {
  IcebergHistoryRead out;
  auto hint = store.GetObject(IcebergHintKey(table), /*max_bytes=*/64);
  if (!hint.ok()) {
    if (hint.status().code() == Code::kNotFound) return out;
    if (hint.status().code() != Code::kCorruption) return hint.status();
    out.problem = "version-hint.text is not a version number";
    return out;
  }
  // The number N, no newline (tolerate surrounding whitespace); at most 9 digits.
  std::string n = *hint;
  while (!n.empty() && std::isspace(static_cast<unsigned char>(n.back()))) n.pop_back();
  while (!n.empty() && std::isspace(static_cast<unsigned char>(n.front()))) n.erase(0, 1);
  if (n.empty() || n.size() > 9 || n.find_first_not_of("0123456789") != std::string::npos ||
      std::stoi(n) < 1) {
    out.problem = "version-hint.text is not a version number";
    return out;
  }
  out.last_version = std::stoi(n);
  const std::string key = IcebergMetadataFileKey(table, out.last_version);
  auto text = store.GetObject(key, kMaxMetadataBytes);
  if (!text.ok()) {
    if (text.status().code() == Code::kNotFound) {
      out.problem = fmt::format("version-hint.text names a missing v{}.metadata.json", n);
      return out;
    }
    if (text.status().code() == Code::kCorruption) {
      out.problem = fmt::format("v{}.metadata.json is too large", n);
      return out;
    }
    return text.status();
  }
  auto history = iceberg::ParseTableHistory(*text, out.last_version,
                                            IcebergTableLocation(store, table), &IsRunId);
  if (!history.ok()) {
    out.problem = std::string(history.status().message());
    return out;
  }
  out.history = std::move(*history);
  return out;
}

IcebergTableKeep KeepOfHistory(const TableRef& table, const iceberg::TableHistory& history) {
  IcebergTableKeep keep;
  keep.prefix = TablePrefix(table);
  keep.keys.push_back(IcebergHintKey(table));
  keep.keys.push_back(IcebergMetadataFileKey(table, history.version));
  const std::string meta_prefix = keep.prefix + "metadata/";
  for (const std::string& uri : history.logged_metadata_files) {
    // Checked to be under the table's metadata/: keep the file name only.
    const std::string name = uri.substr(uri.rfind('/') + 1);
    if (!name.empty()) keep.keys.push_back(meta_prefix + name);
  }
  keep.run_ids = history.run_ids;
  return keep;
}

namespace {

// A URI of the table's metadata/ as its key (one name: nothing climbs out).
Result<std::string> MetadataKeyOf(const TableRef& table, const std::string& location,
                                  const std::string& uri) {
  const std::string meta_dir = location + "/metadata/";
  const std::string name = uri.starts_with(meta_dir) ? uri.substr(meta_dir.size()) : "";
  if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..") {
    return Status::Corruption(fmt::format("{} is not a file of the table's metadata/", uri));
  }
  return TablePrefix(table) + "metadata/" + name;
}

}  // namespace

Result<std::vector<iceberg::ManifestRef>> ReadCurrentManifestList(
    ObjectStore& store, const TableRef& table, const std::string& location,
    const iceberg::TableHistory& history) {
  std::string list_uri;
  for (const auto& s : history.metadata["snapshots"]) {
    if (s["snapshot-id"] == history.current_snapshot_id) {
      list_uri = s["manifest-list"].get<std::string>();
    }
  }
  LD_ASSIGN_OR_RETURN(std::string list_key, MetadataKeyOf(table, location, list_uri));
  LD_ASSIGN_OR_RETURN(std::string list, store.GetObject(list_key, kMaxMetadataBytes));
  return iceberg::ReadManifestList(list);
}

Result<std::vector<LiveManifest>> ReadLiveManifests(ObjectStore& store, const TableRef& table,
                                                    const std::string& location,
                                                    const iceberg::TableHistory& history) {
  LD_ASSIGN_OR_RETURN(std::vector<iceberg::ManifestRef> refs,
                      ReadCurrentManifestList(store, table, location, history));
  const std::string increments = StoreRootUri(store) + "/" + std::string(kIncrementsFolder);
  std::vector<LiveManifest> out;
  for (iceberg::ManifestRef& ref : refs) {
    LD_ASSIGN_OR_RETURN(std::string key, MetadataKeyOf(table, location, ref.path));
    LD_ASSIGN_OR_RETURN(std::string bytes, store.GetObject(key, kMaxMetadataBytes));
    // An incremental dump's re-dumped files stay in their increment's folder.
    LD_ASSIGN_OR_RETURN(iceberg::RemovedManifest m,
                        iceberg::LiveEntriesOf(bytes, ref, location, increments));
    out.push_back(LiveManifest{std::move(ref), std::move(m)});
  }
  return out;
}

Result<std::vector<iceberg::RemovedManifest>> ReadRemovedFiles(
    ObjectStore& store, const TableRef& table, const std::string& location,
    const iceberg::TableHistory& history) {
  LD_ASSIGN_OR_RETURN(std::vector<LiveManifest> manifests,
                      ReadLiveManifests(store, table, location, history));
  std::vector<iceberg::RemovedManifest> out;
  for (LiveManifest& m : manifests) {
    if (!m.live.entries.empty()) out.push_back(std::move(m.live));
  }
  return out;
}

int IcebergIncrementOf(const iceberg::TableHistory& history) {
  for (const auto& s : history.metadata["snapshots"]) {
    if (s["snapshot-id"] != history.current_snapshot_id || !s.contains("summary") ||
        !s["summary"].is_object()) {
      continue;
    }
    const auto& v = s["summary"].value("lakedump.increment", nlohmann::ordered_json());
    if (!v.is_string()) return 0;
    const std::string& n = v.get_ref<const std::string&>();
    if (n.empty() || n.size() > 6 || n.find_first_not_of("0123456789") != std::string::npos) {
      return 0;
    }
    return std::stoi(n);
  }
  return 0;
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

Result<std::optional<IcebergTableKeep>> IcebergMetadataPresent(ObjectStore& store,
                                                              const TableManifest& table) {
  for (const std::string& key : IcebergMetadataKeys(table)) {
    auto head = store.Head(key);
    if (!head.ok()) {
      if (head.status().code() == Code::kNotFound) return std::optional<IcebergTableKeep>();
      return head.status();
    }
  }
  // The current snapshot must be this table's run's, not an older dump's (over a
  // committed dump the metadata moves to a run only after its manifest).
  LD_ASSIGN_OR_RETURN(IcebergHistoryRead read, ReadIcebergHistory(store, table.table));
  if (!read.history) return std::optional<IcebergTableKeep>();
  const iceberg::TableHistory& h = *read.history;
  for (size_t i = 0; i < h.snapshot_ids.size(); ++i) {
    if (h.snapshot_ids[i] == h.current_snapshot_id && h.run_ids[i] == table.run_id) {
      return std::optional<IcebergTableKeep>(KeepOfHistory(table.table, h));
    }
  }
  return std::optional<IcebergTableKeep>();
}

Result<IcebergTableStatus> ReadIcebergTableStatus(ObjectStore& store, const TableRef& table) {
  IcebergTableStatus out;
  LD_ASSIGN_OR_RETURN(IcebergHistoryRead read, ReadIcebergHistory(store, table));
  if (read.last_version > 0) out.metadata_key = IcebergMetadataFileKey(table, read.last_version);
  if (!read.history) {
    out.problem = read.problem.empty() ? "no version-hint.text" : read.problem;
    return out;
  }
  out.snapshots = read.history->snapshot_ids.size();
  out.run_id = read.history->metadata["properties"]["lakedump.run-id"].get<std::string>();
  out.increment = IcebergIncrementOf(*read.history);
  return out;
}
}  // namespace lakedump
