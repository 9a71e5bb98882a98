#include "lake/run_journal.h"

#include <fmt/format.h>

#include <algorithm>

#include "lake/dump_lease.h"
#include "lake/large_objects.h"
#include "lake/metadata_io.h"
#include "lake/object_keys.h"
#include "store/object_key.h"

namespace lakedump {
namespace {

constexpr std::string_view kJournalNamePrefix = "journal-";
constexpr std::string_view kJournalNameSuffix = ".json";
constexpr std::string_view kPlanKey = "_plan.json";
constexpr std::string_view kShardsPrefix = "_shards/";
constexpr std::string_view kIncrementsPrefix = "_increments/";
constexpr std::string_view kSignatureName = "_manifest.sig";

std::vector<std::string_view> Segments(std::string_view key) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (;;) {
    const size_t slash = key.find('/', start);
    if (slash == std::string_view::npos) {
      out.push_back(key.substr(start));
      return out;
    }
    out.push_back(key.substr(start, slash - start));
    start = slash + 1;
  }
}

bool AllDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool AllLowerHex(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
  });
}

// Top-level folders of lakedump's bookkeeping, never a table's schema folder for a journal.
bool IsReservedTopFolder(std::string_view segment) {
  return segment == "_runs" || segment == "_shards" || segment == "_increments";
}

// A run id, or a sharded dump's worker attempt "<run id>-s<I>-<8 hex digits>".
bool IsRunOrAttemptId(std::string_view id) {
  if (IsRunId(id)) return true;
  if (id.size() < 25 + 2 + 1 + 1 + 8 || !IsRunId(id.substr(0, 25)) || id.substr(25, 2) != "-s") {
    return false;
  }
  const std::string_view rest = id.substr(27);
  const size_t dash = rest.find('-');
  return dash != std::string_view::npos && AllDigits(rest.substr(0, dash)) &&
         rest.size() - dash - 1 == 8 && AllLowerHex(rest.substr(dash + 1));
}

// The run id in a data file name "part-NNNN-NNNNN-<run>.parquet" ("" when it is none).
std::string_view DataFileRun(std::string_view name) {
  constexpr std::string_view kPrefix = "part-", kSuffix = ".parquet";
  if (!name.starts_with(kPrefix) || !name.ends_with(kSuffix)) return {};
  std::string_view rest = name.substr(kPrefix.size(), name.size() - kPrefix.size() - kSuffix.size());
  for (size_t min_digits : {size_t{4}, size_t{5}}) {
    const size_t dash = rest.find('-');
    if (dash == std::string_view::npos || dash < min_digits || !AllDigits(rest.substr(0, dash))) {
      return {};
    }
    rest = rest.substr(dash + 1);
  }
  return IsRunOrAttemptId(rest) ? rest : std::string_view();
}

// An Iceberg metadata object's name under a table's metadata/ (an Iceberg increment's key
// index "keyindex-<run>.parquet" too).
bool IsIcebergMetadataName(std::string_view name) {
  return name == "version-hint.text" || name.ends_with(".metadata.json") ||
         name.ends_with(".avro") || (name.starts_with("keyindex-") && name.ends_with(".parquet"));
}

// Removes a trailing "<tag><digits>" from *rest; whether there was one.
bool StripNumberedSuffix(std::string_view* rest, std::string_view tag) {
  const size_t at = rest->rfind(tag);
  if (at == std::string_view::npos || at + tag.size() == rest->size() ||
      !AllDigits(rest->substr(at + tag.size()))) {
    return false;
  }
  rest->remove_suffix(rest->size() - at);
  return true;
}

