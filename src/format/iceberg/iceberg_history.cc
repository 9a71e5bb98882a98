#include "format/iceberg/iceberg_history.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "format/iceberg/iceberg_schema.h"
#include "format/iceberg/schema_evolution.h"
#include "format/parquet/parquet_schema.h"

namespace lakedump::iceberg {
namespace {

using json = nlohmann::ordered_json;

bool IsInt(const json& j, const char* key) {
  return j.contains(key) && j[key].is_number_integer();
}
bool IsString(const json& j, const char* key) { return j.contains(key) && j[key].is_string(); }
bool IsArray(const json& j, const char* key) { return j.contains(key) && j[key].is_array(); }

Status Bad(int version, std::string_view why) {
  return Status::Corruption(fmt::format("v{}.metadata.json: {}", version, why));
}

// The metadata's top-level fields: present, of their types, and this table's.
Status CheckTopLevel(const json& m, int version, std::string_view location) {
  if (m.is_discarded() || !m.is_object()) return Bad(version, "not JSON");
  if (!m.contains("format-version") || m["format-version"] != 2) {
    return Bad(version, "not Iceberg format version 2");
  }
  if (!m.contains("properties") || !m["properties"].is_object() ||
      !IsString(m["properties"], "lakedump.run-id")) {
    return Bad(version, "not written by lakedump (no lakedump.run-id)");
  }
  if (!IsString(m, "location") || m["location"].get<std::string>() != location) {
    return Bad(version, fmt::format("its location is not {} (a moved or copied dump)", location));
  }
  if (!IsString(m, "table-uuid") || m["table-uuid"].get<std::string>().size() != 36) {
    return Bad(version, "no table-uuid");
  }
  for (const char* key : {"last-sequence-number", "last-updated-ms", "current-snapshot-id",
                          "current-schema-id", "last-column-id", "default-spec-id"}) {
    if (!IsInt(m, key)) return Bad(version, fmt::format("no integer {}", key));
  }
  for (const char* key : {"snapshots", "snapshot-log", "metadata-log", "schemas",
                          "partition-specs"}) {
    if (!IsArray(m, key)) return Bad(version, fmt::format("no {} list", key));
  }
  return Status::OK();
}

// Checks the snapshots and fills h->snapshot_ids and h->run_ids.
// REQUIRES: CheckTopLevel(m) is OK and h->current_snapshot_id is set.
Status ReadSnapshots(const json& m, int version, const std::string& metadata_dir,
                     bool (*valid_run_id)(std::string_view), TableHistory* h) {
  const int64_t last_sequence = m["last-sequence-number"].get<int64_t>();
  if (last_sequence < 0) return Bad(version, "negative last-sequence-number");
  if (m["snapshots"].size() > kMaxSnapshots) return Bad(version, "too many snapshots");
  const std::string table_run = m["properties"]["lakedump.run-id"].get<std::string>();
  std::set<int64_t> ids;
  for (const json& s : m["snapshots"]) {
    if (!s.is_object() || !IsInt(s, "snapshot-id") || !IsInt(s, "sequence-number") ||
        !IsInt(s, "timestamp-ms") || !IsString(s, "manifest-list") || !s.contains("summary") ||
        !s["summary"].is_object()) {
      return Bad(version, "a snapshot lacks its id, sequence number, time, manifest list or summary");
    }
    const int64_t id = s["snapshot-id"].get<int64_t>();
    const int64_t seq = s["sequence-number"].get<int64_t>();
    if (id <= 0 || !ids.insert(id).second) return Bad(version, "snapshot ids not positive and unique");
    if (seq < 1 || seq > last_sequence) {
      return Bad(version, "a snapshot's sequence number is beyond last-sequence-number");
    }
    if (!s["manifest-list"].get<std::string>().starts_with(metadata_dir)) {
      return Bad(version, "a snapshot's manifest list is not under the table's metadata/");
    }
    // Metadata of lakedump before snapshots named their run: one snapshot, the table's run.
    std::string run;
    if (IsString(s["summary"], "lakedump.run-id")) {
      run = s["summary"]["lakedump.run-id"].get<std::string>();
    } else if (m["snapshots"].size() == 1) {
      run = table_run;
    }
    if (!valid_run_id(run)) return Bad(version, "a snapshot without a lakedump run id");
    h->snapshot_ids.push_back(id);
    h->run_ids.push_back(std::move(run));
  }
  if (!ids.count(h->current_snapshot_id)) {
    return Bad(version, "the current snapshot is not listed");
  }
  return Status::OK();
}

}  // namespace

Result<TableHistory> ParseTableHistory(std::string_view text, int version,
                                       std::string_view location,
                                       bool (*valid_run_id)(std::string_view)) {
  TableHistory h;
  h.version = version;
  h.metadata = json::parse(text, nullptr, /*allow_exceptions=*/false);
  const json& m = h.metadata;
  LD_RETURN_IF_ERROR(CheckTopLevel(m, version, location));
  h.current_snapshot_id = m["current-snapshot-id"].get<int64_t>();
  const std::string metadata_dir = std::string(location) + "/metadata/";
  LD_RETURN_IF_ERROR(ReadSnapshots(m, version, metadata_dir, valid_run_id, &h));
  for (const json& e : m["snapshot-log"]) {
    if (!e.is_object() || !IsInt(e, "timestamp-ms") || !IsInt(e, "snapshot-id")) {
      return Bad(version, "a snapshot-log entry is malformed");
    }
  }
  for (const json& e : m["metadata-log"]) {
    if (!e.is_object() || !IsInt(e, "timestamp-ms") || !IsString(e, "metadata-file") ||
        !e["metadata-file"].get<std::string>().starts_with(metadata_dir)) {
      return Bad(version, "a metadata-log entry is malformed or not under the table's metadata/");
    }
    h.logged_metadata_files.push_back(e["metadata-file"].get<std::string>());
  }
  bool schema_found = false;
  for (const json& s : m["schemas"]) {
    schema_found |= s.is_object() && IsInt(s, "schema-id") && IsArray(s, "fields") &&
                    s["schema-id"] == m["current-schema-id"];
  }
  if (!schema_found) return Bad(version, "the current schema is not listed");
  return h;
}

std::optional<CurrentFieldsMismatch> TakeCurrentFieldIds(const TableHistory& history,
                                                         std::vector<Column>* columns) {
  const json& m = history.metadata;
  const json* fields = nullptr;
  for (const json& s : m["schemas"]) {
    if (s.value("schema-id", json()) == m["current-schema-id"] && s.contains("fields")) {
      fields = &s["fields"];
    }
  }
  if (fields == nullptr || !fields->is_array() || fields->size() != columns->size()) {
    return CurrentFieldsMismatch{.count = true};
  }
  for (size_t i = 0; i < columns->size(); ++i) {
    Column& c = (*columns)[i];
    const json& f = (*fields)[i];
    if (!f.is_object() || f.value("name", json()) != c.name || !f["id"].is_number_integer()) {
      return CurrentFieldsMismatch{.column = c.name};
    }
    c.field_id = f["id"].get<int>();
    c.nullable = !f.value("required", false);
    if (f["type"].is_object() && f["type"].contains("element-id") &&
        f["type"]["element-id"].is_number_integer()) {
      c.element_field_id = f["type"]["element-id"].get<int>();
    }
  }
  return std::nullopt;
}

std::optional<std::string> CannotAppend(const TableHistory& history, const Schema& schema,
                                        std::optional<size_t> partition_column) {
  const json& m = history.metadata;
  auto evolved = EvolveSchema(history, schema);
  if (!evolved.ok()) return std::string(evolved.status().message());
  for (size_t i = 0; i < schema.num_columns(); ++i) {
    if (FieldIdOf(*evolved, i) != FieldIdOf(schema, i) ||
        parquet::ListElementFieldId(*evolved, i) != parquet::ListElementFieldId(schema, i)) {
      return fmt::format(
          "its data files carry other field ids than the table's history gives their columns "
          "(column {})",
          schema.column(i).name);
    }
  }
  json spec_fields = json::array();
  for (const json& spec : m["partition-specs"]) {
    if (spec.is_object() && spec.contains("spec-id") && spec["spec-id"] == m["default-spec-id"] &&
        spec.contains("fields")) {
      spec_fields = spec["fields"];
    }
  }
  if (spec_fields != PartitionFieldsJson(schema, partition_column)) {
    return std::string("the table's partitioning changed");
  }
  return std::nullopt;
}

Result<std::string> ExpireSnapshots(const TableHistory& history,
                                    const std::vector<int64_t>& expire, int64_t now_ms,
                                    std::string_view location) {
  const std::set<int64_t> gone(expire.begin(), expire.end());
  if (gone.count(history.current_snapshot_id)) {
    return Status::InvalidArgument("the current snapshot cannot expire");
  }
  json m = history.metadata;
  json snapshots = json::array();
  for (json& s : m["snapshots"]) {
    if (!gone.count(s["snapshot-id"].get<int64_t>())) snapshots.push_back(std::move(s));
  }
  m["snapshots"] = std::move(snapshots);
  json log = json::array();
  for (json& e : m["snapshot-log"]) {
    if (!gone.count(e["snapshot-id"].get<int64_t>())) log.push_back(std::move(e));
  }
  m["snapshot-log"] = std::move(log);
  m["metadata-log"].push_back(
      {{"timestamp-ms", m["last-updated-ms"]},
       {"metadata-file", fmt::format("{}/metadata/v{}.metadata.json", location, history.version)}});
  m["last-updated-ms"] = std::max<int64_t>(now_ms, m["last-updated-ms"].get<int64_t>());
  return m.dump(2) + "\n";
}

}  // namespace lakedump::iceberg
