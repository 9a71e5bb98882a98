#include "dump/shard/shard_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <random>
#include <set>

#include "base/sha256.h"
#include "base/utf8.h"
#include "lake/no_snapshot.h"
#include "lake/object_keys.h"
#include "format/codec/codec.h"

namespace lakedump {
namespace {

using json = nlohmann::json;

constexpr std::string_view kPlanFormat = "lakedump-shard-plan";
constexpr std::string_view kReportFormat = "lakedump-shard-report";
constexpr std::string_view kProgressFormat = "lakedump-shard-progress";
// 2: reports and progress objects stored zstd-compressed (kShardDocumentSuffix). 3: attempt
// tokens handed out by the plan, carried by every report and progress object; "mac" in a
// signed dump's documents. A worker and a coordinator of different versions refuse each
// other's documents by this number.
constexpr int kPlanVersion = 3;
constexpr std::string_view kMacField = "mac";
constexpr size_t kTokenHexDigits = 16;
constexpr size_t kMaxIdBytes = 128;
constexpr size_t kMaxRangeBytes = 1024;
constexpr int kMaxUnitsPerTable = 100000;
Result<json> ParseDocument(std::string_view text, std::string_view format,
                           std::string_view what) {
  if (text.size() > kMaxShardDocumentBytes) {
    return Status::Corruption(fmt::format("{}: larger than {} bytes", what,
                                          kMaxShardDocumentBytes));
  }
  LD_ASSIGN_OR_RETURN(json j, ParseMetadataJson(text, what));
  if (!j.is_object()) {
    return Status::Corruption(fmt::format("{}: not a JSON object", what));
  }
  auto f = j.find("format");
  if (f == j.end() || !f->is_string() || f->get<std::string>() != format) {
    return Status::Corruption(fmt::format("{}: \"format\" is not \"{}\"", what, format));
  }
  auto v = j.find("version");
  if (v == j.end() || !v->is_number_integer() || v->get<int64_t>() != kPlanVersion) {
    return Status::Corruption(fmt::format("{}: \"version\" is not {}", what, kPlanVersion));
  }
  return j;
}

// nlohmann's exceptions become Corruption naming `what` at this one boundary.
template <typename Fn>
Status Guard(std::string_view what, Fn&& fn) {
  try {
    return fn();
  } catch (const std::exception& e) {
    return Status::Corruption(fmt::format("{}: malformed: {}", what, e.what()));
  }
}

// HMAC-SHA256 under `key` of document `j` (of format `format`) without its "mac".
std::string DocumentMac(std::string_view key, std::string_view format, json j) {
  j.erase(std::string(kMacField));
  return HmacSha256Hex(key, fmt::format("lakedump-shard-mac\n{}\n{}", format, j.dump()));
}

void AddMac(std::string_view key, std::string_view format, json* j) {
  if (!key.empty()) (*j)[std::string(kMacField)] = DocumentMac(key, format, *j);
}

// Without a key: OK. With one: the document's "mac" must be the key's.
Status CheckMac(std::string_view key, std::string_view format, const json& j,
                std::string_view what) {
  if (key.empty()) return Status::OK();
  auto it = j.find(kMacField);
  if (it == j.end() || !it->is_string() ||
      !ConstantTimeEquals(it->get<std::string>(), DocumentMac(key, format, j))) {
    return Status::PermissionDenied(fmt::format(
        "{}: {} not by the holder of this dump's --sign-key-file (its \"mac\" is {})", what,
        format == kPlanFormat ? "written" : "reported",
        it == j.end() ? "missing" : "not the key's"));
  }
  return Status::OK();
}

bool IsToken(std::string_view s) {
  return s.size() == kTokenHexDigits && std::all_of(s.begin(), s.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

bool IsId(std::string_view s) {
  return !s.empty() && s.size() <= kMaxIdBytes &&
         std::all_of(s.begin(), s.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                  c == '-';
         });
}

Status CheckId(const json& j, const char* field, std::string_view what, std::string* out) {
  *out = j.at(field).get<std::string>();
  if (!IsId(*out)) {
    return Status::Corruption(
        fmt::format("{}: \"{}\" is not an id ([0-9A-Za-z-], at most {} bytes)", what, field,
                    kMaxIdBytes));
  }
  return Status::OK();
}

Status CheckTableName(const TableRef& t, std::string_view what) {
  if (t.schema.empty() || t.name.empty() || !IsValidUtf8(t.schema) || !IsValidUtf8(t.name)) {
    return Status::Corruption(fmt::format("{}: a unit names an empty or non-UTF-8 table", what));
  }
  return Status::OK();
}

json UnitToJson(const PlannedUnit& u) {
  json j = {{"schema", u.table.schema}, {"table", u.table.name}, {"unit", u.index},
            {"count", u.count},         {"rows", u.estimated_rows},
            {"bytes", u.estimated_bytes}};
  if (!u.range_predicate.empty()) j["range"] = u.range_predicate;
  if (u.is_query) j["query"] = true;
  return j;
}

Result<PlannedUnit> UnitFromJson(const json& j, std::string_view what) {
  PlannedUnit u;
  u.table.schema = j.at("schema").get<std::string>();
  u.table.name = j.at("table").get<std::string>();
  LD_RETURN_IF_ERROR(CheckTableName(u.table, what));
  u.index = j.at("unit").get<int>();
  u.count = j.at("count").get<int>();
  if (u.count < 1 || u.count > kMaxUnitsPerTable || u.index < 0 || u.index >= u.count) {
    return Status::Corruption(fmt::format("{}: table {} has unit {} of {}", what,
                                          u.table.QualifiedName(), u.index, u.count));
  }
  u.estimated_rows = j.at("rows").get<uint64_t>();
  u.estimated_bytes = j.at("bytes").get<uint64_t>();
  u.range_predicate = j.value("range", "");
  if (u.range_predicate.size() > kMaxRangeBytes) {
    return Status::Corruption(fmt::format("{}: the range of a unit of table {} is too long", what,
                                          u.table.QualifiedName()));
  }
  u.is_query = j.value("query", false);
  return u;
}

Result<int> ParseIndex(const char* text, const char* name) {
  const std::string_view s(text);
  int value = -1;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() || value < 0) {
    return Status::InvalidArgument(
        fmt::format("{}=\"{}\" is not a non-negative integer", name, s));
  }
  return value;
}

}  // namespace

PlannedUnit ToPlannedUnit(const WorkUnit& unit) {
  PlannedUnit u;
  u.table = unit.table.ref;
  u.index = unit.index;
  u.count = unit.count;
  u.range_predicate = unit.range_predicate;
  u.estimated_rows = unit.table.estimated_rows;
  u.estimated_bytes = unit.table.estimated_bytes;
  u.is_query = !unit.table.query.empty();
  return u;
}

std::vector<std::vector<PlannedUnit>> AssignUnits(std::vector<PlannedUnit> units, int shards) {
  auto weight = [](const PlannedUnit& u) {
    return std::max<uint64_t>(1, u.estimated_bytes / static_cast<uint64_t>(std::max(1, u.count)));
  };
  std::stable_sort(units.begin(), units.end(), [&](const PlannedUnit& a, const PlannedUnit& b) {
    return weight(a) > weight(b);
  });
  std::vector<std::vector<PlannedUnit>> out(static_cast<size_t>(std::max(1, shards)));
  std::vector<uint64_t> load(out.size(), 0);
  for (PlannedUnit& u : units) {
    const size_t s = static_cast<size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    load[s] += weight(u);
    out[s].push_back(std::move(u));
  }
  return out;
}

nlohmann::json ShardMatchingOptions(const DumpOptions& o, const nlohmann::json& source_options) {
  json queries = json::array();
  for (const NamedQuery& q : o.queries) queries.push_back({{"name", q.name}, {"sql", q.sql}});
  return {{"tables", o.include},
          {"exclude", o.exclude},
          {"queries", std::move(queries)},
          {"compression", std::string(CodecName(o.parquet.codec))},
          {"compression_level", o.parquet.compression_level},
          {"row_group_rows", o.parquet.row_group_rows},
          {"row_group_bytes", o.parquet.row_group_bytes},
          {"file_size", o.file_size},
          {"partition_by", o.partition_by},
          {"max_partitions", o.max_open_partitions},
          {"table_format", std::string(TableFormatName(o.table_format))},
          {"signed", !o.sign_key.empty()},
          {"source_options", source_options}};
}

std::string OptionsMismatch(const nlohmann::json& plan, const nlohmann::json& worker) {
  if (!plan.is_object()) return "options (the plan records none)";
  for (auto it = worker.begin(); it != worker.end(); ++it) {
    auto p = plan.find(it.key());
    if (p == plan.end() || *p != it.value()) {
      const std::string theirs = p == plan.end() ? "absent" : p->dump();
      return fmt::format("{} (the plan: {}; this worker: {})", it.key(), theirs,
                         it.value().dump());
    }
  }
  for (auto it = plan.begin(); it != plan.end(); ++it) {
    if (!worker.contains(it.key())) {
      return fmt::format("{} (the plan: {}; this worker: absent)", it.key(), it.value().dump());
    }
  }
  return "";
}

nlohmann::json ToJson(const ShardPlan& plan) {
  json shards = json::array();
  for (const auto& units : plan.shards) {
    json list = json::array();
    for (const PlannedUnit& u : units) list.push_back(UnitToJson(u));
    shards.push_back(std::move(list));
  }
  json j = {{"format", kPlanFormat},       {"version", kPlanVersion},
            {"dump_id", plan.dump_id},     {"created_at", plan.created_at},
            {"snapshot_id", plan.snapshot_id}, {"source", plan.source},
            {"options", plan.options},     {"shards", std::move(shards)},
            {"attempt_tokens", plan.attempt_tokens}};
  // For a reader's eye; what counts is options.no_snapshot.
  if (OptionsSayNoSnapshot(plan.options)) j[kNoSnapshotKey] = true;
  return j;
}

Result<std::string> SerializeShardPlan(const ShardPlan& plan, std::string_view key) {
  json j = ToJson(plan);
  AddMac(key, kPlanFormat, &j);
  return SerializeMetadata(j, kShardPlanKey);
}

Result<ShardPlan> ParseShardPlan(std::string_view text, std::string_view what,
                                 std::string_view key) {
  LD_ASSIGN_OR_RETURN(json j, ParseDocument(text, kPlanFormat, what));
  LD_RETURN_IF_ERROR(CheckMac(key, kPlanFormat, j, what));
  ShardPlan plan;
  LD_RETURN_IF_ERROR(Guard(what, [&]() -> Status {
    LD_RETURN_IF_ERROR(CheckId(j, "dump_id", what, &plan.dump_id));
    plan.created_at = j.at("created_at").get<std::string>();
    plan.source = j.at("source");
    plan.options = j.at("options");
    if (!plan.source.is_object() || !plan.options.is_object()) {
      return Status::Corruption(fmt::format("{}: \"source\" and \"options\" must be objects",
                                            what));
    }
    // --no-snapshot: no snapshot to import, so none may be named; otherwise one must be.
    const bool no_snapshot = OptionsSayNoSnapshot(plan.options);
    if (auto it = j.find(kNoSnapshotKey);
        it != j.end() && (!it->is_boolean() || it->get<bool>() != no_snapshot)) {
      return Status::Corruption(
          fmt::format("{}: \"no_snapshot\" disagrees with options.no_snapshot", what));
    }
    if (no_snapshot) {
      if (!j.at("snapshot_id").get<std::string>().empty()) {
        return Status::Corruption(fmt::format(
            "{}: a plan made with --no-snapshot names a snapshot_id", what));
      }
    } else {
      LD_RETURN_IF_ERROR(CheckId(j, "snapshot_id", what, &plan.snapshot_id));
    }
    const json& shards = j.at("shards");
    if (!shards.is_array() || shards.empty() || shards.size() > kMaxShards) {
      return Status::Corruption(
          fmt::format("{}: \"shards\" must list 1 to {} shards", what, kMaxShards));
    }
    std::set<std::pair<std::string, int>> seen;
    for (const json& list : shards) {
      std::vector<PlannedUnit> units;
      for (const json& u : list) {
        LD_ASSIGN_OR_RETURN(PlannedUnit unit, UnitFromJson(u, what));
        if (!seen.insert({unit.table.schema + '\0' + unit.table.name, unit.index}).second) {
          return Status::Corruption(fmt::format("{}: unit {} of table {} is planned twice", what,
                                                unit.index, unit.table.QualifiedName()));
        }
        units.push_back(std::move(unit));
      }
      plan.shards.push_back(std::move(units));
    }
    plan.attempt_tokens = j.at("attempt_tokens").get<std::vector<std::string>>();
    if (plan.attempt_tokens.size() != plan.shards.size() ||
        !std::all_of(plan.attempt_tokens.begin(), plan.attempt_tokens.end(), IsToken)) {
      return Status::Corruption(fmt::format(
          "{}: \"attempt_tokens\" must give each shard one token of {} hex digits", what,
          kTokenHexDigits));
    }
    return Status::OK();
  }));
  return plan;
}

std::string NewAttemptToken() {
  std::random_device rd;
  return fmt::format("{:08x}{:08x}", static_cast<uint32_t>(rd()), static_cast<uint32_t>(rd()));
}

std::string ShardReportKey(int shard, std::string_view attempt, bool failed) {
  return fmt::format("{}{}/{}-{}{}", kShardReportsPrefix, shard, failed ? "failed" : "report",
                     attempt, kShardDocumentSuffix);
}

std::string NewAttemptId(std::string_view dump_id, int shard) {
  std::random_device rd;
  return fmt::format("{}-s{}-{:08x}", dump_id, shard, static_cast<uint32_t>(rd()));
}

std::string ShardProgressKey(int shard, std::string_view attempt) {
  return fmt::format("{}{}/progress-{}{}", kShardReportsPrefix, shard, attempt,
                     kShardDocumentSuffix);
}

std::string ShardAttemptPrefix(std::string_view dump_id, int shard) {
  return fmt::format("{}-s{}-", dump_id, shard);
}

std::string UnitName(const TableRef& table, int unit) {
  return fmt::format("{}#{}", table.QualifiedName(), unit);
}

std::string AttemptOfKey(std::string_view key, std::string_view dump_id) {
  const std::string marker = std::string(dump_id) + "-s";
  const size_t at = key.find(marker);
  if (dump_id.empty() || at == std::string_view::npos) return "";
  size_t i = at + marker.size();
  const size_t digits = i;
  while (i < key.size() && key[i] >= '0' && key[i] <= '9') ++i;
  if (i == digits || i >= key.size() || key[i] != '-') return "";
  ++i;
  const size_t hex = i;
  while (i < key.size() && i - hex < 8 &&
         ((key[i] >= '0' && key[i] <= '9') || (key[i] >= 'a' && key[i] <= 'f'))) {
    ++i;
  }
  if (i - hex != 8) return "";
  return std::string(key.substr(at, i - at));
}

namespace {

// A report and a progress object share one shape; they differ in their format, the name of
// their time field, and whose files they may name.
struct ShardDocumentKind {
  std::string_view format;
  const char* time_field;
  // Progress: only the document's own attempt's files. Report: any attempt of its shard's
  // (a retry reports the units it took over from an earlier attempt).
  bool own_files_only;
};
constexpr ShardDocumentKind kReportKind{kReportFormat, "finished_at", false};
constexpr ShardDocumentKind kProgressKind{kProgressFormat, "written_at", true};

Result<std::string> SerializeShardDocument(const ShardReport& r, const ShardDocumentKind& kind,
                                           std::string_view key) {
  json units = json::array();
  for (const UnitOutput& u : r.units) {
    TableManifest t;
    t.table = u.table;
    t.schema = u.schema;
    t.files = u.files;
    t.run_id = r.attempt;
    for (const DataFile& f : u.files) {
      t.rows += f.rows;
      t.bytes += f.bytes;
    }
    units.push_back({{"unit", u.unit}, {"output", ToJson(t)}});
  }
  json j = {{"format", kind.format}, {"version", kPlanVersion},
            {"dump_id", r.dump_id},  {"shard", r.shard},
            {"attempt", r.attempt},  {kind.time_field, r.finished_at},
            {"failed", r.failed},    {"units", std::move(units)},
            {"token", r.token}};
  if (r.failed) j["error"] = r.error;
  AddMac(key, kind.format, &j);
  LD_ASSIGN_OR_RETURN(std::string text, SerializeMetadata(j, "shard report", /*indent=*/-1));
  LD_ASSIGN_OR_RETURN(std::unique_ptr<Codec> zstd, MakeCodec(CodecKind::kZstd));
  std::string stored;
  LD_RETURN_IF_ERROR(zstd->Compress(text, &stored));
  return stored;
}

Result<ShardReport> ParseShardDocument(std::string_view stored, std::string_view what,
                                       const ShardDocumentKind& kind, std::string_view key) {
  // Bounded before anything is allocated for it: the stored size, then the size it declares.
  if (stored.size() > kMaxShardDocumentBytes) {
    return Status::Corruption(fmt::format("{}: larger than {} bytes", what,
                                          kMaxShardDocumentBytes));
  }
  Result<uint64_t> size = ZstdDeclaredSize(stored);
  if (!size.ok()) return Status::Corruption(fmt::format("{}: {}", what, size.status().message()));
  if (*size > kMaxShardDocumentBytes) {
    return Status::Corruption(fmt::format("{}: its JSON would be {} bytes, more than {}", what,
                                          *size, kMaxShardDocumentBytes));
  }
  LD_ASSIGN_OR_RETURN(std::unique_ptr<Codec> zstd, MakeCodec(CodecKind::kZstd));
  std::string text;
  if (Status s = zstd->Decompress(stored, static_cast<size_t>(*size), &text); !s.ok()) {
    return Status::Corruption(fmt::format("{}: {}", what, s.message()));
  }
  LD_ASSIGN_OR_RETURN(json j, ParseDocument(text, kind.format, what));
  LD_RETURN_IF_ERROR(CheckMac(key, kind.format, j, what));
  ShardReport r;
  LD_RETURN_IF_ERROR(Guard(what, [&]() -> Status {
    LD_RETURN_IF_ERROR(CheckId(j, "dump_id", what, &r.dump_id));
    LD_RETURN_IF_ERROR(CheckId(j, "attempt", what, &r.attempt));
    r.shard = j.at("shard").get<int>();
    if (r.shard < 0 || r.shard >= kMaxShards) {
      return Status::Corruption(fmt::format("{}: shard {} out of range", what, r.shard));
    }
    const std::string shard_attempts = ShardAttemptPrefix(r.dump_id, r.shard);
    if (AttemptOfKey(r.attempt, r.dump_id) != r.attempt ||
        !r.attempt.starts_with(shard_attempts)) {
      return Status::Corruption(fmt::format("{}: \"attempt\" {} is not an attempt of shard {} of "
                                            "dump {}",
                                            what, r.attempt, r.shard, r.dump_id));
    }
    r.finished_at = j.at(kind.time_field).get<std::string>();
    r.token = j.at("token").get<std::string>();
    if (!IsToken(r.token)) {
      return Status::Corruption(fmt::format("{}: \"token\" is not an attempt token", what));
    }
    r.failed = j.at("failed").get<bool>();
    r.error = j.value("error", "");
    for (const json& u : j.at("units")) {
      UnitOutput out;
      out.unit = u.at("unit").get<int>();
      // Each unit's output is checked as a _table.json is (keys, sizes, checksums).
      LD_ASSIGN_OR_RETURN(TableManifest t,
                          ParseTableManifest(u.at("output").dump(), what));
      LD_RETURN_IF_ERROR(CheckTableName(t.table, what));
      if (out.unit < 0 || out.unit >= kMaxUnitsPerTable || t.run_id != r.attempt) {
        return Status::Corruption(
            fmt::format("{}: a unit of table {} is malformed", what, t.table.QualifiedName()));
      }
      const std::string prefix = TablePrefix(t.table);
      for (const DataFile& f : t.files) {
        const std::string attempt = AttemptOfKey(f.key, r.dump_id);
        const bool whose = kind.own_files_only ? attempt == r.attempt
                                               : attempt.starts_with(shard_attempts);
        if (!f.key.starts_with(prefix) || !whose) {
          return Status::Corruption(fmt::format(
              "{}: file {} is not one of {} files of table {}", what, f.key,
              kind.own_files_only ? "this attempt's" : "this shard's attempts'",
              t.table.QualifiedName()));
        }
      }
      out.table = std::move(t.table);
      out.schema = std::move(t.schema);
      out.files = std::move(t.files);
      r.units.push_back(std::move(out));
    }
    return Status::OK();
  }));
  return r;
}

}  // namespace

Result<std::string> SerializeShardReport(const ShardReport& report, std::string_view key) {
  return SerializeShardDocument(report, kReportKind, key);
}

Result<ShardReport> ParseShardReport(std::string_view text, std::string_view what,
                                     std::string_view key) {
  return ParseShardDocument(text, what, kReportKind, key);
}

Result<std::string> SerializeShardProgress(const ShardReport& progress, std::string_view key) {
  return SerializeShardDocument(progress, kProgressKind, key);
}

Result<ShardReport> ParseShardProgress(std::string_view text, std::string_view what,
                                       std::string_view key) {
  return ParseShardDocument(text, what, kProgressKind, key);
}

Result<int> ShardIndexFromEnv(GetEnvFn getenv_fn) {
  for (const char* name :
       {"JOB_COMPLETION_INDEX", "SLURM_ARRAY_TASK_ID", "AWS_BATCH_JOB_ARRAY_INDEX"}) {
    if (const char* v = getenv_fn(name); v != nullptr) return ParseIndex(v, name);
  }
  return Status::InvalidArgument(
      "--shard auto: none of JOB_COMPLETION_INDEX (Kubernetes Indexed Job), SLURM_ARRAY_TASK_ID "
      "(Slurm job array) or AWS_BATCH_JOB_ARRAY_INDEX (AWS Batch) is set; pass --shard I");
}

Result<std::optional<int>> ShardCountFromEnv(GetEnvFn getenv_fn) {
  const char* v = getenv_fn("SLURM_ARRAY_TASK_COUNT");
  if (v == nullptr) return std::optional<int>();
  LD_ASSIGN_OR_RETURN(int n, ParseIndex(v, "SLURM_ARRAY_TASK_COUNT"));
  return std::optional<int>(n);
}

}  // namespace lakedump