// The run id in an Iceberg increment's data or delete file "inc-NNNNNN-<run>.parquet",
// "inc-NNNNNN-<run>-deletes.parquet", a copy-on-write rewrite "inc-NNNNNN-<run>-cowK.parquet"
// (docs/iceberg.md, "Increments"), or a compaction's "compact-<run>-NNNNN.parquet"
// ("Compaction"); "" when it is none.
std::string_view IcebergIncrementFileRun(std::string_view name) {
  constexpr std::string_view kPrefix = "inc-", kSuffix = ".parquet", kDeletes = "-deletes";
  constexpr std::string_view kCompact = "compact-";
  if (!name.ends_with(kSuffix)) return {};
  if (name.starts_with(kCompact)) {
    std::string_view rest =
        name.substr(kCompact.size(), name.size() - kCompact.size() - kSuffix.size());
    if (!StripNumberedSuffix(&rest, "-")) return {};
    return IsRunId(rest) ? rest : std::string_view();
  }
  if (!name.starts_with(kPrefix)) return {};
  std::string_view rest =
      name.substr(kPrefix.size(), name.size() - kPrefix.size() - kSuffix.size());
  if (rest.ends_with(kDeletes)) {
    rest.remove_suffix(kDeletes.size());
  } else {
    StripNumberedSuffix(&rest, "-cow");
  }
  if (rest.size() < 8 || !AllDigits(rest.substr(0, 6)) || rest[6] != '-') return {};
  return IsRunId(rest.substr(7)) ? rest.substr(7) : std::string_view();
}

// Within a table folder: the path after "<s>/<t>/" is of a shape lakedump writes there, for
// run `run` (any run when empty).
bool TableFolderShape(std::span<const std::string_view> rest, std::string_view run) {
  auto data_file = [&](std::string_view name) {
    const std::string_view of = DataFileRun(name);
    return !of.empty() && (run.empty() || of == run);
  };
  if (rest.size() == 1) {
    const std::string_view name = rest[0];
    if (name == kTableFileName) return true;
    if (name.starts_with("_table-") && name.ends_with(".json")) {
      const std::string_view id = name.substr(7, name.size() - 12);
      return run.empty() ? IsRunId(id) : id == run;
    }
    const std::string_view increment_run = IcebergIncrementFileRun(name);
    if (!increment_run.empty()) return run.empty() || increment_run == run;
    return data_file(name);
  }
  if (rest.size() == 2) {
    if (rest[0] == "metadata") return IsIcebergMetadataName(rest[1]);
    return rest[0].find('=') != std::string_view::npos && data_file(rest[1]);
  }
  return false;
}

bool IsSchemaArchiveKey(std::span<const std::string_view> segs, std::string_view run) {
  if (segs.size() != 2 || segs[0] != "_schema") return false;
  if (segs[1] == "postgres.dump") return true;
  if (!segs[1].starts_with("postgres-") || !segs[1].ends_with(".dump")) return false;
  const std::string_view id = segs[1].substr(9, segs[1].size() - 14);
  return run.empty() ? IsRunId(id) : id == run;
}

// "<s>/<t>/" of a key with at least three segments ("" otherwise).
std::string TableFolderOf(std::string_view key) {
  const size_t first = key.find('/');
  if (first == std::string_view::npos) return {};
  const size_t second = key.find('/', first + 1);
  if (second == std::string_view::npos || second + 1 >= key.size()) return {};
  return std::string(key.substr(0, second + 1));
}

bool IsTableFolder(std::string_view folder) {
  if (!folder.ends_with('/')) return false;
  const std::vector<std::string_view> segs = Segments(folder.substr(0, folder.size() - 1));
  return segs.size() == 2 && !IsReservedTopFolder(segs[0]) &&
         ValidateObjectKey(folder.substr(0, folder.size() - 1)).ok();
}

// A sharded dump's bookkeeping: _shards/<I>/report-<attempt>.json.zst, progress-....
bool IsShardObjectKey(std::string_view key) {
  if (!key.starts_with(kShardsPrefix)) return false;
  const std::vector<std::string_view> segs = Segments(key);
  if (segs.size() != 3 || !AllDigits(segs[1]) || !segs[2].ends_with(".json.zst")) return false;
  return segs[2].starts_with("report-") || segs[2].starts_with("progress-");
}

template <typename T>
Result<T> JsonField(const nlohmann::json& j, const char* name, std::string_view key) {
  if (!j.contains(name)) {
    return Status::Corruption(fmt::format("{}: not a lakedump run journal (no \"{}\")", key, name));
  }
  try {
    return j.at(name).get<T>();
  } catch (const std::exception&) {
    return Status::Corruption(fmt::format("{}: \"{}\" has the wrong type", key, name));
  }
}

}  // namespace

