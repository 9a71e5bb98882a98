#include "format/iceberg/removed_files.h"

#include <fmt/format.h>

#include <limits>
#include <map>
#include <optional>

#include <nlohmann/json.hpp>

#include "format/avro/avro_reader.h"

namespace lakedump::iceberg {
namespace {

// The Avro reader's JSON (unordered; the writers in this namespace use ordered_json).
using AvroJson = nlohmann::json;

Status Bad(std::string_view what, std::string_view why) {
  return Status::Corruption(fmt::format("{}: {}", what, why));
}

// The record's fields begin with `names`, of these `types` (JSON as lakedump writes them).
bool FieldsBeginWith(const AvroJson& record,
                     const std::vector<std::pair<const char*, AvroJson>>& want) {
  if (!record.is_object() || record.value("type", AvroJson()) != "record" ||
      !record.contains("fields") || !record["fields"].is_array() ||
      record["fields"].size() < want.size()) {
    return false;
  }
  for (size_t i = 0; i < want.size(); ++i) {
    const AvroJson& f = record["fields"][i];
    if (!f.is_object() || f.value("name", AvroJson()) != want[i].first) return false;
    if (!want[i].second.is_null() && f.value("type", AvroJson()) != want[i].second) return false;
  }
  return true;
}

Result<int32_t> ReadInt(avro::AvroDecoder& d) {
  LD_ASSIGN_OR_RETURN(int64_t v, d.ReadLong());
  if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()) {
    return Status::Corruption("Avro: an int out of range");
  }
  return static_cast<int32_t>(v);
}

// An optional long (["null","long"]): nullopt for null.
Result<std::optional<int64_t>> ReadOptionalLong(avro::AvroDecoder& d) {
  LD_ASSIGN_OR_RETURN(int64_t branch, d.ReadLong());
  if (branch == 0) return std::optional<int64_t>();
  if (branch != 1) return Status::Corruption("Avro: a union branch out of range");
  LD_ASSIGN_OR_RETURN(int64_t v, d.ReadLong());
  return std::optional<int64_t>(v);
}

// The partition record of a manifest_entry schema, checked to be as lakedump writes it.
Result<const AvroJson*> PartitionRecordOf(const AvroJson& schema, std::string_view what) {
  const AvroJson optional_long = AvroJson::array({"null", "long"});
  if (!FieldsBeginWith(schema, {{"status", "int"},
                                {"snapshot_id", optional_long},
                                {"sequence_number", optional_long},
                                {"file_sequence_number", optional_long},
                                {"data_file", AvroJson()}}) ||
      schema["fields"].size() != 5) {
    return Bad(what, "not the manifest_entry records lakedump writes");
  }
  const AvroJson& data_file = schema["fields"][4]["type"];
  if (!FieldsBeginWith(data_file, {{"content", "int"},
                                   {"file_path", "string"},
                                   {"file_format", "string"},
                                   {"partition", AvroJson()},
                                   {"record_count", "long"},
                                   {"file_size_in_bytes", "long"}})) {
    return Bad(what, "its data_file records are not the ones lakedump writes");
  }
  const AvroJson& partition = data_file["fields"][3]["type"];
  if (!partition.is_object() || partition.value("type", AvroJson()) != "record" ||
      !partition.contains("fields") || !partition["fields"].is_array() ||
      partition["fields"].size() > 1) {
    return Bad(what, "its partition is not a record of at most one field");
  }
  return &partition;
}

// Reads the manifest_entry records of one manifest.
struct EntryReader {
  std::string_view what;
  const ManifestRef& ref;
  std::string_view location;
  std::string prefix;  // location + "/"
  std::string_view also_under;
  bool partitioned;
  const avro::AvroSchema* schema;  // the container's, compiled
  uint32_t partition_type;         // its node of the partition field's union, if partitioned

  // The entry of `record`, or nullopt for a DELETED one.
  Result<std::optional<RemovedEntry>> Read(std::string_view record) {
    avro::AvroDecoder d(record);
    LD_ASSIGN_OR_RETURN(int32_t status, ReadInt(d));
    if (status < 0 || status > 2) return Bad(what, "an entry status out of range");
    LD_ASSIGN_OR_RETURN(std::optional<int64_t> snapshot_id, ReadOptionalLong(d));
    LD_ASSIGN_OR_RETURN(std::optional<int64_t> sequence, ReadOptionalLong(d));
    LD_ASSIGN_OR_RETURN(std::optional<int64_t> file_sequence, ReadOptionalLong(d));
    const size_t data_file_begin = d.pos();
    LD_ASSIGN_OR_RETURN(int32_t content, ReadInt(d));
    LD_ASSIGN_OR_RETURN(std::string_view path, d.ReadBytes());
    LD_RETURN_IF_ERROR(d.ReadBytes().status());  // file_format
    bool partition_null = false;
    if (partitioned) {
      const size_t begin = d.pos();
      avro::AvroDecoder peek(record.substr(begin));
      LD_ASSIGN_OR_RETURN(int64_t branch, peek.ReadLong());
      partition_null = branch == 0;
      LD_RETURN_IF_ERROR(d.Skip(*schema, partition_type));
    }
    LD_ASSIGN_OR_RETURN(int64_t record_count, d.ReadLong());
    LD_ASSIGN_OR_RETURN(int64_t file_size, d.ReadLong());
    if (status == 2) return std::optional<RemovedEntry>();  // already deleted
    if ((ref.content == 0) != (content == 0) || content < 0 || content > 2) {
      return Bad(what, "an entry whose content is not its manifest's");
    }
    if (!path.starts_with(prefix) && (also_under.empty() || !path.starts_with(also_under))) {
      return Bad(what, fmt::format("an entry's file is not under {}", location));
    }
    if (record_count < 0 || file_size < 0) return Bad(what, "a negative record count or size");
    // ADDED entries inherit their sequence numbers from the manifest list; EXISTING ones
    // carry them (the spec's inheritance rule).
    if (status == 0 && (!sequence || !file_sequence)) {
      return Bad(what, "an existing entry without its sequence numbers");
    }
    RemovedEntry e;
    e.data_file = std::string(record.substr(data_file_begin));
    e.data_sequence_number = sequence.value_or(ref.sequence_number);
    e.file_sequence_number = file_sequence.value_or(ref.sequence_number);
    e.record_count = record_count;
    e.partition_null = partition_null;
    e.path = std::string(path);
    e.file_size_in_bytes = file_size;
    e.snapshot_id = snapshot_id;
    return std::optional<RemovedEntry>(std::move(e));
  }
};

}  // namespace

