// Verify: checks a committed dump against its store, without trusting it.
//
//   - _manifest.json: present, JSON, a lakedump dump, a format version this build reads;
//     its totals equal the sum of its tables.
//   - every _table.json the manifest lists: present, parses, names the same table, and its
//     rows/files/bytes equal the manifest's summary.
//   - every data file: listed under the dump root with the recorded size; XXH64 of its bytes
//     equals the recorded one; its Parquet footer (read with ranged reads) parses, holds the
//     recorded row count and the recorded schema (names, types, nullability).
//   - deep: every page of every file is decoded and the rows counted.
//   - signature (with VerifyOptions::signing_key): _manifest.sig, and the SHA-256 of every
//     _table.json and data file; _manifest.sig is claimed by the dump either way.
//   - deep: each _table.json's bytes against the XXH64 its manifest entry records.
//   - strays: every object under the dump root that neither the manifest nor a table claims,
//     but for what the journal of another run names (warnings, lake/run_journal.h).
//     Temp files of writes in progress never show up (the local store hides ".tmp-" names from
//     List, S3 multipart uploads are not objects until completed), so any listed object that is
//     not claimed is reported: the dump owns its destination (--if-exists overwrite deletes them).
//
// Every problem found is reported (not just the first). Files are checked in parallel; memory is
// bounded by `parallelism` x (one 8 MiB hash buffer, or one footer plus one row group's column
// chunks and one batch in --deep), and in --deep every decompression buffer draws from one
// budget of decompression_memory bytes.
//
// Verify() is a free function; the report is a value. Thread-safe with respect to the store.
#pragma once

#include <cstdint>
#include <stop_token>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "format/parquet/parquet_reader.h"
#include "store/object_store.h"

namespace lakedump {

struct VerifyOptions {
  bool deep = false;     // decode every page of every file
  int parallelism = 4;   // files checked at once (>= 1)
  size_t batch_rows = 8192;
  // --deep: one budget for the decompression buffers of every file decoded at once
  // (ParquetReaderOptions::budget); a row group declaring more is a "data" problem.
  uint64_t decompression_memory = kDefaultDecompressionMemory;
  std::stop_token stop;  // cancels the run (Verify returns Cancelled)
  // --require-signature's key (never printed): the dump must be signed with it
  // (dump/signature.h): _manifest.sig matches _manifest.json, every _table.json and data file
  // matches its recorded SHA-256 (every file is read whole, as for XXH64). Problems of kind
  // "signature" otherwise.
  std::string signing_key;
};

// One problem: the object concerned, what is wrong, and what was expected vs found (either may
// be empty when it does not apply).
struct VerifyProblem {
  std::string key;       // relative to the dump root
  std::string kind;      // manifest, table-manifest, missing, size, checksum, footer, rows,
                         // schema, data, stray, duplicate, unreadable
  std::string message;   // one line: what is wrong (and what to do where it helps)
  std::string expected;
  std::string found;

  // "KEY: MESSAGE (expected E, found F)".
  std::string ToString() const;
};

struct VerifyReport {
  std::string location;   // the store's Describe()
  std::string dump_id;    // empty when the manifest could not be read
  // Where and when the dump was written, as its manifest says (signed dumps record where:
  // inside what is signed, so a dump copied elsewhere or replayed later shows it).
  std::string written_to;
  std::string written_at;
  // Every table read from one snapshot of the source (false: --no-snapshot, or a resume that
  // kept tables of earlier runs; ManifestIsOneSnapshot).
  bool one_snapshot = true;
  bool deep = false;
  uint64_t tables = 0;    // table manifests checked
  uint64_t files = 0;     // data files checked
  uint64_t bytes = 0;     // bytes hashed
  uint64_t rows = 0;      // rows in checked footers (decoded rows with deep)
  double seconds = 0;
  std::vector<VerifyProblem> problems;  // sorted by key, then kind
  // Not problems of the committed dump: objects of another run (its journal names them), a
  // _table.json whose manifest entry records no hash (--deep, an older dump).
  std::vector<std::string> warnings;

  bool ok() const { return problems.empty(); }
};

// Runs every check. An error Status only when the check itself could not run (listing the store
// failed, cancelled); everything wrong with the dump is a problem in the report.
Result<VerifyReport> Verify(ObjectStore& store, const VerifyOptions& options = {});

nlohmann::json ToJson(const VerifyReport& report);

}  // namespace lakedump
