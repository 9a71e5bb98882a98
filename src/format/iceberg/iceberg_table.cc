#include "format/iceberg/iceberg_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <limits>
#include <random>
#include <set>

#include <nlohmann/json.hpp>

#include "format/avro/avro_encoding.h"
#include "format/avro/avro_file_writer.h"
#include "format/iceberg/iceberg_schema.h"
#include "format/iceberg/iceberg_values.h"
#include "format/iceberg/manifest_schemas.h"
#include "format/parquet/parquet_schema.h"

namespace lakedump::iceberg {
namespace {

using json = nlohmann::ordered_json;
constexpr int kSpecId = 0;
constexpr int kFirstSchemaId = 0;

avro::SyncMarker SyncFrom(std::mt19937_64& rng) {
  avro::SyncMarker m;
  for (size_t i = 0; i < m.size(); i += 8) {
    const uint64_t r = rng();
    for (size_t k = 0; k < 8; ++k) m[i + k] = static_cast<uint8_t>(r >> (8 * k));
  }
  return m;
}

void AppendIntLongMap(const std::map<int, int64_t>& m, std::string* out) {
  avro::AppendUnionBranch(1, out);
  avro::AppendBlockStart(static_cast<int64_t>(m.size()), out);
  for (const auto& [k, v] : m) {
    avro::AppendInt(k, out);
    avro::AppendLong(v, out);
  }
  avro::AppendBlockEnd(out);
}

void AppendIntBytesMap(const std::map<int, std::string>& m, std::string* out) {
  avro::AppendUnionBranch(1, out);
  avro::AppendBlockStart(static_cast<int64_t>(m.size()), out);
  for (const auto& [k, v] : m) {
    avro::AppendInt(k, out);
    avro::AppendBytes(v, out);
  }
  avro::AppendBlockEnd(out);
}

// One manifest_entry record, fields in ManifestEntrySchema's order; `content` 0 for a data
// file, 1 for position deletes (which have no table sort order).
std::string EncodeEntry(const SnapshotInput& in, const DataFileEntry& f, int content = 0) {
  std::string r;
  avro::AppendInt(1, &r);  // status: ADDED
  avro::AppendUnionBranch(1, &r);
  avro::AppendLong(in.snapshot_id, &r);
  avro::AppendUnionBranch(0, &r);  // sequence_number: inherited from the manifest list
  avro::AppendUnionBranch(0, &r);  // file_sequence_number: inherited
  // data_file (r2)
  avro::AppendInt(content, &r);
  avro::AppendString(f.path, &r);
  avro::AppendString("PARQUET", &r);
  if (in.partition_column) {  // partition (r102)
    if (f.partition_value) {
      avro::AppendUnionBranch(1, &r);
      AppendAvroValue(in.schema.column(*in.partition_column).type, *f.partition_value, &r);
    } else {
      avro::AppendUnionBranch(0, &r);
    }
  }
  avro::AppendLong(static_cast<int64_t>(f.record_count), &r);
  avro::AppendLong(static_cast<int64_t>(f.file_size_in_bytes), &r);
  AppendIntLongMap(f.stats.column_sizes, &r);
  AppendIntLongMap(f.stats.value_counts, &r);
  AppendIntLongMap(f.stats.null_value_counts, &r);
  avro::AppendUnionBranch(0, &r);  // nan_value_counts: unknown (the writer does not count NaNs)
  AppendIntBytesMap(f.stats.lower_bounds, &r);
  AppendIntBytesMap(f.stats.upper_bounds, &r);
  avro::AppendUnionBranch(0, &r);  // key_metadata
  avro::AppendUnionBranch(1, &r);  // split_offsets
  avro::AppendBlockStart(static_cast<int64_t>(f.stats.split_offsets.size()), &r);
  for (int64_t o : f.stats.split_offsets) avro::AppendLong(o, &r);
  avro::AppendBlockEnd(&r);
  avro::AppendUnionBranch(0, &r);  // equality_ids
  if (content == 0) {
    avro::AppendUnionBranch(1, &r);  // sort_order_id: 0, the table's (empty) default order
    avro::AppendInt(0, &r);
  } else {
    avro::AppendUnionBranch(0, &r);  // sorted by file and position, not by a table order
  }
  avro::AppendUnionBranch(0, &r);  // referenced_data_file
  return r;
}

// The r508 field summary of the partition column over every file.
std::string EncodePartitionSummary(const SnapshotInput& in) {
  std::string r;
  if (!in.partition_column) {
    avro::AppendUnionBranch(1, &r);
    avro::AppendBlockEnd(&r);  // an empty list: no partition fields
    return r;
  }
  const LogicalType& type = in.schema.column(*in.partition_column).type;
  bool contains_null = false;
  std::optional<std::string> lo, hi;
  for (const DataFileEntry& f : in.files) {
    if (!f.partition_value) {
      contains_null = true;
      continue;
    }
    if (!lo || CompareSingleValues(type, *f.partition_value, *lo) < 0) lo = f.partition_value;
    if (!hi || CompareSingleValues(type, *f.partition_value, *hi) > 0) hi = f.partition_value;
  }
  avro::AppendUnionBranch(1, &r);
  avro::AppendBlockStart(1, &r);
  avro::AppendBoolean(contains_null, &r);
  const bool floating = type.id == TypeId::kFloat || type.id == TypeId::kDouble;
  if (floating) {
    avro::AppendUnionBranch(0, &r);  // contains_nan: not known
  } else {
    avro::AppendUnionBranch(1, &r);
    avro::AppendBoolean(false, &r);
  }
  for (const std::optional<std::string>* b : {&lo, &hi}) {
    if (*b) {
      avro::AppendUnionBranch(1, &r);
      avro::AppendBytes(**b, &r);
    } else {
      avro::AppendUnionBranch(0, &r);
    }
  }
  avro::AppendBlockEnd(&r);
  return r;
}

// A DELETED manifest_entry (status 2) of the snapshot `snapshot_id` for a file of the
// replaced snapshot: its sequence numbers explicit (only ADDED entries inherit them),
// its data_file as its manifest had it.
std::string EncodeDeletedEntry(int64_t snapshot_id, const RemovedEntry& e) {
  std::string r;
  avro::AppendInt(2, &r);  // status: DELETED
  avro::AppendUnionBranch(1, &r);
  avro::AppendLong(snapshot_id, &r);
  avro::AppendUnionBranch(1, &r);
  avro::AppendLong(e.data_sequence_number, &r);
  avro::AppendUnionBranch(1, &r);
  avro::AppendLong(e.file_sequence_number, &r);
  r += e.data_file;
  return r;
}

// An EXISTING manifest_entry (status 0) of a rewritten manifest: the file's snapshot and
// sequence numbers as they were.
std::string EncodeExistingEntry(int64_t snapshot_id, const RemovedEntry& e) {
  std::string r = EncodeDeletedEntry(snapshot_id, e);
  r[0] = 0;  // status: EXISTING (zig-zag 0); DELETED was 2 (zig-zag 4), one byte either way
  return r;
}

// The manifest_file record of a manifest of DELETED entries. No live file: its minimum
// sequence number is its own (as Java writes it). The partition summary says whether a
// value is null (and NaN unknown for floating types); its bounds are left out (optional).
// With `existing` (a row delta's rewritten manifest): its EXISTING entries' counts, and its
// minimum sequence number theirs.
struct ExistingCounts {
  int32_t files = 0;
  int32_t deleted_files = -1;  // -1: every entry of the manifest
  int64_t rows = 0;
  int64_t min_sequence_number = -1;  // -1: the manifest's own
};

std::string EncodeDeletedManifestFile(const std::string& path, int64_t length,
                                      int64_t sequence_number, int64_t snapshot_id,
                                      int64_t rows, const RemovedManifest& m,
                                      ExistingCounts existing = {}) {
  std::string r;
  avro::AppendString(path, &r);
  avro::AppendLong(length, &r);
  avro::AppendInt(m.partition_spec_id, &r);
  avro::AppendInt(m.content, &r);  // data, or the position deletes of a row delta
  avro::AppendLong(sequence_number, &r);
  avro::AppendLong(existing.min_sequence_number < 0 ? sequence_number
                                                    : existing.min_sequence_number, &r);
  avro::AppendLong(snapshot_id, &r);
  avro::AppendInt(0, &r);               // added_files_count
  avro::AppendInt(existing.files, &r);  // existing_files_count
  avro::AppendInt(existing.deleted_files < 0 ? static_cast<int32_t>(m.entries.size())
                                             : existing.deleted_files, &r);
  avro::AppendLong(0, &r);              // added_rows_count
  avro::AppendLong(existing.rows, &r);  // existing_rows_count
  avro::AppendLong(rows, &r);           // deleted_rows_count
  avro::AppendUnionBranch(1, &r);  // partitions
  if (m.partitioned) {
    bool contains_null = false;
    for (const RemovedEntry& e : m.entries) contains_null |= e.partition_null;
    avro::AppendBlockStart(1, &r);
    avro::AppendBoolean(contains_null, &r);
    if (m.partition_floating) {
      avro::AppendUnionBranch(0, &r);  // contains_nan: not known
    } else {
      avro::AppendUnionBranch(1, &r);
      avro::AppendBoolean(false, &r);
    }
    avro::AppendUnionBranch(0, &r);  // lower_bound
    avro::AppendUnionBranch(0, &r);  // upper_bound
  }
  avro::AppendBlockEnd(&r);
  avro::AppendUnionBranch(0, &r);  // key_metadata
  return r;
}

// `schema`: the Avro schema's JSON text, written as it is.
Result<std::string> WriteAvro(std::string schema,
                              std::vector<std::pair<std::string, std::string>> meta,
                              const std::vector<std::string>& records, std::mt19937_64& rng) {
  StringSink sink;
  avro::AvroFileOptions options;
  options.sync = SyncFrom(rng);
  avro::AvroFileWriter w(std::move(schema), std::move(meta), options, &sink);
  for (const std::string& rec : records) LD_RETURN_IF_ERROR(w.Append(rec));
  LD_RETURN_IF_ERROR(w.Close());
  return std::move(sink.mutable_str());
}


Status ValidateSnapshotInput(const SnapshotInput& in) {
  if (in.snapshot_id <= 0) return Status::InvalidArgument("Iceberg snapshot id must be positive");
  if (in.location.empty() || in.location.back() == '/') {
    return Status::InvalidArgument("Iceberg table location must be a URI without a trailing '/'");
  }
  if (in.partition_column && *in.partition_column >= in.schema.num_columns()) {
    return Status::InvalidArgument("Iceberg partition column out of range");
  }
  if (in.version < 1 || (in.previous && in.previous->version < 1)) {
    return Status::InvalidArgument("Iceberg metadata versions start at 1");
  }
  if (in.row_delta && (!in.previous || in.partition_column || !in.removed.empty())) {
    return Status::InvalidArgument(
        "an Iceberg row delta follows a history of an unpartitioned table and removes no file");
  }
  if (in.previous && std::count(in.previous->snapshot_ids.begin(),
                                in.previous->snapshot_ids.end(), in.snapshot_id) > 0) {
    return Status::InvalidArgument("Iceberg snapshot id already in the table's history");
  }
  return Status::OK();
}

// Where the new snapshot sits in the table's history, and where its files go.
struct SnapshotPlace {
  const json* prev;  // the previous metadata, or nullptr for a new table
  int version;
  int64_t sequence_number;
  std::optional<int64_t> parent;
  std::vector<std::string> names;  // MetadataFileNames
  std::string meta_dir;
};

SnapshotPlace PlaceSnapshot(const SnapshotInput& in) {
  SnapshotPlace p;
  p.prev = in.previous ? &in.previous->metadata : nullptr;
  p.version = p.prev ? in.previous->version + 1 : in.version;
  p.sequence_number = p.prev ? (*p.prev)["last-sequence-number"].get<int64_t>() + 1 : 1;
  if (p.prev) p.parent = in.previous->current_snapshot_id;
  p.names = MetadataFileNames(in.file_tag, p.version);
  p.meta_dir = in.location + "/metadata/";
  return p;
}

// The snapshot's schema and the table's list of schemas.
struct SnapshotSchema {
  int id = kFirstSchemaId;
  json schemas = json::array();
  json schema;
};

// A new table's first schema (id 0); after a history, the one of its schemas with the
// same fields (an unchanged table: the current one), or a new schema appended with the
// next id (the columns changed; their ids were kept by EvolveSchema).
SnapshotSchema ChooseSchema(const SnapshotInput& in, const json* prev) {
  SnapshotSchema out;
  if (prev) {
    out.schemas = (*prev)["schemas"];
    const json fields = SchemaJson(in.schema, 0)["fields"];
    std::optional<int> same;
    int max_id = kFirstSchemaId - 1;
    for (const json& s : out.schemas) {
      if (!s.is_object() || !s.contains("schema-id") || !s["schema-id"].is_number_integer()) {
        continue;
      }
      const int64_t id = s["schema-id"].get<int64_t>();
      if (id < 0 || id > std::numeric_limits<int32_t>::max() - 1) continue;
      max_id = std::max(max_id, static_cast<int>(id));
      if (!same && s.value("fields", json()) == fields) same = static_cast<int>(id);
    }
    out.id = same.value_or(max_id + 1);
  }
  out.schema = SchemaJson(in.schema, out.id);
  if (!prev || !std::any_of(out.schemas.begin(), out.schemas.end(), [&](const json& s) {
        return s.is_object() && s.value("schema-id", json()) == out.id;
      })) {
    out.schemas.push_back(out.schema);
  }
  return out;
}

int LastColumnId(const SnapshotInput& in, const json* prev) {
  int last_column_id = parquet::LastFieldId(in.schema);
  if (prev && (*prev)["last-column-id"].is_number_integer()) {
    // Never lower: a dropped column's id stays taken.
    const int64_t before = (*prev)["last-column-id"].get<int64_t>();
    if (before > last_column_id && before <= std::numeric_limits<int32_t>::max()) {
      last_column_id = static_cast<int>(before);
    }
  }
  return last_column_id;
}

// The manifest of the snapshot's (ADDED) data files, with their totals.
struct DataManifest {
  std::string bytes;
  uint64_t rows = 0;
  uint64_t file_bytes = 0;
  size_t partitions = 0;  // distinct partition values
};

// A manifest of the snapshot's own (ADDED) entries; `content` "data" or "deletes".
Result<std::string> WriteOwnManifest(const SnapshotInput& in, const SnapshotSchema& schema,
                                     const json& partition_fields,
                                     const std::vector<std::string>& entries,
                                     std::string_view content, std::mt19937_64& rng) {
  return WriteAvro(ManifestEntrySchema(in.schema, in.partition_column).dump(),
                   {{"schema", schema.schema.dump()},
                    {"schema-id", std::to_string(schema.id)},
                    {"partition-spec", partition_fields.dump()},
                    {"partition-spec-id", std::to_string(kSpecId)},
                    {"format-version", "2"},
                    {"content", std::string(content)}},
                   entries, rng);
}

Result<DataManifest> WriteDataManifest(const SnapshotInput& in, const SnapshotSchema& schema,
                                       const json& partition_fields, std::mt19937_64& rng) {
  DataManifest out;
  std::vector<std::string> entries;
  std::set<std::optional<std::string>> partitions;
  for (const DataFileEntry& f : in.files) {
    entries.push_back(EncodeEntry(in, f));
    out.rows += f.record_count;
    out.file_bytes += f.file_size_in_bytes;
    partitions.insert(in.partition_column ? f.partition_value : std::nullopt);
  }
  out.partitions = partitions.size();
  LD_ASSIGN_OR_RETURN(out.bytes,
                      WriteOwnManifest(in, schema, partition_fields, entries, "data", rng));
  return out;
}

// The manifest_file record of a manifest of the snapshot's own entries: `files` ADDED files
// of `rows` rows (content 0: data; 1: position deletes).
std::string EncodeAddedManifestFile(const SnapshotInput& in, const SnapshotPlace& place,
                                    const std::string& name, size_t length, int content,
                                    size_t files, uint64_t rows) {
  std::string r;
  avro::AppendString(place.meta_dir + name, &r);
  avro::AppendLong(static_cast<int64_t>(length), &r);
  avro::AppendInt(kSpecId, &r);
  avro::AppendInt(content, &r);
  avro::AppendLong(place.sequence_number, &r);
  avro::AppendLong(place.sequence_number, &r);  // min_sequence_number
  avro::AppendLong(in.snapshot_id, &r);
  avro::AppendInt(static_cast<int32_t>(files), &r);  // added_files_count
  avro::AppendInt(0, &r);
  avro::AppendInt(0, &r);
  avro::AppendLong(static_cast<int64_t>(rows), &r);  // added_rows_count
  avro::AppendLong(0, &r);
  avro::AppendLong(0, &r);
  r += EncodePartitionSummary(in);
  avro::AppendUnionBranch(0, &r);  // key_metadata
  return r;
}

// The manifest_file record of the data manifest.
std::string EncodeDataManifestFile(const SnapshotInput& in, const SnapshotPlace& place,
                                   const DataManifest& manifest) {
  return EncodeAddedManifestFile(in, place, place.names[0], manifest.bytes.size(), 0,
                                 in.files.size(), manifest.rows);
}

// The files of the replaced snapshot, as DELETED entries (one manifest per manifest
// they came from, with its Avro schema, which their data_file bytes follow). Appends
// each manifest's manifest_file record to *list_records; returns (name, bytes) pairs.
Result<std::vector<std::pair<std::string, std::string>>> WriteRemovedManifests(
    const SnapshotInput& in, const SnapshotPlace& place, std::mt19937_64& rng,
    std::vector<std::string>* list_records) {
  std::vector<std::pair<std::string, std::string>> removed_manifests;
  for (size_t k = 0; place.prev && k < in.removed.size(); ++k) {
    const RemovedManifest& removed = in.removed[k];
    std::vector<std::string> records;
    int64_t removed_rows = 0;
    for (const RemovedEntry& e : removed.entries) {
      records.push_back(EncodeDeletedEntry(in.snapshot_id, e));
      removed_rows += e.record_count;
    }
    const std::string name = fmt::format("{}-m{}.avro", in.file_tag, k + 1);
    LD_ASSIGN_OR_RETURN(std::string bytes,
                        WriteAvro(removed.avro_schema, removed.header, records, rng));
    list_records->push_back(EncodeDeletedManifestFile(
        place.meta_dir + name, static_cast<int64_t>(bytes.size()), place.sequence_number,
        in.snapshot_id, removed_rows, removed));
    removed_manifests.emplace_back(name, std::move(bytes));
  }
  return removed_manifests;
}

// A row delta's rewritten parent manifests, "<file_tag>-r<k>.avro" (k from 1); appends their
// manifest_file records to *list_records.
Result<std::vector<std::pair<std::string, std::string>>> WriteRewrittenManifests(
    const SnapshotInput& in, const SnapshotPlace& place, std::mt19937_64& rng,
    std::vector<std::string>* list_records) {
  std::vector<std::pair<std::string, std::string>> out;
  for (size_t k = 0; k < in.rewritten_manifests.size(); ++k) {
    const RewrittenManifest& m = in.rewritten_manifests[k];
    std::vector<std::string> records;
    ExistingCounts existing{0, 0, 0, -1};
    int64_t removed_rows = 0;
    for (size_t i = 0; i < m.live.entries.size(); ++i) {
      const RemovedEntry& e = m.live.entries[i];
      if (i < m.removed.size() && m.removed[i]) {
        records.push_back(EncodeDeletedEntry(in.snapshot_id, e));
        removed_rows += e.record_count;
        ++existing.deleted_files;
        continue;
      }
      records.push_back(EncodeExistingEntry(e.snapshot_id.value_or(m.added_snapshot_id), e));
      ++existing.files;
      existing.rows += e.record_count;
      if (existing.min_sequence_number < 0 ||
          e.data_sequence_number < existing.min_sequence_number) {
        existing.min_sequence_number = e.data_sequence_number;
      }
    }
    const std::string name = fmt::format("{}-r{}.avro", in.file_tag, k + 1);
    LD_ASSIGN_OR_RETURN(std::string bytes,
                        WriteAvro(m.live.avro_schema, m.live.header, records, rng));
    list_records->push_back(EncodeDeletedManifestFile(
        place.meta_dir + name, static_cast<int64_t>(bytes.size()), place.sequence_number,
        in.snapshot_id, removed_rows, m.live, existing));
    out.emplace_back(name, std::move(bytes));
  }
  return out;
}

Result<std::string> WriteManifestList(const SnapshotInput& in, const SnapshotPlace& place,
                                      const std::vector<std::string>& list_records,
                                      std::mt19937_64& rng) {
  return WriteAvro(
      ManifestFileSchema().dump(),
      {{"snapshot-id", std::to_string(in.snapshot_id)},
       {"parent-snapshot-id", place.parent ? std::to_string(*place.parent) : "null"},
       {"sequence-number", std::to_string(place.sequence_number)},
       {"format-version", "2"}},
      list_records, rng);
}

json SnapshotSummary(const SnapshotInput& in, const SnapshotPlace& place,
                     const DataManifest& manifest) {
  const json* prev = place.prev;
  const std::string n_files = std::to_string(in.files.size());
  const std::string n_rows = std::to_string(manifest.rows);
  const std::string n_bytes = std::to_string(manifest.file_bytes);
  json summary = {{"operation", prev ? "overwrite" : "append"},
                  {"added-data-files", n_files},
                  {"added-records", n_rows},
                  {"added-files-size", n_bytes}};
  if (prev) {
    // Every file of the parent snapshot is replaced: its totals are what goes.
    for (const json& s : (*prev)["snapshots"]) {
      if (s["snapshot-id"] != *place.parent) continue;
      for (const auto& [from, to] : {std::pair{"total-data-files", "deleted-data-files"},
                                     std::pair{"total-records", "deleted-records"},
                                     std::pair{"total-files-size", "removed-files-size"}}) {
        const json& v = s["summary"].value(from, json());
        if (v.is_string()) summary[to] = v;
      }
    }
  }
  summary["changed-partition-count"] = std::to_string(manifest.partitions);
  summary["total-records"] = n_rows;
  summary["total-files-size"] = n_bytes;
  summary["total-data-files"] = n_files;
  summary["total-delete-files"] = "0";
  summary["total-position-deletes"] = "0";
  summary["total-equality-deletes"] = "0";
  // The run whose files the snapshot names (what gc --expire-snapshots deletes with it).
  if (auto run = in.properties.find("lakedump.run-id"); run != in.properties.end()) {
    summary["lakedump.run-id"] = run->second;
  }
  return summary;
}

// A count in the parent snapshot's summary (0 when missing or not a count).
int64_t ParentCount(const SnapshotPlace& place, const char* key) {
  for (const json& s : (*place.prev)["snapshots"]) {
    if (s["snapshot-id"] != *place.parent || !s["summary"].is_object()) continue;
    const json& v = s["summary"].value(key, json());
    if (!v.is_string()) return 0;
    const std::string& text = v.get_ref<const std::string&>();
    int64_t n = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    return ec == std::errc() && end == text.data() + text.size() && n >= 0 ? n : 0;
  }
  return 0;
}

// What a row delta's copy-on-write removes: data files (their rows) and delete files (their
// positions), and their bytes.
struct RowDeltaRemoved {
  uint64_t data_files = 0, records = 0, delete_files = 0, positions = 0, bytes = 0;
};

RowDeltaRemoved RemovedByRewrites(const SnapshotInput& in) {
  RowDeltaRemoved out;
  for (const RewrittenManifest& m : in.rewritten_manifests) {
    for (size_t i = 0; i < m.live.entries.size() && i < m.removed.size(); ++i) {
      if (!m.removed[i]) continue;
      const RemovedEntry& e = m.live.entries[i];
      (m.live.content == 0 ? out.data_files : out.delete_files) += 1;
      (m.live.content == 0 ? out.records : out.positions) += static_cast<uint64_t>(e.record_count);
      out.bytes += static_cast<uint64_t>(e.file_size_in_bytes);
    }
  }
  return out;
}

// A row delta's summary: what it adds and removes, and the parent's totals changed by it.
json RowDeltaSummary(const SnapshotInput& in, const SnapshotPlace& place,
                     const DataManifest& manifest) {
  const uint64_t deletes = in.position_deletes ? in.position_deletes->record_count : 0;
  const uint64_t delete_bytes = in.position_deletes ? in.position_deletes->file_size_in_bytes : 0;
  const RowDeltaRemoved removed = RemovedByRewrites(in);
  const char* operation = in.files.empty()                                  ? "delete"
                          : in.position_deletes || removed.data_files > 0 ? "overwrite"
                                                                            : "append";
  json summary = {{"operation", operation}};
  if (!in.files.empty()) {
    summary["added-data-files"] = std::to_string(in.files.size());
    summary["added-records"] = std::to_string(manifest.rows);
  }
  if (in.position_deletes) {
    summary["added-delete-files"] = "1";
    summary["added-position-delete-files"] = "1";
    summary["added-position-deletes"] = std::to_string(deletes);
  }
  summary["added-files-size"] = std::to_string(manifest.file_bytes + delete_bytes);
  if (removed.data_files > 0) {
    summary["deleted-data-files"] = std::to_string(removed.data_files);
    summary["deleted-records"] = std::to_string(removed.records);
  }
  if (removed.delete_files > 0) {
    summary["removed-delete-files"] = std::to_string(removed.delete_files);
    summary["removed-position-delete-files"] = std::to_string(removed.delete_files);
    summary["removed-position-deletes"] = std::to_string(removed.positions);
  }
  if (removed.bytes > 0) summary["removed-files-size"] = std::to_string(removed.bytes);
  summary["changed-partition-count"] = "1";
  const auto total = [&](const char* key, uint64_t added, uint64_t gone) {
    const uint64_t before = static_cast<uint64_t>(ParentCount(place, key)) + added;
    summary[key] = std::to_string(before > gone ? before - gone : 0);
  };
  total("total-records", manifest.rows, removed.records);
  total("total-files-size", manifest.file_bytes + delete_bytes, removed.bytes);
  total("total-data-files", in.files.size(), removed.data_files);
  total("total-delete-files", in.position_deletes ? 1 : 0, removed.delete_files);
  total("total-position-deletes", deletes, removed.positions);
  total("total-equality-deletes", 0, 0);
  if (auto run = in.properties.find("lakedump.run-id"); run != in.properties.end()) {
    summary["lakedump.run-id"] = run->second;
  }
  return summary;
}

// A row delta's manifest of its position delete file (if any), "<file_tag>-m1.avro";
// appends its manifest_file record to *list_records.
Result<std::vector<std::pair<std::string, std::string>>> WriteDeleteManifest(
    const SnapshotInput& in, const SnapshotPlace& place, const SnapshotSchema& schema,
    const json& partition_fields, std::mt19937_64& rng, std::vector<std::string>* list_records) {
  std::vector<std::pair<std::string, std::string>> out;
  if (!in.position_deletes) return out;
  DataFileEntry f;
  f.path = in.position_deletes->path;
  f.record_count = in.position_deletes->record_count;
  f.file_size_in_bytes = in.position_deletes->file_size_in_bytes;
  const std::string name = fmt::format("{}-m1.avro", in.file_tag);
  LD_ASSIGN_OR_RETURN(std::string bytes, WriteOwnManifest(in, schema, partition_fields,
                                                          {EncodeEntry(in, f, 1)}, "deletes", rng));
  list_records->push_back(
      EncodeAddedManifestFile(in, place, name, bytes.size(), 1, 1, f.record_count));
  out.emplace_back(name, std::move(bytes));
  return out;
}

json SnapshotJson(const SnapshotInput& in, const SnapshotPlace& place, int schema_id,
                  json summary) {
  json snapshot = {{"sequence-number", place.sequence_number},
                   {"snapshot-id", in.snapshot_id}};
  if (place.parent) snapshot["parent-snapshot-id"] = *place.parent;
  snapshot["timestamp-ms"] = in.timestamp_ms;
  snapshot["summary"] = std::move(summary);
  snapshot["manifest-list"] = place.meta_dir + place.names[1];
  snapshot["schema-id"] = schema_id;
  return snapshot;
}

json TableProperties(const SnapshotInput& in) {
  json properties = json::object();
  properties["schema.name-mapping.default"] = NameMappingJson(in.schema).dump();
  properties["write.format.default"] = "parquet";
  for (const auto& [k, v] : in.properties) properties[k] = v;
  return properties;
}

// The table metadata (v<version>.metadata.json) with `snapshot` as its current one.
json MetadataJson(const SnapshotInput& in, const SnapshotPlace& place, SnapshotSchema schema,
                  const json& partition_fields, json snapshot) {
  const json* prev = place.prev;
  json snapshots = prev ? (*prev)["snapshots"] : json::array();
  snapshots.push_back(std::move(snapshot));
  json snapshot_log = prev ? (*prev)["snapshot-log"] : json::array();
  snapshot_log.push_back({{"timestamp-ms", in.timestamp_ms}, {"snapshot-id", in.snapshot_id}});
  json metadata_log = prev ? (*prev)["metadata-log"] : json::array();
  if (prev) {
    metadata_log.push_back(
        {{"timestamp-ms", (*prev)["last-updated-ms"]},
         {"metadata-file",
          fmt::format("{}v{}.metadata.json", place.meta_dir, in.previous->version)}});
  }
  return {
      {"format-version", 2},
      {"table-uuid", prev ? (*prev)["table-uuid"].get<std::string>() : in.table_uuid},
      {"location", in.location},
      {"last-sequence-number", place.sequence_number},
      {"last-updated-ms",
       prev ? std::max(in.timestamp_ms, (*prev)["last-updated-ms"].get<int64_t>())
            : in.timestamp_ms},
      {"last-column-id", LastColumnId(in, prev)},
      {"current-schema-id", schema.id},
      {"schemas", std::move(schema.schemas)},
      {"default-spec-id", kSpecId},
      {"partition-specs", json::array({{{"spec-id", kSpecId}, {"fields", partition_fields}}})},
      {"last-partition-id",
       in.partition_column ? kFirstPartitionFieldId : kFirstPartitionFieldId - 1},
      {"default-sort-order-id", 0},
      {"sort-orders", json::array({{{"order-id", 0}, {"fields", json::array()}}})},
      {"properties", TableProperties(in)},
      {"current-snapshot-id", in.snapshot_id},
      {"refs", {{"main", {{"snapshot-id", in.snapshot_id}, {"type", "branch"}}}}},
      {"snapshots", std::move(snapshots)},
      {"statistics", json::array()},
      {"partition-statistics", json::array()},
      {"snapshot-log", std::move(snapshot_log)},
      {"metadata-log", std::move(metadata_log)},
  };
}

}  // namespace

std::string AvroCompatibleName(std::string_view name) {
  auto valid_first = [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
  };
  auto valid = [&](char c) { return valid_first(c) || (c >= '0' && c <= '9'); };
  std::string out;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (i == 0 ? valid_first(c) : valid(c)) {
      out += c;
    } else if (i == 0 && c >= '0' && c <= '9') {
      out += '_';
      out += c;
    } else {
      out += fmt::format("_x{:X}", static_cast<unsigned>(static_cast<uint8_t>(c)));
    }
  }
  return out.empty() ? "_" : out;
}