Result<std::vector<ManifestRef>> ReadManifestList(std::string_view bytes) {
  constexpr std::string_view kWhat = "manifest list";
  auto container = avro::ReadAvroContainer(bytes, kMaxManifestRecords);
  if (!container.ok()) return Bad(kWhat, container.status().message());
  if (!FieldsBeginWith(container->schema, {{"manifest_path", "string"},
                                           {"manifest_length", "long"},
                                           {"partition_spec_id", "int"},
                                           {"content", "int"},
                                           {"sequence_number", "long"}})) {
    return Bad(kWhat, "not the manifest_file records lakedump writes");
  }
  std::vector<ManifestRef> out;
  for (std::string_view record : container->records) {
    avro::AvroDecoder d(record);
    ManifestRef ref;
    LD_ASSIGN_OR_RETURN(std::string_view path, d.ReadBytes());
    ref.path = std::string(path);
    LD_RETURN_IF_ERROR(d.ReadLong().status());  // manifest_length
    LD_ASSIGN_OR_RETURN(ref.partition_spec_id, ReadInt(d));
    LD_ASSIGN_OR_RETURN(ref.content, ReadInt(d));
    LD_ASSIGN_OR_RETURN(ref.sequence_number, d.ReadLong());
    if (ref.sequence_number < 0) return Bad(kWhat, "a negative sequence number");
    if (ref.content != 0 && ref.content != 1) return Bad(kWhat, "a manifest content out of range");
    LD_RETURN_IF_ERROR(d.ReadLong().status());  // min_sequence_number
    LD_ASSIGN_OR_RETURN(ref.added_snapshot_id, d.ReadLong());
    LD_ASSIGN_OR_RETURN(int32_t added, ReadInt(d));
    LD_ASSIGN_OR_RETURN(int32_t existing, ReadInt(d));
    if (added < 0 || existing < 0) return Bad(kWhat, "a negative file count");
    ref.live_files = int64_t{added} + existing;
    ref.record = std::string(record);
    out.push_back(std::move(ref));
  }
  return out;
}

Result<RemovedManifest> LiveEntriesOf(std::string_view bytes, const ManifestRef& ref,
                                      std::string_view location, std::string_view also_under) {
  const std::string what = fmt::format("manifest {}", ref.path);
  auto container = avro::ReadAvroContainer(bytes, kMaxManifestRecords);
  if (!container.ok()) return Bad(what, container.status().message());
  LD_ASSIGN_OR_RETURN(const AvroJson* partition, PartitionRecordOf(container->schema, what));
  RemovedManifest out;
  out.avro_schema = container->metadata["avro.schema"];
  for (const char* key :
       {"schema", "schema-id", "partition-spec", "partition-spec-id", "format-version", "content"}) {
    auto it = container->metadata.find(key);
    if (it != container->metadata.end()) out.header.emplace_back(key, it->second);
  }
  out.partition_spec_id = ref.partition_spec_id;
  out.content = ref.content;
  EntryReader reader{what, ref, location, std::string(location) + "/", also_under, false,
                     &container->compiled, 0};
  if (!(*partition)["fields"].empty()) {
    const AvroJson& field = (*partition)["fields"][0];
    const AvroJson type = field.is_object() ? field.value("type", AvroJson()) : AvroJson();
    if (!type.is_array() || type.size() != 2 || type[0] != "null") {
      return Bad(what, "its partition field is not optional");
    }
    // The same field in the compiled schema: manifest_entry.data_file.partition's first.
    const avro::AvroSchema& s = container->compiled;
    std::optional<uint32_t> node = s.FieldType(s.root(), 4);
    if (node) node = s.FieldType(*node, 3);
    if (node) node = s.FieldType(*node, 0);
    if (!node) return Bad(what, "its partition field is not in its schema");
    reader.partition_type = *node;
    out.partitioned = reader.partitioned = true;
    out.partition_floating = type[1] == "float" || type[1] == "double";
  }
  for (std::string_view record : container->records) {
    LD_ASSIGN_OR_RETURN(std::optional<RemovedEntry> e, reader.Read(record));
    if (e) out.entries.push_back(std::move(*e));
  }
  return out;
}

}  // namespace lakedump::iceberg
