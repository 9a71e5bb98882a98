#include "lake/incremental_state.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <stdexcept>

#include "base/sha256.h"
#include "lake/object_keys.h"
#include "source/postgres/pgoutput.h"
#include "store/object_key.h"

namespace lakedump {

using json = nlohmann::json;

std::string IncrementPrefix(int sequence) {
  return fmt::format("{}{:06d}/", kIncrementsFolder, sequence);
}

namespace {

constexpr std::string_view kMetaNames[] = {"_op", "_lsn", "_xid", "_commit_ts", "_unchanged"};

}  // namespace

std::string EscapeChangeColumnName(std::string_view name) {
  bool escape = name.starts_with(kEscapePrefix);
  for (std::string_view meta : kMetaNames) escape = escape || name == meta;
  return escape ? std::string(kEscapePrefix) + std::string(name) : std::string(name);
}

std::string UnescapeChangeColumnName(std::string_view name) {
  if (name.starts_with(kEscapePrefix)) name.remove_prefix(kEscapePrefix.size());
  return std::string(name);
}

namespace {

std::string Lsn(uint64_t lsn) { return FormatLsn(lsn); }

uint64_t LsnField(const json& j, const char* name) {
  auto parsed = ParseLsn(j.at(name).get<std::string>());
  if (!parsed.ok()) throw std::runtime_error(fmt::format("\"{}\": {}", name, parsed.status().message()));
  return *parsed;
}

TableRef RefOf(const json& j) {
  return TableRef{j.at("schema").get<std::string>(), j.at("table").get<std::string>()};
}

IncrementalTable TableFromJson(const json& j) {
  IncrementalTable t;
  t.ref = RefOf(j);
  t.oid = j.at("oid").get<uint32_t>();
  const std::string mode = j.at("mode").get<std::string>();
  if (mode == "changes") {
    t.mode = IncrementalMode::kChanges;
  } else if (mode == "redump") {
    t.mode = IncrementalMode::kRedump;
  } else {
    throw std::runtime_error("table mode \"" + mode + "\" is neither changes nor redump");
  }
  t.reason = j.value("reason", "");
  const std::string ident = j.at("replica_identity").get<std::string>();
  if (ident.size() != 1) throw std::runtime_error("bad replica_identity");
  t.replica_identity = ident[0];
  t.key = j.at("key").get<std::vector<std::string>>();
  for (const json& c : j.at("columns")) {
    t.columns.push_back(IncrementalColumn{c.at("name").get<std::string>(),
                                          c.at("type_oid").get<uint32_t>(),
                                          c.at("typmod").get<int32_t>()});
  }
  if (j.contains("skip_before_lsn")) t.skip_before_lsn = LsnField(j, "skip_before_lsn");
  if (j.contains("text_arrays")) {
    t.text_arrays = j.at("text_arrays").get<std::vector<std::string>>();
    for (const std::string& name : t.text_arrays) {
      if (std::none_of(t.columns.begin(), t.columns.end(),
                       [&](const IncrementalColumn& c) { return c.name == name; })) {
        throw std::runtime_error("table " + t.ref.QualifiedName() +
                                 ": text_arrays names no column of it");
      }
    }
  }
  if (t.mode == IncrementalMode::kChanges && t.key.empty()) {
    throw std::runtime_error("table " + t.ref.QualifiedName() + " has changes but no key");
  }
  return t;
}

json RefJson(const TableRef& r) { return {{"schema", r.schema}, {"table", r.name}}; }

}  // namespace

json ToJson(const IncrementalTable& t) {
  json j = RefJson(t.ref);
  j["oid"] = t.oid;
  j["mode"] = t.mode == IncrementalMode::kChanges ? "changes" : "redump";
  if (!t.reason.empty()) j["reason"] = t.reason;
  j["replica_identity"] = std::string(1, t.replica_identity);
  j["key"] = t.key;
  json cols = json::array();
  for (const IncrementalColumn& c : t.columns) {
    cols.push_back({{"name", c.name}, {"type_oid", c.type_oid}, {"typmod", c.typmod}});
  }
  j["columns"] = std::move(cols);
  if (t.skip_before_lsn != 0) j["skip_before_lsn"] = Lsn(t.skip_before_lsn);
  if (!t.text_arrays.empty()) j["text_arrays"] = t.text_arrays;
  return j;
}

json ToJson(const IncrementalBase& b) {
  json tables = json::array();
  for (const IncrementalTable& t : b.tables) tables.push_back(ToJson(t));
  return {{"slot", b.slot},
          {"publication", b.publication},
          {"consistent_point", Lsn(b.consistent_point)},
          {"system_identifier", b.system_identifier},
          {"database_oid", b.database_oid},
          {"pg_options", b.pg_options},
          {"tables", std::move(tables)}};
}

json ToJson(const IncrementManifest& m) {
  json tables = json::array();
  for (const IncrementalTable& t : m.tables) tables.push_back(ToJson(t));
  json files = json::array();
  for (const ChangeFile& f : m.change_files) {
    json j = RefJson(f.table);
    j["key"] = f.key;
    j["rows"] = f.rows;
    j["bytes"] = f.bytes;
    j["xxh64"] = f.xxh64;
    if (!f.sha256.empty()) j["sha256"] = f.sha256;
    files.push_back(std::move(j));
  }
  json redumped = json::array();
  for (const RedumpedTable& r : m.redumped) {
    json j = RefJson(r.table);
    j["reason"] = r.reason;
    redumped.push_back(std::move(j));
  }
  json dropped = json::array();
  for (const TableRef& r : m.dropped) dropped.push_back(RefJson(r));
  json j = {{"format", kIncrementFormatName},
            {"format_version", kIncrementFormatVersion},
            {"sequence", m.sequence},
            {"increment_id", m.increment_id},
            {"base_dump_id", m.base_dump_id},
            {"previous_increment_id",
             m.previous_increment_id.empty() ? json() : json(m.previous_increment_id)},
            {"slot", m.slot},
            {"publication", m.publication},
            {"start_lsn", Lsn(m.start_lsn)},
            {"end_lsn", Lsn(m.end_lsn)},
            {"started_at", m.started_at},
            {"finished_at", m.finished_at},
            {"seconds", m.seconds},
            {"transactions", m.transactions},
            {"changes", m.changes},
            {"retained_wal_bytes", m.retained_wal_bytes},
            {"tables", std::move(tables)},
            {"change_files", std::move(files)},
            {"redumped", std::move(redumped)},
            {"dropped", std::move(dropped)}};
  if (m.redump_lsn != 0) j["redump_lsn"] = Lsn(m.redump_lsn);
  if (!m.previous_manifest_sha256.empty()) {
    j["previous_manifest_sha256"] = m.previous_manifest_sha256;
  }
  if (!m.redump_manifest_sha256.empty()) j["redump_manifest_sha256"] = m.redump_manifest_sha256;
  if (!m.written_to.empty()) j["written_to"] = m.written_to;
  if (m.escaped_column_names) j["escaped_column_names"] = true;
  return j;
}

Result<BaseSelection> ReadBaseSelection(const DumpManifest& base) {
  BaseSelection out;
  try {
    if (base.options.contains("tables")) {
      out.include = base.options.at("tables").get<std::vector<std::string>>();
    }
    if (base.options.contains("exclude")) {
      out.exclude = base.options.at("exclude").get<std::vector<std::string>>();
    }
  } catch (const std::exception& e) {
    return Status::Corruption(
        fmt::format("_manifest.json: bad \"tables\" or \"exclude\" option: {}", e.what()));
  }
  return out;
}

Result<IncrementalBase> ParseIncrementalBase(const DumpManifest& base) {
  if (base.incremental.is_null()) {
    return Status::NotFound("the dump is not the base of incremental dumps (it was not made "
                            "with dump --incremental)");
  }
  try {
    const json& j = base.incremental;
    IncrementalBase b;
    b.slot = j.at("slot").get<std::string>();
    b.publication = j.at("publication").get<std::string>();
    b.consistent_point = LsnField(j, "consistent_point");
    b.system_identifier = j.value("system_identifier", "");
    b.database_oid = j.value("database_oid", "");
    b.pg_options = j.value("pg_options", json::object());
    for (const json& t : j.at("tables")) b.tables.push_back(TableFromJson(t));
    return b;
  } catch (const std::exception& e) {
    return Status::Corruption(fmt::format("_manifest.json: bad \"incremental\" block: {}", e.what()));
  }
}

Result<IncrementManifest> ParseIncrementManifest(std::string_view text, std::string_view what) {
  try {
    const json j = json::parse(text);
    if (j.at("format").get<std::string>() != kIncrementFormatName) {
      throw std::runtime_error("not a lakedump increment manifest");
    }
    if (j.at("format_version").get<int>() > kIncrementFormatVersion) {
      return Status::Unimplemented(fmt::format(
          "{}: increment format version {} is newer than this lakedump reads ({})", what,
          j.at("format_version").get<int>(), kIncrementFormatVersion));
    }
    IncrementManifest m;
    m.sequence = j.at("sequence").get<int>();
    m.increment_id = j.at("increment_id").get<std::string>();
    m.base_dump_id = j.at("base_dump_id").get<std::string>();
    if (!j.at("previous_increment_id").is_null()) {
      m.previous_increment_id = j.at("previous_increment_id").get<std::string>();
    }
    m.slot = j.at("slot").get<std::string>();
    m.publication = j.at("publication").get<std::string>();
    m.start_lsn = LsnField(j, "start_lsn");
    m.end_lsn = LsnField(j, "end_lsn");
    if (j.contains("redump_lsn")) m.redump_lsn = LsnField(j, "redump_lsn");
    m.started_at = j.value("started_at", "");
    m.finished_at = j.value("finished_at", "");
    m.seconds = j.value("seconds", 0.0);
    m.transactions = j.value("transactions", uint64_t{0});
    m.changes = j.value("changes", uint64_t{0});
    m.retained_wal_bytes = j.value("retained_wal_bytes", uint64_t{0});
    for (const json& t : j.at("tables")) m.tables.push_back(TableFromJson(t));
    for (const json& f : j.at("change_files")) {
      ChangeFile c;
      c.table = RefOf(f);
      c.key = f.at("key").get<std::string>();
      Status key_ok = ValidateObjectKey(c.key);
      if (!key_ok.ok() || !c.key.starts_with(kChangesFolder)) {
        throw std::runtime_error("bad change file key \"" + c.key + "\"");
      }
      c.rows = f.at("rows").get<uint64_t>();
      c.bytes = f.at("bytes").get<uint64_t>();
      c.xxh64 = f.at("xxh64").get<std::string>();
      c.sha256 = f.value("sha256", "");
      if (c.xxh64.size() != 16 || c.bytes == 0 || (!c.sha256.empty() && c.sha256.size() != 64)) {
        throw std::runtime_error("bad change file entry");
      }
      m.change_files.push_back(std::move(c));
    }
    for (const json& r : j.at("redumped")) {
      m.redumped.push_back(RedumpedTable{RefOf(r), r.value("reason", "")});
    }
    for (const json& r : j.at("dropped")) m.dropped.push_back(RefOf(r));
    m.previous_manifest_sha256 = j.value("previous_manifest_sha256", "");
    m.redump_manifest_sha256 = j.value("redump_manifest_sha256", "");
    m.written_to = j.value("written_to", "");
    m.escaped_column_names = j.value("escaped_column_names", false);
    if (m.end_lsn < m.start_lsn || m.sequence < 1) throw std::runtime_error("bad sequence or LSNs");
    return m;
  } catch (const std::exception& e) {
    return Status::Corruption(fmt::format("{}: not a valid increment manifest: {}", what, e.what()));
  }
}

Result<std::vector<IncrementManifest>> ReadIncrements(ObjectStore& store,
                                                      const DumpManifest& base) {
  LD_ASSIGN_OR_RETURN(std::vector<ObjectInfo> objects, store.List(kIncrementsFolder));
  std::map<int, bool> folders;  // sequence -> has a manifest
  for (const ObjectInfo& o : objects) {
    const std::string_view rest = std::string_view(o.key).substr(kIncrementsFolder.size());
    const size_t slash = rest.find('/');
    if (slash != 6) continue;
    int seq = 0;
    bool digits = true;
    for (char c : rest.substr(0, 6)) {
      if (c < '0' || c > '9') digits = false;
      else seq = seq * 10 + (c - '0');
    }
    if (!digits || seq < 1) continue;
    bool& has = folders[seq];
    if (rest.substr(slash + 1) == kManifestKey) has = true;
  }
  std::vector<IncrementManifest> out;
  for (auto it = folders.begin(); it != folders.end(); ++it) {
    const auto [seq, has_manifest] = *it;
    if (!has_manifest) {
      if (std::next(it) == folders.end()) break;  // the one that never committed
      return Status::Corruption(fmt::format(
          "increment {} of {} has no _manifest.json but later ones exist: the chain is broken",
          seq, store.Describe()));
    }
    const std::string key = IncrementPrefix(seq) + std::string(kManifestKey);
    LD_ASSIGN_OR_RETURN(std::string text, store.GetObject(key, kMaxMetadataBytes));
    LD_ASSIGN_OR_RETURN(IncrementManifest m, ParseIncrementManifest(text, key));
    m.manifest_sha256 = Sha256Hex(text);
    const std::string expected_previous = out.empty() ? "" : out.back().increment_id;
    if (m.sequence != seq || seq != static_cast<int>(out.size()) + 1 ||
        m.base_dump_id != base.dump_id || m.previous_increment_id != expected_previous ||
        (!out.empty() && m.start_lsn != out.back().end_lsn)) {
      return Status::Corruption(fmt::format(
          "{} does not follow the increment before it (sequence {}, base {}, previous {}): the "
          "chain of increments is broken",
          key, m.sequence, m.base_dump_id,
          m.previous_increment_id.empty() ? "none" : m.previous_increment_id));
    }
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace lakedump