std::string RandomUuid() {
  std::random_device rd;
  uint8_t b[16];
  for (size_t i = 0; i < 16; i += 4) {
    const uint32_t r = rd();
    for (size_t k = 0; k < 4; ++k) b[i + k] = static_cast<uint8_t>(r >> (8 * k));
  }
  b[6] = static_cast<uint8_t>((b[6] & 0x0f) | 0x40);  // version 4
  b[8] = static_cast<uint8_t>((b[8] & 0x3f) | 0x80);  // RFC 4122 variant
  std::string s;
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) s += '-';
    s += fmt::format("{:02x}", b[i]);
  }
  return s;
}

int64_t RandomSnapshotId() {
  std::random_device rd;
  const uint64_t r = (static_cast<uint64_t>(rd()) << 32) | rd();
  const int64_t id = static_cast<int64_t>(r >> 1);  // positive, as Java's ids
  return id == 0 ? 1 : id;
}

std::vector<std::string> MetadataFileNames(std::string_view file_tag, int version) {
  return {fmt::format("{}-m0.avro", file_tag), fmt::format("snap-{}.avro", file_tag),
          fmt::format("v{}.metadata.json", version), "version-hint.text"};
}

Result<std::vector<std::pair<std::string, std::string>>> BuildSnapshot(const SnapshotInput& in) {
  LD_RETURN_IF_ERROR(ValidateSnapshotInput(in));
  const SnapshotPlace place = PlaceSnapshot(in);
  // One generator for every Avro file's sync marker, drawn in the order the files are
  // written: the data manifest, the removed manifests, the manifest list.
  std::mt19937_64 rng(in.random_seed);
  SnapshotSchema schema = ChooseSchema(in, place.prev);
  const json partition_fields = PartitionFieldsJson(in.schema, in.partition_column);
  LD_ASSIGN_OR_RETURN(DataManifest manifest,
                      WriteDataManifest(in, schema, partition_fields, rng));
  // A row delta without data files has no data manifest of its own.
  const bool own_data_manifest = !in.row_delta || !in.files.empty();
  std::vector<std::string> list_records;
  if (own_data_manifest) list_records.push_back(EncodeDataManifestFile(in, place, manifest));
  std::vector<std::pair<std::string, std::string>> removed_manifests;
  if (in.row_delta) {
    LD_ASSIGN_OR_RETURN(removed_manifests, WriteDeleteManifest(in, place, schema,
                                                               partition_fields, rng,
                                                               &list_records));
    LD_ASSIGN_OR_RETURN(auto rewritten, WriteRewrittenManifests(in, place, rng, &list_records));
    for (auto& r : rewritten) removed_manifests.push_back(std::move(r));
    list_records.insert(list_records.end(), in.kept_manifests.begin(), in.kept_manifests.end());
  } else {
    LD_ASSIGN_OR_RETURN(removed_manifests, WriteRemovedManifests(in, place, rng, &list_records));
  }
  LD_ASSIGN_OR_RETURN(std::string manifest_list,
                      WriteManifestList(in, place, list_records, rng));
  const int schema_id = schema.id;
  json summary = in.row_delta ? RowDeltaSummary(in, place, manifest)
                              : SnapshotSummary(in, place, manifest);
  for (const auto& [k, v] : in.summary) summary[k] = v;
  json snapshot = SnapshotJson(in, place, schema_id, std::move(summary));
  const json metadata =
      MetadataJson(in, place, std::move(schema), partition_fields, std::move(snapshot));

  const std::vector<std::string>& names = place.names;
  std::vector<std::pair<std::string, std::string>> out;
  if (own_data_manifest) out.emplace_back(names[0], std::move(manifest.bytes));
  for (auto& removed : removed_manifests) out.push_back(std::move(removed));
  out.emplace_back(names[1], std::move(manifest_list));
  out.emplace_back(names[2], metadata.dump(2) + "\n");
  out.emplace_back(names[3], std::to_string(place.version));
  return out;
}

}  // namespace lakedump::iceberg
