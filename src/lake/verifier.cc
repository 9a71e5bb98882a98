#include "lake/verifier.h"

#include "lake/increment_verify.h"
#include "lake/incremental_state.h"

#include "lake/iceberg_layout.h"
#include "lake/iceberg_snapshot_objects.h"
#include "lake/large_objects.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <set>

#include "base/checksum.h"
#include "base/sha256.h"
#include "base/thread_pool.h"
#include "lake/manifest.h"
#include "lake/no_snapshot.h"
#include "lake/schema_archive.h"
#include "lake/object_checksum.h"
#include "lake/object_keys.h"
#include "lake/run_journal.h"
#include "lake/signature.h"
#include "format/parquet/parquet_reader.h"
#include "table/row_batch.h"

namespace lakedump {
namespace {

// Problems found by concurrent file checks. Thread-safe.
class Problems {
 public:
  void Add(std::string key, std::string kind, std::string message, std::string expected = {},
           std::string found = {}) {
    std::lock_guard<std::mutex> lock(mu_);
    list_.push_back(VerifyProblem{std::move(key), std::move(kind), std::move(message),
                                  std::move(expected), std::move(found)});
  }
  // Something to say that is not wrong with the committed dump.
  void Warn(std::string warning) {
    std::lock_guard<std::mutex> lock(mu_);
    warnings_.push_back(std::move(warning));
  }
  std::vector<std::string> TakeWarnings() {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<std::string> out = std::move(warnings_);
    std::sort(out.begin(), out.end());
    return out;
  }
  std::vector<VerifyProblem> Take() {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<VerifyProblem> out = std::move(list_);
    std::stable_sort(out.begin(), out.end(), [](const VerifyProblem& a, const VerifyProblem& b) {
      return a.key < b.key;
    });
    return out;
  }