std::string JournalKey(std::string_view run_id, uint64_t seq) {
  return fmt::format("{}{}/{}{:06d}{}", kRunsPrefix, run_id, kJournalNamePrefix, seq,
                     kJournalNameSuffix);
}

std::string JournalRunOf(std::string_view key) {
  if (!key.starts_with(kRunsPrefix)) return {};
  const std::vector<std::string_view> segs = Segments(key);
  if (segs.size() != 3 || !IsRunId(segs[1])) return {};
  const std::string_view name = segs[2];
  if (!name.starts_with(kJournalNamePrefix) || !name.ends_with(kJournalNameSuffix)) return {};
  const std::string_view seq = name.substr(
      kJournalNamePrefix.size(), name.size() - kJournalNamePrefix.size() - kJournalNameSuffix.size());
  return AllDigits(seq) ? std::string(segs[1]) : std::string();
}

bool ClaimableByRun(std::string_view key, std::string_view run_id) {
  if (run_id.empty() || !ValidateObjectKey(key).ok()) return false;
  const std::vector<std::string_view> segs = Segments(key);
  if (IsSchemaArchiveKey(segs, run_id)) return true;
  if (IsLargeObjectKey(key, run_id)) return true;
  if (segs.size() < 3 || IsReservedTopFolder(segs[0])) return false;
  return TableFolderShape(std::span(segs).subspan(2), run_id);
}

bool IsDataFileOfRun(std::string_view key, std::string_view folder, std::string_view run_id) {
  if (run_id.empty() || !key.starts_with(folder)) return false;
  // The run's own, or (a sharded dump's coordinator) one of its workers' attempts.
  auto of_run = [run_id](std::string_view name) {
    const std::string_view run = DataFileRun(name);
    return run == run_id || (run.size() > run_id.size() && run.starts_with(run_id) &&
                             run.substr(run_id.size()).starts_with("-s"));
  };
  const std::vector<std::string_view> rest = Segments(key.substr(folder.size()));
  if (rest.size() == 1) return of_run(rest[0]);
  return rest.size() == 2 && rest[0].find('=') != std::string_view::npos && of_run(rest[1]);
}

