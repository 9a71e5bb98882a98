#include "lake/manifest.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <ctime>

#include "base/json_nesting.h"
#include "lake/no_snapshot.h"
#include "lake/object_keys.h"
#include "store/object_key.h"

namespace lakedump {
namespace {

using json = nlohmann::json;

nlohmann::json ColumnsToJson(const Schema& schema) {
  json cols = json::array();
  for (const Column& c : schema.columns()) {
    cols.push_back({{"name", c.name},
                    {"type", c.type.ToString()},
                    {"nullable", c.nullable},
                    {"source_type", c.source_type}});
  }
  return cols;
}

json FormatHeader() {
  return {{"format", std::string(kDumpFormatName)},
          {"format_version", kDumpFormatVersion},
          {"format_minor_version", kDumpFormatMinorVersion}};
}

// Checks the format name and major version of a parsed document.
Status CheckFormat(const json& j, std::string_view what) {
  if (!j.is_object()) return Status::Corruption(fmt::format("{}: not a JSON object", what));
  auto f = j.find("format");
  if (f == j.end() || !f->is_string() || f->get<std::string>() != kDumpFormatName) {
    return Status::Corruption(
        fmt::format("{}: not a lakedump dump file (\"format\" is not \"{}\")", what,
                    kDumpFormatName));
  }
  auto v = j.find("format_version");
  if (v == j.end() || !v->is_number_integer()) {
    return Status::Corruption(fmt::format("{}: missing integer \"format_version\"", what));
  }
  const int version = v->get<int>();
  if (version > kDumpFormatVersion || version < 1) {
    return Status::Unimplemented(fmt::format(
        "{}: dump format version {} is not supported by this lakedump (it reads version {}); "
        "use a lakedump release that supports it",
        what, version, kDumpFormatVersion));
  }
  return Status::OK();
}

// Real manifests nest 4 levels deep (source/options hold flat objects).
constexpr size_t kMaxNesting = 64;

Result<json> ParseJson(std::string_view text, std::string_view what) {
  if (JsonNestingDepth(text) > kMaxNesting) {
    return Status::Corruption(fmt::format(
        "{}: nested more than {} levels deep (not a lakedump file)", what, kMaxNesting));
  }
  json j = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    return Status::Corruption(fmt::format("{}: not valid JSON (is it a lakedump file?)", what));
  }
  return j;
}

// Typed field access with a message naming the field; the catch turns
// nlohmann's exceptions into Corruption at this one boundary.
template <typename Fn>
Status Guard(std::string_view what, Fn&& fn) {
  try {
    fn();
    return Status::OK();
  } catch (const std::exception& e) {
    return Status::Corruption(fmt::format("{}: malformed: {}", what, e.what()));
  }
}

bool IsXxh64Hex(std::string_view s) {
  return s.size() == 16 && std::all_of(s.begin(), s.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

// A file entry a reader can trust to address and check its object.
Status CheckFileEntry(const DataFile& f, std::string_view what) {
  if (Status k = ValidateObjectKey(f.key); !k.ok()) {
    return Status::Corruption(fmt::format("{}: file key is not a safe relative key: {}", what,
                                          k.message()));
  }
  if (f.bytes == 0) {
    return Status::Corruption(
        fmt::format("{}: file {} records 0 bytes (a Parquet file is never empty)", what, f.key));
  }
  if (!IsXxh64Hex(f.xxh64)) {
    return Status::Corruption(fmt::format(
        "{}: file {} has no valid \"xxh64\" (16 lower-case hex digits required)", what, f.key));
  }
  return Status::OK();
}

}  // namespace

std::string FormatUtc(std::chrono::system_clock::time_point t) {
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
  const std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", tm.tm_year + 1900,
                     tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ms % 1000);
}

Result<std::string> SerializeMetadata(const json& j, std::string_view what, int indent) {
  try {
    return j.dump(indent) + "\n";
  } catch (const json::exception& e) {
    return Status::InvalidArgument(fmt::format(
        "{}: cannot be written: a name or text in it is not valid UTF-8 ({})", what, e.what()));
  }
}

void SetSectionChecksums(const std::vector<SectionChecksum>& sections, DataFile* file) {
  file->row_groups.clear();
  file->footer.reset();
  if (sections.empty()) return;
  for (const SectionChecksum& s : sections) {
    file->row_groups.push_back({s.offset, s.bytes, FormatXxh64(s.xxh64)});
  }
  file->footer = std::move(file->row_groups.back());
  file->row_groups.pop_back();
}

namespace {

json RangeToJson(const ByteRangeChecksum& r) {
  return {{"offset", r.offset}, {"bytes", r.bytes}, {"xxh64", r.xxh64}};
}

// Throws (json errors) on a malformed entry; Guard() turns that into Corruption.
ByteRangeChecksum RangeFromJson(const json& j) {
  return {j.at("offset").get<uint64_t>(), j.at("bytes").get<uint64_t>(),
          j.at("xxh64").get<std::string>()};
}

bool IsHex16(std::string_view s) {
  return s.size() == 16 &&
         s.find_first_not_of("0123456789abcdef") == std::string_view::npos;
}

}  // namespace

Status CheckSectionChecksums(const DataFile& f) {
  if (!f.footer) return Status::OK();
  uint64_t at = 0;
  auto check = [&](const ByteRangeChecksum& r, std::string_view what) {
    if (r.offset != at || r.bytes > f.bytes - std::min(f.bytes, r.offset) || !IsHex16(r.xxh64)) {
      return Status::Corruption(fmt::format(
          "file {}: {} checksum range (offset {}, {} bytes, xxh64 \"{}\") does not continue the "
          "ranges before it at byte {} of {}",
          f.key, what, r.offset, r.bytes, r.xxh64, at, f.bytes));
    }
    at += r.bytes;
    return Status::OK();
  };
  for (size_t g = 0; g < f.row_groups.size(); ++g) {
    LD_RETURN_IF_ERROR(check(f.row_groups[g], fmt::format("row group {}", g)));
  }
  LD_RETURN_IF_ERROR(check(*f.footer, "footer"));
  if (at != f.bytes) {
    return Status::Corruption(fmt::format(
        "file {}: its checksum ranges end at byte {}, not at its size {}", f.key, at, f.bytes));
  }
  return Status::OK();
}

json ToJson(const TableManifest& t) {
  json j = FormatHeader();
  j["schema"] = t.table.schema;
  j["table"] = t.table.name;
  if (!t.query.empty()) j["query"] = t.query;
  j["columns"] = ColumnsToJson(t.schema);
  j["ddl"] = t.ddl;
  j["primary_key"] = t.primary_key;
  j["unique_keys"] = t.unique_keys;
  j["codec"] = t.codec;
  j["partition_by"] = t.partition_by;
  j["run_id"] = t.run_id;
  if (!t.source_fingerprint.is_null()) j["source_fingerprint"] = t.source_fingerprint;
  if (!t.source_snapshot.is_null()) j["source_snapshot"] = t.source_snapshot;
  json files = json::array();
  for (const DataFile& f : t.files) {
    json fj = {{"key", f.key}, {"rows", f.rows}, {"bytes", f.bytes}, {"xxh64", f.xxh64}};
    if (!f.partition.empty()) fj["partition"] = f.partition;
    if (!f.sha256.empty()) fj["sha256"] = f.sha256;
    if (f.footer) {
      json groups = json::array();
      for (const ByteRangeChecksum& r : f.row_groups) groups.push_back(RangeToJson(r));
      fj["row_groups"] = std::move(groups);
      fj["footer"] = RangeToJson(*f.footer);
    }
    files.push_back(std::move(fj));
  }
  j["files"] = files;
  j["rows"] = t.rows;
  j["bytes"] = t.bytes;
  j["started_at"] = t.started_at;
  j["finished_at"] = t.finished_at;
  j["seconds"] = t.seconds;
  return j;
}

json ToJson(const DumpManifest& d) {
  json j = FormatHeader();
  j["dump_id"] = d.dump_id;
  j["created_by"] = d.created_by;
  j["source"] = d.source;
  j["options"] = d.options;
  j["started_at"] = d.started_at;
  j["finished_at"] = d.finished_at;
  j["seconds"] = d.seconds;
  json tables = json::array();
  for (const TableSummary& t : d.tables) {
    json tj = {{"schema", t.table.schema},
               {"table", t.table.name},
               {"key", t.key},
               {"rows", t.rows},
               {"files", t.files},
               {"bytes", t.bytes},
               {"codec", t.codec},
               {"seconds", t.seconds},
               {"run_id", t.run_id}};
    if (!t.table_json_sha256.empty()) tj["table_json_sha256"] = t.table_json_sha256;
    if (!t.table_json_xxh64.empty()) tj["table_json_xxh64"] = t.table_json_xxh64;
    tables.push_back(std::move(tj));
  }
  if (d.sha256) j["sha256"] = true;
  if (!d.written_to.empty()) j["written_to"] = d.written_to;
  j["tables"] = tables;
  j["snapshots"] = d.snapshots;
  j["single_snapshot"] = ManifestIsOneSnapshot(d);
  if (ManifestHasNoSnapshot(d)) j[kNoSnapshotKey] = true;
  if (!d.schema.is_null()) j["schema"] = d.schema;
  if (!d.incremental.is_null()) j["incremental"] = d.incremental;
  j["totals"] = {{"tables", d.tables.size()},
                 {"rows", d.total_rows},
                 {"files", d.total_files},
                 {"bytes", d.total_bytes}};
  return j;
}

Result<json> ParseMetadataJson(std::string_view text, std::string_view what) {
  return ParseJson(text, what);
}

Result<TableManifest> ParseTableManifest(std::string_view text, std::string_view what) {
  LD_ASSIGN_OR_RETURN(json j, ParseJson(text, what));
  LD_RETURN_IF_ERROR(CheckFormat(j, what));
  TableManifest t;
  Status schema_status;
  LD_RETURN_IF_ERROR(Guard(what, [&] {
    t.table.schema = j.at("schema").get<std::string>();
    t.table.name = j.at("table").get<std::string>();
    t.query = j.value("query", "");
    for (const json& c : j.at("columns")) {
      auto type = LogicalType::Parse(c.at("type").get<std::string>());
      if (!type.ok()) {
        schema_status = type.status();
        return;
      }
      t.schema.AddColumn(Column{c.at("name").get<std::string>(), *type,
                                c.at("nullable").get<bool>(),
                                c.value("source_type", "")});
    }
    t.ddl = j.value("ddl", "");
    t.primary_key = j.value("primary_key", std::vector<std::string>{});
    if (auto u = j.find("unique_keys"); u != j.end()) {
      t.unique_keys = u->get<std::vector<std::vector<std::string>>>();
      t.has_unique_keys = true;
    }
    t.codec = j.value("codec", "");
    t.partition_by = j.value("partition_by", "");
    t.run_id = j.value("run_id", "");
    t.source_fingerprint = j.value("source_fingerprint", json());
    t.source_snapshot = j.value("source_snapshot", json());
    for (const json& f : j.at("files")) {
      t.files.push_back(DataFile{f.at("key").get<std::string>(), f.at("rows").get<uint64_t>(),
                                 f.at("bytes").get<uint64_t>(), f.at("xxh64").get<std::string>(),
                                 f.value("partition", ""), f.value("sha256", "")});
      if (f.contains("footer")) {
        for (const json& r : f.at("row_groups")) {
          t.files.back().row_groups.push_back(RangeFromJson(r));
        }
        t.files.back().footer = RangeFromJson(f.at("footer"));
      }
    }
    t.rows = j.at("rows").get<uint64_t>();
    t.bytes = j.value("bytes", uint64_t{0});
    t.started_at = j.value("started_at", "");
    t.finished_at = j.value("finished_at", "");
    t.seconds = j.value("seconds", 0.0);
  }));
  if (!schema_status.ok()) return schema_status.WithContext(what);
  uint64_t rows = 0;
  for (const DataFile& f : t.files) {
    rows += f.rows;
    LD_RETURN_IF_ERROR(CheckFileEntry(f, what));
  }
  if (rows != t.rows) {
    return Status::Corruption(fmt::format("{}: rows {} but its files hold {} rows", what, t.rows,
                                          rows));
  }
  return t;
}

Result<DumpManifest> ParseDumpManifest(std::string_view text, std::string_view what) {
  LD_ASSIGN_OR_RETURN(json j, ParseJson(text, what));
  LD_RETURN_IF_ERROR(CheckFormat(j, what));
  DumpManifest d;
  LD_RETURN_IF_ERROR(Guard(what, [&] {
    d.format_version = j.at("format_version").get<int>();
    d.format_minor_version = j.value("format_minor_version", 0);
    d.dump_id = j.at("dump_id").get<std::string>();
    d.created_by = j.value("created_by", "");
    d.source = j.value("source", json::object());
    d.options = j.value("options", json::object());
    d.started_at = j.value("started_at", "");
    d.finished_at = j.value("finished_at", "");
    d.seconds = j.value("seconds", 0.0);
    for (const json& t : j.at("tables")) {
      d.tables.push_back(TableSummary{
          TableRef{t.at("schema").get<std::string>(), t.at("table").get<std::string>()},
          t.at("key").get<std::string>(), t.at("rows").get<uint64_t>(),
          t.at("files").get<uint64_t>(), t.at("bytes").get<uint64_t>(), t.value("codec", ""),
          t.value("seconds", 0.0), t.value("run_id", "")});
      d.tables.back().table_json_sha256 = t.value("table_json_sha256", "");
      d.tables.back().table_json_xxh64 = t.value("table_json_xxh64", "");
    }
    d.sha256 = j.value("sha256", false);
    d.written_to = j.value("written_to", "");
    d.snapshots = j.value("snapshots", json::array());
    if (!d.snapshots.is_array()) d.snapshots = json::array();
    // Written from options.no_snapshot (what lakedump reads): a manifest saying otherwise
    // was not written by lakedump.
    if (auto it = j.find(kNoSnapshotKey);
        it != j.end() && (!it->is_boolean() || it->get<bool>() != ManifestHasNoSnapshot(d))) {
      throw std::runtime_error("\"no_snapshot\" disagrees with options.no_snapshot");
    }
    d.schema = j.value("schema", json());
    if (!d.schema.is_null() && !d.schema.is_object()) {
      throw std::runtime_error("\"schema\" is not an object");
    }
    d.incremental = j.value("incremental", json());
    if (!d.incremental.is_null() && !d.incremental.is_object()) {
      throw std::runtime_error("\"incremental\" is not an object");
    }
    const json& totals = j.at("totals");
    d.total_rows = totals.at("rows").get<uint64_t>();
    d.total_files = totals.at("files").get<uint64_t>();
    d.total_bytes = totals.at("bytes").get<uint64_t>();
  }));
  return d;
}

Result<std::string> ReadDumpManifestText(ObjectStore& store) {
  auto text = store.GetObject(kManifestKey, kMaxMetadataBytes);
  if (!text.ok() && text.status().code() == Code::kNotFound) {
    return Status::NotFound(fmt::format("no dump at {} (no {})", store.Describe(), kManifestKey));
  }
  return text;
}

Result<DumpManifest> ReadDumpManifest(ObjectStore& store) {
  LD_ASSIGN_OR_RETURN(std::string text, ReadDumpManifestText(store));
  return ParseDumpManifest(text, fmt::format("{}/{}", store.Describe(), kManifestKey));
}

Result<TableManifest> ReadTableManifest(ObjectStore& store, std::string_view key) {
  LD_ASSIGN_OR_RETURN(std::string text, store.GetObject(key, kMaxMetadataBytes));
  return ParseTableManifest(text, key);
}

}  // namespace lakedump