 private:
  std::mutex mu_;
  std::vector<VerifyProblem> list_;  // guarded by mu_
  std::vector<std::string> warnings_;  // guarded by mu_
};

struct Counters {
  std::atomic<uint64_t> files{0};
  std::atomic<uint64_t> bytes{0};
  std::atomic<uint64_t> rows{0};
  MemoryBudget* decompression = nullptr;  // every file's decompression buffers (--deep)
};

// One data file to check, with what its table recorded.
struct FileCheck {
  DataFile file;
  const Schema* schema = nullptr;  // the table's recorded schema
  std::optional<uint64_t> listed_size;
};

std::string DescribeColumn(const Column& c) {
  return fmt::format("\"{}\" {}{}", c.name, c.type.ToString(), c.nullable ? "" : " not null");
}

// Empty when the file's schema equals the recorded one (names, types, nullability; the source
// type is not stored in Parquet).
void CompareSchema(const std::string& key, const Schema& recorded, const Schema& found,
                   Problems* problems) {
  if (recorded.num_columns() != found.num_columns()) {
    problems->Add(key, "schema", "the file's column count differs from its table's _table.json",
                  fmt::format("{} columns", recorded.num_columns()),
                  fmt::format("{} columns", found.num_columns()));
    return;
  }
  for (size_t i = 0; i < recorded.num_columns(); ++i) {
    const Column& r = recorded.column(i);
    const Column& f = found.column(i);
    if (r.name != f.name || !(r.type == f.type) || r.nullable != f.nullable) {
      problems->Add(key, "schema",
                    fmt::format("column {} differs from its table's _table.json", i + 1),
                    DescribeColumn(r), DescribeColumn(f));
    }
  }
}

// Checks the file's checksum and signature against its _table.json entry (its size is
// checked by the caller); false when it cannot be read.
bool CheckFileBytes(ObjectReader& r, const DataFile& f, uint64_t size,
                    const VerifyOptions& options, Problems* problems, Counters* counters) {
  const bool signature = !options.signing_key.empty();
  if (size == f.bytes) {
    auto digest = HashObjectDigests(r, size, signature);
    if (!digest.ok()) {
      problems->Add(f.key, "unreadable", digest.status().message());
      return false;
    }
    counters->bytes += size;
    if (digest->xxh64 != f.xxh64) {
      problems->Add(f.key, "checksum", "XXH64 of the data file differs from the recorded one",
                    f.xxh64, digest->xxh64);
    }
    if (signature && !ConstantTimeEquals(digest->sha256, f.sha256)) {
      problems->Add(f.key, "signature",
                    f.sha256.empty() ? "the signed _table.json records no SHA-256 for it"
                                     : "altered after the dump: its SHA-256 differs from the "
                                       "signed one",
                    f.sha256.empty() ? "-" : f.sha256, digest->sha256);
    }
  } else if (signature) {
    problems->Add(f.key, "signature", "altered after the dump: its size differs from the signed one");
  }
  return true;
}

// --deep: decodes every row of the file.
void DecodeFile(ParquetReader& p, const DataFile& f, const VerifyOptions& options,
                Problems* problems, Counters* counters) {
  RowBatch batch;
  uint64_t decoded = 0;
  while (!options.stop.stop_requested()) {
    Status s = p.Next(std::max<size_t>(1, options.batch_rows), &batch);
    if (!s.ok()) {
      problems->Add(f.key, "data", fmt::format("{} (after {} good rows)", s.message(), decoded));
      return;
    }
    if (batch.num_rows() == 0) break;
    decoded += batch.num_rows();
  }
  if (options.stop.stop_requested()) return;
  counters->rows += decoded;
  if (decoded != p.num_rows()) {
    problems->Add(f.key, "rows", "decoded rows differ from the Parquet footer's row count",
                  fmt::format("{} rows", p.num_rows()), fmt::format("{} rows", decoded));
  }
}

void CheckFile(ObjectStore& store, const FileCheck& job, const VerifyOptions& options,
               Problems* problems, Counters* counters) {
  const DataFile& f = job.file;
  if (!job.listed_size.has_value()) {
    problems->Add(f.key, "missing", "data file listed in its _table.json is not in the store");
    return;
  }
  counters->files += 1;
  const uint64_t size = *job.listed_size;
  if (size != f.bytes) {
    problems->Add(f.key, "size",
                  size < f.bytes ? "data file is shorter than recorded (truncated?)"
                                 : "data file is longer than recorded",
                  fmt::format("{} bytes", f.bytes), fmt::format("{} bytes", size));
  }
  auto reader = store.NewReader(f.key);
  if (!reader.ok()) {
    problems->Add(f.key, "unreadable", reader.status().message());
    return;
  }
  ObjectReader& r = **reader;
  if (!CheckFileBytes(r, f, size, options, problems, counters)) return;
  ParquetReaderOptions ro;
  ro.name = f.key;
  ro.budget = counters->decompression;
  auto parquet = ParquetReader::Open(
      r.size(),
      [&r](uint64_t offset, uint64_t len, std::string* out) { return r.ReadAt(offset, len, out); },
      ro);
  if (!parquet.ok()) {
    problems->Add(f.key, "footer", parquet.status().message());
    return;
  }
  ParquetReader& p = **parquet;
  const bool rows_match = p.num_rows() == f.rows;
  if (!rows_match) {
    problems->Add(f.key, "rows", "the Parquet footer's row count differs from _table.json",
                  fmt::format("{} rows", f.rows), fmt::format("{} rows", p.num_rows()));
  }
  CompareSchema(f.key, *job.schema, p.schema(), problems);
  // A file that disagrees with its _table.json is not decoded: its footer may claim any
  // number of rows, and the problem is already reported.
  if (!options.deep || !rows_match) {
    counters->rows += p.num_rows();
    return;
  }
  DecodeFile(p, f, options, problems, counters);
}

bool ReadManifest(ObjectStore& store, const VerifyOptions& options, Problems* problems,
                  DumpManifest* out, Status* error) {
  const std::string key(kManifestKey);
  auto text = store.GetObject(key, kMaxMetadataBytes);
  if (!text.ok()) {
    if (text.status().code() == Code::kNotFound) {
      problems->Add(key, "manifest",
                    "missing: not a committed dump (unfinished or interrupted, or the wrong "
                    "location)");
    } else if (text.status().code() == Code::kCorruption) {  // e.g. too large to be ours
      problems->Add(key, "manifest", std::string(text.status().message()));
    } else {
      *error = text.status().WithContext(key);
    }
    return false;
  }
  if (!options.signing_key.empty()) {
    Status s = CheckManifestSignature(store, options.signing_key, *text);
    if (s.code() == Code::kPermissionDenied) {
      problems->Add(std::string(kSignatureKey), "signature", std::string(s.message()));
    } else if (!s.ok()) {
      *error = s;
      return false;
    }
  }
  auto parsed = ParseDumpManifest(*text, key);
  if (!parsed.ok()) {
    std::string message(parsed.status().message());
    if (message.rfind(key + ": ", 0) == 0) message.erase(0, key.size() + 2);
    problems->Add(key, "manifest", message);
    return false;
  }
  *out = std::move(parsed).value();
  return true;
}

void CheckTotals(const DumpManifest& m, Problems* problems) {
  uint64_t rows = 0, files = 0, bytes = 0;
  for (const TableSummary& t : m.tables) {
    rows += t.rows;
    files += t.files;
    bytes += t.bytes;
  }
  const std::string key(kManifestKey);
  auto check = [&](const char* what, uint64_t total, uint64_t sum) {
    if (total != sum) {
      problems->Add(key, "manifest",
                    fmt::format("totals.{} differs from the sum of its tables", what),
                    std::to_string(sum), std::to_string(total));
    }
  };
  check("rows", m.total_rows, rows);
  check("files", m.total_files, files);
  check("bytes", m.total_bytes, bytes);
}

// Compares a table's _table.json with its summary in _manifest.json.
void CheckTable(const TableSummary& s, const TableManifest& t, Problems* problems) {
  if (t.table != s.table) {
    problems->Add(s.key, "table-manifest", "names another table than _manifest.json says",
                  s.table.QualifiedName(), t.table.QualifiedName());
  }
  auto check = [&](const char* what, uint64_t summary, uint64_t table) {
    if (summary != table) {
      problems->Add(s.key, "table-manifest",
                    fmt::format("{} differ from the table's entry in _manifest.json", what),
                    fmt::format("{} {}", summary, what), fmt::format("{} {}", table, what));
    }
  };
  if (!s.run_id.empty() && s.run_id != t.run_id) {
    problems->Add(s.key, "table-manifest",
                  "was written by another run than the one _manifest.json committed",
                  "run " + s.run_id, "run " + t.run_id);
  }
  check("rows", s.rows, t.rows);
  check("files", s.files, t.files.size());
  check("bytes", s.bytes, t.bytes);
  uint64_t bytes = 0;
  for (const DataFile& f : t.files) bytes += f.bytes;
  if (bytes != t.bytes) {
    problems->Add(s.key, "table-manifest", "bytes differ from the sum of its files",
                  fmt::format("{} bytes", bytes), fmt::format("{} bytes", t.bytes));
  }
}

// The dump's objects, and those its manifests account for.
struct Claims {
  std::vector<ObjectInfo> listing;
  std::map<std::string, uint64_t> listed;  // key -> size
  std::set<std::string> claimed;
  std::vector<TableManifest> tables;  // kept alive: file checks point at their schemas
};

// --deep: the _table.json's bytes against the XXH64 its manifest entry records (a dump of an
// older lakedump records none: a warning).
void CheckTableJsonHash(const TableSummary& s, std::string_view text, Problems* problems) {
  if (s.table_json_xxh64.empty()) {
    problems->Warn(fmt::format("{}: the manifest records no hash of it (a dump written before "
                               "lakedump recorded one): not checked against an edit",
                               s.key));
    return;
  }
  const std::string found = Xxh64Hex(text);
  if (found != s.table_json_xxh64) {
    problems->Add(s.key, "table-manifest",
                  "altered after the dump: its XXH64 differs from the one _manifest.json records",
                  s.table_json_xxh64, found);
  }
}

// The _table.json of `s`: nullopt when it is a problem of the dump (recorded), an error
// when the store failed.
Result<std::optional<TableManifest>> ReadTable(ObjectStore& store, const VerifyOptions& options,
                                               const TableSummary& s, Problems* problems) {
  auto text = store.GetObject(s.key);
  Result<TableManifest> t =
      text.ok() ? ParseTableManifest(*text, s.key) : Result<TableManifest>(text.status());
  if (text.ok() && !options.signing_key.empty()) {
    const std::string found = Sha256Hex(*text);
    if (s.table_json_sha256.empty() || !ConstantTimeEquals(found, s.table_json_sha256)) {
      problems->Add(s.key, "signature",
                    s.table_json_sha256.empty()
                        ? "the signed manifest records no SHA-256 for it"
                        : "altered after the dump: its SHA-256 differs from the signed one",
                    s.table_json_sha256.empty() ? "-" : s.table_json_sha256, found);
    }
  }
  if (text.ok() && options.deep) CheckTableJsonHash(s, *text, problems);
  if (t.ok()) return std::optional<TableManifest>(std::move(t).value());
  const Code code = t.status().code();
  if (code == Code::kUnavailable || code == Code::kIOError || code == Code::kPermissionDenied ||
      code == Code::kCancelled) {
    return t.status().WithContext(s.key);  // the store failed, not the dump
  }
  if (code == Code::kNotFound) {
    problems->Add(s.key, "table-manifest",
                  fmt::format("missing: table {} is listed in _manifest.json but its "
                              "_table.json is gone",
                              s.table.QualifiedName()));
  } else {  // Corruption, Unimplemented (newer version), InvalidArgument (a bad key)
    std::string message(t.status().message());
    if (message.rfind(s.key + ": ", 0) == 0) message.erase(0, s.key.size() + 2);
    problems->Add(s.key, "table-manifest", message);
  }
  return std::optional<TableManifest>();
}

// Reads and checks the _table.json of every table into claims->tables.
Status ReadTables(ObjectStore& store, const VerifyOptions& options, const DumpManifest& manifest,
                  Claims* claims, Problems* problems, VerifyReport* report) {
  claims->tables.reserve(manifest.tables.size());
  for (const TableSummary& s : manifest.tables) {
    if (options.stop.stop_requested()) return Status::Cancelled("verify interrupted");
    if (!claims->claimed.insert(s.key).second) {
      problems->Add(s.key, "duplicate", "listed twice in _manifest.json");
      continue;
    }
    LD_ASSIGN_OR_RETURN(std::optional<TableManifest> t, ReadTable(store, options, s, problems));
    if (!t) continue;
    report->tables += 1;
    CheckTable(s, *t, problems);
    claims->tables.push_back(std::move(*t));
  }
  return Status::OK();
}

// Claims the tables' data files; returns the checks of those claimed once.
std::vector<FileCheck> ClaimDataFiles(Claims* claims, Problems* problems) {
  std::vector<FileCheck> jobs;
  for (const TableManifest& t : claims->tables) {
    for (const DataFile& f : t.files) {
      if (!claims->claimed.insert(f.key).second) {
        problems->Add(f.key, "duplicate", "claimed by more than one file entry");
        continue;
      }
      FileCheck job{f, &t.schema, std::nullopt};
      if (auto it = claims->listed.find(f.key); it != claims->listed.end()) {
        job.listed_size = it->second;
      }
      jobs.push_back(std::move(job));
    }
  }
  return jobs;
}

// The schema archive: size and checksum as the manifest records them.
Status ClaimSchemaArchive(ObjectStore& store, const DumpManifest& manifest, Claims* claims,
                          Problems* problems) {
  auto entry = ParseSchemaArchiveEntry(manifest.schema);
  if (!entry.ok()) {
    problems->Add(std::string(kManifestKey), "manifest", std::string(entry.status().message()));
    return Status::OK();
  }
  if (entry->key.empty()) return Status::OK();
  claims->claimed.insert(entry->key);
  auto archive = ReadSchemaArchive(store, *entry);
  if (!archive.ok()) {
    const Code code = archive.status().code();
    if (code != Code::kCorruption) return archive.status();
    problems->Add(entry->key, "schema-archive", std::string(archive.status().message()));
  }
  return Status::OK();
}

// Claims what the history's snapshots read, whatever run wrote it: snapshots of increments
// and compactions share files of runs whose snapshots expired. What does not read is left
// to the checks above (the current snapshot's) and to the sweep.
void ClaimSnapshotObjects(ObjectStore& store, const TableRef& table,
                          const iceberg::TableHistory& h, Claims* claims) {
  SnapshotObjects objects(&store, table);
  std::set<std::string> read;
  for (const auto& s : h.metadata["snapshots"]) {
    Status added = objects.Add(s, &read);  // what does not read: the checks above say
    (void)added;
  }
  for (const std::string& k : read) {
    if (claims->listed.count(k)) claims->claimed.insert(k);
  }
}

// The large objects' files: each claimed, and its size and checksums as the manifest records
// them (read in chunks).
Status ClaimLargeObjects(ObjectStore& store, const DumpManifest& manifest, Claims* claims,
                         Problems* problems) {
  auto entries = ParseLargeObjects(manifest.schema);
  if (!entries.ok()) {
    problems->Add(std::string(kManifestKey), "manifest", std::string(entries.status().message()));
    return Status::OK();
  }
  for (const LargeObjectEntry& e : *entries) {
    claims->claimed.insert(e.key);
    Status read = ReadLargeObjectChecked(store, e, [](std::string_view) { return Status::OK(); });
    if (read.code() != Code::kInvalidArgument && !read.ok()) return read;
    if (!read.ok()) {
      problems->Add(e.key, "large-object", std::string(read.message()));
    }
  }
  return Status::OK();
}

// Claims one table's Iceberg metadata, which must be there; returns what its history
// keeps (nullopt when its metadata does not open).
Result<std::optional<IcebergTableKeep>> ClaimIcebergTable(ObjectStore& store,
                                                          const TableManifest& t,
                                                          Claims* claims, Problems* problems) {
  for (const std::string& k : IcebergMetadataKeys(t)) {
    claims->claimed.insert(k);
    if (!claims->listed.count(k)) {
      problems->Add(k, "missing",
                    fmt::format("Iceberg metadata of table {} is missing", t.table.QualifiedName()));
    }
  }
  // Its metadata files (v<N>.metadata.json) are its own whatever the hint says.
  const std::string metadata_dir = TablePrefix(t.table) + "metadata/";
  for (const ObjectInfo& o : claims->listing) {
    if (o.key.starts_with(metadata_dir) && o.key.ends_with(".metadata.json") &&
        o.key.find('/', metadata_dir.size()) == std::string::npos) {
      claims->claimed.insert(o.key);
    }
  }
  const std::string hint = IcebergHintKey(t.table);
  claims->claimed.insert(hint);
  LD_ASSIGN_OR_RETURN(IcebergHistoryRead read, ReadIcebergHistory(store, t.table));
  if (!read.history) {
    problems->Add(hint, claims->listed.count(hint) ? "iceberg-metadata" : "missing",
                  fmt::format("Iceberg metadata of table {} {}", t.table.QualifiedName(),
                              read.problem.empty() ? "is missing"
                                                   : "does not open: " + read.problem));
    return std::optional<IcebergTableKeep>();
  }
  const iceberg::TableHistory& h = *read.history;
  std::string current_run = "?";
  for (size_t i = 0; i < h.snapshot_ids.size(); ++i) {
    if (h.snapshot_ids[i] == h.current_snapshot_id) current_run = h.run_ids[i];
  }
  // An increment continues the table (docs/iceberg.md, "Increments"): its snapshot is current.
  if (current_run != t.run_id && IcebergIncrementOf(h) == 0) {
    // An overwrite that failed after its manifest leaves the earlier dump's metadata.
    problems->Add(IcebergMetadataFileKey(t.table, h.version), "iceberg-metadata",
                  fmt::format("Iceberg metadata of table {} is of run {}, not of the "
                              "table's run {} (dump it again with --if-exists resume)",
                              t.table.QualifiedName(), current_run, t.run_id));
  }
  ClaimSnapshotObjects(store, t.table, h, claims);
  return std::optional<IcebergTableKeep>(KeepOfHistory(t.table, h));
}

// --table-format iceberg: each table's Iceberg metadata is claimed, and must be there;
// the objects of its earlier snapshots (its history) are claimed too.
Status ClaimIcebergMetadata(ObjectStore& store, Claims* claims, Problems* problems) {
  std::vector<IcebergTableKeep> histories;
  for (const TableManifest& t : claims->tables) {
    LD_ASSIGN_OR_RETURN(std::optional<IcebergTableKeep> keep,
                        ClaimIcebergTable(store, t, claims, problems));
    if (keep) histories.push_back(std::move(*keep));
  }
  for (const IcebergTableKeep& keep : histories) {
    for (const ObjectInfo& o : claims->listing) {
      if (keep.KeepsObject(o.key)) claims->claimed.insert(o.key);
    }
  }
  return Status::OK();
}

// Runs the file checks on options.parallelism threads.
Status CheckFiles(ObjectStore& store, const std::vector<FileCheck>& jobs,
                  const VerifyOptions& options, Problems* problems, Counters* counters) {
  const size_t n = static_cast<size_t>(std::max(1, options.parallelism));
  ThreadPool pool(n);
  TaskGroup group(&pool, n, options.stop);
  for (const FileCheck& job : jobs) {
    const bool spawned =
        group.Spawn([&store, &job, &options, problems, counters](std::stop_token) {
          CheckFile(store, job, options, problems, counters);
          return Status::OK();
        });
    if (!spawned) break;
  }
  Status s = group.Wait();
  if (!s.ok() || options.stop.stop_requested()) return Status::Cancelled("verify interrupted");
  return Status::OK();
}

// Every listed object the manifests do not claim: what the journal of another run names (a
// run that failed or is in progress), and that run's journal, is a warning, not a problem of
// the committed dump; anything else is a stray.
Status ReportUnclaimed(ObjectStore& store, const Claims& claims, bool incremental,
                       Problems* problems) {
  std::vector<ObjectInfo> unclaimed;
  for (const ObjectInfo& o : claims.listing) {
    if (incremental && o.key.starts_with(kIncrementsFolder)) continue;
    if (!claims.claimed.count(o.key)) unclaimed.push_back(o);
  }
  if (unclaimed.empty()) return Status::OK();
  LD_ASSIGN_OR_RETURN(DestinationOwnership owners,
                      DestinationOwnership::Read(store, claims.listing));
  std::map<std::string, uint64_t> per_run;  // run -> objects
  for (const ObjectInfo& o : unclaimed) {
    std::string run = JournalRunOf(o.key);
    if (run.empty()) run = owners.RunClaiming(o.key);
    if (!run.empty()) {
      per_run[run] += 1;
      continue;
    }
    problems->Add(o.key, "stray", "object under the dump is not claimed by its manifests", "-",
                  fmt::format("{} bytes", o.size));
  }
  for (const auto& [run, n] : per_run) {
    problems->Warn(fmt::format(
        "{} objects of run {} (its journal names them), not part of the committed dump: a "
        "failed or running dump; the next --if-exists resume or overwrite deletes them",
        n, run));
  }
  return Status::OK();
}

}  // namespace

std::string VerifyProblem::ToString() const {
  std::string out = fmt::format("{}: {}", key, message);
  if (!expected.empty() || !found.empty()) {
    out += fmt::format(" (expected {}, found {})", expected.empty() ? "-" : expected,
                       found.empty() ? "-" : found);
  }
  return out;
}

Result<VerifyReport> Verify(ObjectStore& store, const VerifyOptions& options) {
  const auto started = std::chrono::steady_clock::now();
  VerifyReport report;
  report.location = store.Describe();
  report.deep = options.deep;
  Problems problems;
  auto finish = [&]() {
    report.problems = problems.Take();
    report.warnings = problems.TakeWarnings();
    report.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return report;
  };

  DumpManifest manifest;
  Status error;
  if (!ReadManifest(store, options, &problems, &manifest, &error)) {
    if (!error.ok()) return error;
    return finish();
  }
  report.dump_id = manifest.dump_id;
  report.written_to = manifest.written_to;
  report.written_at = manifest.finished_at;
  report.one_snapshot = ManifestIsOneSnapshot(manifest);
  CheckTotals(manifest, &problems);

  Claims claims;
  LD_ASSIGN_OR_RETURN(claims.listing, store.List(""));
  for (const ObjectInfo& o : claims.listing) claims.listed.emplace(o.key, o.size);
  // The lease of a run in progress is not part of any dump.
  claims.claimed = {std::string(kManifestKey), std::string(kSignatureKey),
                    std::string(kLeaseKey)};
  LD_RETURN_IF_ERROR(ReadTables(store, options, manifest, &claims, &problems, &report));
  const std::vector<FileCheck> jobs = ClaimDataFiles(&claims, &problems);
  LD_RETURN_IF_ERROR(ClaimSchemaArchive(store, manifest, &claims, &problems));
  LD_RETURN_IF_ERROR(ClaimLargeObjects(store, manifest, &claims, &problems));
  if (manifest.options.is_object() && manifest.options.value("table_format", "") == "iceberg") {
    LD_RETURN_IF_ERROR(ClaimIcebergMetadata(store, &claims, &problems));
  }
  // The increments of an incremental dump are checked on their own (increment_verify.h).
  const bool incremental = !manifest.incremental.is_null();
  if (incremental) {
    auto increments = VerifyIncrements(store, manifest, options);
    if (!increments.ok()) return increments.status();
    for (VerifyProblem& p : increments->problems) {
      problems.Add(p.key, p.kind, p.message, p.expected, p.found);
    }
    report.files += increments->files;
    report.bytes += increments->bytes;
  }
  LD_RETURN_IF_ERROR(ReportUnclaimed(store, claims, incremental, &problems));

  Counters counters;
  MemoryBudget decompression(options.decompression_memory);
  counters.decompression = &decompression;
  LD_RETURN_IF_ERROR(CheckFiles(store, jobs, options, &problems, &counters));
  report.files += counters.files;
  report.bytes += counters.bytes;
  report.rows = counters.rows;
  return finish();
}

nlohmann::json ToJson(const VerifyReport& r) {
  nlohmann::json warnings = r.warnings;
  nlohmann::json problems = nlohmann::json::array();
  for (const VerifyProblem& p : r.problems) {
    nlohmann::json j = {{"key", p.key}, {"kind", p.kind}, {"message", p.message}};
    if (!p.expected.empty()) j["expected"] = p.expected;
    if (!p.found.empty()) j["found"] = p.found;
    problems.push_back(std::move(j));
  }
  return {{"status", r.ok() ? "ok" : "problems"},
          {"location", r.location},
          {"dump_id", r.dump_id},
          {"written_to", r.written_to},
          {"written_at", r.written_at},
          {"one_snapshot", r.one_snapshot},
          {"deep", r.deep},
          {"tables", r.tables},
          {"files", r.files},
          {"bytes", r.bytes},
          {"rows", r.rows},
          {"seconds", r.seconds},
          {"problems", problems},
          {"warnings", warnings}};
}

}  // namespace lakedump