std::string SerializeJournalBatch(const JournalBatch& batch) {
  nlohmann::json uploads = nlohmann::json::array();
  for (const auto& [key, id] : batch.uploads) uploads.push_back({{"key", key}, {"upload_id", id}});
  const nlohmann::json j = {{"format", kJournalFormat},
                            {"format_version", 1},
                            {"run_id", batch.run_id},
                            {"seq", batch.seq},
                            {"keys", batch.keys},
                            {"table_folders", batch.table_folders},
                            {"uploads", uploads}};
  // Keys are UTF-8 (object_keys.h); an invalid byte is replaced rather than thrown on.
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

Result<JournalBatch> ParseJournalBatch(std::string_view text, std::string_view key,
                                       size_t* dropped) {
  LD_ASSIGN_OR_RETURN(nlohmann::json j, ParseMetadataJson(text, key));
  if (!j.is_object() || j.value("format", "") != kJournalFormat) {
    return Status::Corruption(fmt::format("{}: not a lakedump run journal", key));
  }
  JournalBatch b;
  LD_ASSIGN_OR_RETURN(b.run_id, JsonField<std::string>(j, "run_id", key));
  LD_ASSIGN_OR_RETURN(b.seq, JsonField<uint64_t>(j, "seq", key));
  if (JournalKey(b.run_id, b.seq) != key) {
    return Status::Corruption(
        fmt::format("{}: a journal of run {} batch {} under another key", key, b.run_id, b.seq));
  }
  size_t bad = 0;
  LD_ASSIGN_OR_RETURN(auto keys, JsonField<std::vector<std::string>>(j, "keys", key));
  for (std::string& k : keys) {
    if (ClaimableByRun(k, b.run_id)) b.keys.push_back(std::move(k)); else ++bad;
  }
  if (j.contains("table_folders")) {
    LD_ASSIGN_OR_RETURN(auto folders, JsonField<std::vector<std::string>>(j, "table_folders", key));
    for (std::string& f : folders) {
      if (IsTableFolder(f)) b.table_folders.push_back(std::move(f)); else ++bad;
    }
  }
  if (j.contains("uploads") && j["uploads"].is_array()) {
    for (const nlohmann::json& u : j["uploads"]) {
      if (!u.is_object() || !u.contains("key") || !u["key"].is_string() ||
          !u.contains("upload_id") || !u["upload_id"].is_string()) {
        ++bad;
        continue;
      }
      std::string k = u["key"].get<std::string>(), id = u["upload_id"].get<std::string>();
      if (ClaimableByRun(k, b.run_id) && !id.empty()) b.uploads.emplace_back(k, id); else ++bad;
    }
  }
  if (dropped != nullptr) *dropped = bad;
  return b;
}

bool RunClaims::Claims(std::string_view key) const {
  if (keys.count(std::string(key)) > 0) return true;
  const std::string folder = TableFolderOf(key);
  return !folder.empty() && table_folders.count(folder) > 0 && IsDataFileOfRun(key, folder, run_id);
}

Result<DestinationOwnership> DestinationOwnership::Read(ObjectStore& store,
                                                        std::vector<ObjectInfo> listing) {
  DestinationOwnership own;
  std::vector<std::string> journals;
  bool manifest_listed = false;
  for (const ObjectInfo& o : listing) {
    if (!JournalRunOf(o.key).empty()) journals.push_back(o.key);
    if (o.key == kManifestKey) manifest_listed = true;
    if (o.key == kLeaseKey || o.key == kPlanKey || IsShardObjectKey(o.key)) {
      own.has_lakedump_objects_ = true;
    }
  }
  std::vector<Result<JournalBatch>> batches(journals.size(), Status::Cancelled("not read"));
  if (!journals.empty()) LD_RETURN_IF_ERROR(ForEachMetadataIo(journals.size(), 8, [&](size_t i) -> Status {
    auto text = store.GetObject(journals[i], kMaxJournalBytes);
    if (!text.ok() && text.status().code() != Code::kCorruption &&
        text.status().code() != Code::kNotFound) {
      return text.status();
    }
    batches[i] = text.ok() ? ParseJournalBatch(*text, journals[i]) : text.status();
    return Status::OK();
  }));
  for (size_t i = 0; i < journals.size(); ++i) {
    const std::string run = JournalRunOf(journals[i]);
    RunClaims& claims = own.runs_[run];
    claims.run_id = run;
    claims.journal_keys.push_back(journals[i]);
    if (!batches[i].ok()) {
      own.warnings_.push_back(fmt::format("ignored run journal {}: {}", journals[i],
                                          batches[i].status().message()));
      continue;
    }
    JournalBatch& b = *batches[i];
    claims.keys.insert(b.keys.begin(), b.keys.end());
    claims.table_folders.insert(b.table_folders.begin(), b.table_folders.end());
    for (auto& [key, id] : b.uploads) claims.uploads[id] = key;
  }
  if (manifest_listed) {
    auto manifest = ReadDumpManifest(store);
    if (manifest.ok()) {
      own.manifest_ = std::move(*manifest);
    } else if (manifest.status().code() != Code::kNotFound) {
      own.warnings_.push_back(std::string(manifest.status().message()));
    }
  }
  if (own.manifest_) {
    own.dump_keys_ = {std::string(kManifestKey), std::string(kSignatureName)};
    for (const TableSummary& t : own.manifest_->tables) {
      own.dump_keys_.insert(t.key);
      const std::string folder = TableFolderOf(t.key);
      if (IsTableFolder(folder)) own.dump_folders_.insert(folder);
    }
    if (own.manifest_->schema.is_object() && own.manifest_->schema.contains("archive") &&
        own.manifest_->schema["archive"].is_object()) {
      own.dump_keys_.insert(own.manifest_->schema["archive"].value("key", ""));
    }
    for (std::string& k : LargeObjectKeys(own.manifest_->schema)) {
      own.dump_keys_.insert(std::move(k));
    }
  }
  std::sort(listing.begin(), listing.end(),
            [](const ObjectInfo& a, const ObjectInfo& b) { return a.key < b.key; });
  own.listing_ = std::move(listing);
  return own;
}

bool DestinationOwnership::OwnedByDump(std::string_view key) const {
  if (!manifest_) return false;
  if (dump_keys_.count(std::string(key)) > 0) return true;
  if (key.starts_with(kIncrementsPrefix) && !manifest_->incremental.is_null()) return true;
  const std::vector<std::string_view> segs = Segments(key);
  if (IsSchemaArchiveKey(segs, "")) return true;
  if (IsLargeObjectKey(key, "")) return true;
  const std::string folder = TableFolderOf(key);
  if (folder.empty() || dump_folders_.count(folder) == 0) return false;
  return TableFolderShape(std::span(segs).subspan(2), "");
}

DestinationOwnership::Owner DestinationOwnership::OwnerOf(std::string_view key) const {
  if (key == kLeaseKey || !JournalRunOf(key).empty() || key == kPlanKey ||
      IsShardObjectKey(key)) {
    return Owner::kLakedump;
  }
  if (key == kManifestKey || OwnedByDump(key)) return Owner::kDump;
  if (!RunClaiming(key).empty()) return Owner::kRun;
  return Owner::kForeign;
}

std::string DestinationOwnership::RunClaiming(std::string_view key) const {
  for (const auto& [run, claims] : runs_) {
    if (claims.Claims(key)) return run;
  }
  return {};
}

std::string DestinationOwnership::RunOfUpload(std::string_view upload_id) const {
  for (const auto& [run, claims] : runs_) {
    if (claims.uploads.count(std::string(upload_id)) > 0) return run;
  }
  return {};
}

std::vector<std::string> DestinationOwnership::Foreign() const {
  std::vector<std::string> out;
  for (const ObjectInfo& o : listing_) {
    if (OwnerOf(o.key) == Owner::kForeign) out.push_back(o.key);
  }
  return out;
}

bool DestinationOwnership::holds_no_dump() const {
  return !manifest_ && runs_.empty() && !has_lakedump_objects_ &&
         std::none_of(listing_.begin(), listing_.end(),
                      [](const ObjectInfo& o) { return o.key == kManifestKey; });
}

Result<std::string> LiveLeaseHolder(ObjectStore& store,
                                    std::chrono::system_clock::time_point now) {
  auto holder = ReadLease(store);
  if (!holder.ok()) {
    if (holder.status().code() == Code::kNotFound) return std::string();
    return holder.status();
  }
  return holder->IsStale(now) ? std::string() : holder->run_id;
}

bool MayRemoveUnfinishedWrite(const DestinationOwnership& own, std::string_view live_run,
                              std::string_view key, std::string_view upload_id, bool old_enough) {
  if (!live_run.empty()) {
    if (key.find(live_run) != std::string_view::npos) return false;
    auto live = own.runs().find(std::string(live_run));
    if (live != own.runs().end() &&
        (live->second.Claims(key) || live->second.uploads.count(std::string(upload_id)) > 0)) {
      return false;
    }
  }
  std::string run = upload_id.empty() ? std::string() : own.RunOfUpload(upload_id);
  if (run.empty()) run = own.RunClaiming(key);
  if (!run.empty()) return run != live_run;
  // A live run journals every key before it writes it: what no journal names is not its.
  return old_enough && own.OwnerOf(key) == DestinationOwnership::Owner::kDump;
}

std::string DescribeForeign(const std::vector<std::string>& foreign) {
  std::string named;
  for (size_t i = 0; i < foreign.size() && i < 3; ++i) {
    named += fmt::format("{}{}", i == 0 ? "" : ", ", foreign[i]);
  }
  return fmt::format("{} object{} that no lakedump run wrote (e.g. {})", foreign.size(),
                     foreign.size() == 1 ? "" : "s", named);
}

}  // namespace lakedump
