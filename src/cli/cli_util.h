// Helpers shared by the command files: error reporting with exit codes,
// opening a source database from a URL or path, and SIGINT/SIGTERM handling.
// Exit codes (docs/dump-format.md): 0 complete, 1 failed, 2 bad usage.
#pragma once

#include <signal.h>

#include <map>
#include <memory>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "cli/cli11_fwd.h"
#include "source/postgres/postgres_database.h"
#include "source/table_source.h"
#include "store/object_store.h"
#include "store/store_options.h"

namespace lakedump::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;
inline constexpr int kExitUsage = 2;

// The exit code for a failed command (docs/dump-format.md, "Exit codes"): 2 for
// bad usage found before any work (InvalidArgument: options, URLs, missing S3
// credentials), 1 for everything else, S3 error replies included (expired or
// wrong credentials, a missing bucket: docs/s3.md).
int ExitCodeForStatus(const Status& status);

// Prints "lakedump: error: <message>" (one line) on stderr and returns `exit_code`.
int PrintError(const Status& status, int exit_code);
// The message alone, on one line (newlines folded), terminal-safe as TerminalSafe() makes it.
std::string OneLine(std::string_view text);
// `text` with every byte that could drive a terminal shown escaped: C0 controls (ESC, CR,
// BEL...), DEL, C1 controls (U+0080-U+009F) and bytes that are not UTF-8 become \xNN, so that
// a name or DDL from a dump cannot hide text (or SQL) from whoever reads it. Newlines and tabs
// are kept when keep_newlines (multi-line DDL), else shown as \x0a / \x09.
std::string TerminalSafe(std::string_view text, bool keep_newlines);
// JSON for --json output: text that is not UTF-8 (a name from a hostile dump, a message
// quoting one) is replaced by U+FFFD instead of throwing. For display only, never metadata.
std::string DisplayJson(const nlohmann::json& j, int indent = -1);

struct SourceOptions {
  bool sqlite_lax_types = false;  // --sqlite-type-mismatch string
  bool sqlite_exact_values = true;  // SqliteOptions::exact_values (off for Iceberg tables)
  int connections = 4;
  // PostgreSQL policies (docs/type-mapping.md); parsed when the source is PostgreSQL.
  std::string pg_numeric = "string";      // --pg-numeric string|double|decimal(38,S)
  std::string pg_infinity = "clamp";      // --pg-infinity clamp|null|error
  std::string pg_numeric_nan = "error";   // --pg-numeric-nan error|null
  bool pg_materialized_views = false;     // --pg-materialized-views
  // dump --incremental's base: the replication slot whose snapshot the dump reads, and the
  // arrays' forms the base decided (PgTypeOptions::known_array_text).
  std::string pg_slot_name;
  std::map<std::string, std::vector<std::string>> pg_known_array_text;
  // --lock-wait-timeout: how long a table's lock waits for a conflicting one ("0": not at
  // all, "forever"); `stop` (the interrupt) ends the wait.
  std::string pg_lock_wait_timeout = "10m";
  std::stop_token stop;
};

// The longest --lock-wait-timeout, in ms (24 h).
inline constexpr int64_t kMaxLockWaitMs = 86'400'000;
// --lock-wait-timeout's value in ms for PostgresOptions::lock_timeout_ms: 0 (NOWAIT), up to
// kMaxLockWaitMs, or kLockWaitForever for "forever". InvalidArgument naming the flag.
Result<int> ParseLockWaitTimeout(const std::string& text);

// The PostgreSQL source options of `options` (InvalidArgument naming a bad flag).
Result<PostgresOptions> PostgresOptionsFrom(const SourceOptions& options);

// postgres://, postgresql:// or a libpq keyword string ("host=... dbname=...").
bool IsPostgresSource(const std::string& source);

// sqlite:///path, sqlite:path, a path to an existing file -> SQLite;
// postgres:// or postgresql:// or a libpq keyword string -> PostgreSQL.
Result<std::unique_ptr<Database>> OpenDatabase(const std::string& source,
                                               const SourceOptions& options);

// The S3 flags every command taking a dump location shares (dump, load).
struct S3Flags {
  std::string endpoint, region, profile;
  std::string addressing;  // "" = the profile's s3.addressing_style, else auto
  int upload_parallelism = 4;
  std::string part_size = "0";
  int max_connections = 16;
  // Timeouts and retries (docs/s3.md), every command.
  std::string connect_timeout = "10s";
  std::string min_rate = "1KiB/s";
  std::string min_rate_window = "30s";
  std::string retry_budget = "60s";
  int max_attempts = 20;
  // Payload checksums, commands that upload.
  bool content_md5 = false;
  std::string checksum = "none";
};
// The number of cores, at least 1 and at most kMaxThreads: the default of -j options.
int DefaultParallelism();

// Registers --endpoint, --region, --profile, --s3-addressing, the timeout and retry
// options (--s3-connect-timeout, --s3-min-rate, --s3-min-rate-window, --s3-retry-budget,
// --s3-max-attempts), and for commands that upload (with_upload) --upload-parallelism,
// --part-size, --max-connections, --s3-content-md5, --s3-checksum. The numeric ones go
// through cli/numeric_option.h (range checked at parse, exit 2).
void AddS3Flags(CLI::App* app, S3Flags* flags, bool with_upload);
// Checks the flags and copies them into *out.
Status ApplyS3Flags(const S3Flags& flags, S3Options* out);
// The timeout and retry part of ApplyS3Flags.
Status ApplyS3RetryFlags(const S3Flags& flags, S3Options* out);

// Opens the store at `url` for a command (dump, load, verify, ls, gc: all go through here, so a
// URL gets the same answer from each), with `flags` applied over `options`. On success sets
// *store and returns kExitOk. Otherwise prints the one error line and returns the exit code:
// kExitUsage for a URL or flag that can never work (not a store URL, s3:// without a bucket, a
// path to a regular file), kExitFailed for a store that cannot be reached or read.
int OpenCommandStore(const std::string& url, const S3Flags& flags, StoreOptions options,
                     std::unique_ptr<ObjectStore>* store);
// The same store as a second, small handle (2 S3 connections) that no interrupt cancels
// (options.stop cleared): for what must still be written after SIGINT/SIGTERM (the lease's
// removal, a worker's progress object). Sets *options_out to the options it was opened with.
int OpenUncancelledStore(const std::string& url, const S3Flags& flags, StoreOptions options,
                         std::unique_ptr<ObjectStore>* store, StoreOptions* options_out = nullptr);

// Turns SIGINT/SIGTERM into a stop request on `source` (from a watcher thread,
// since a signal handler may not touch locks). A second signal exits at once.
// Construct before any other thread starts: it blocks the signals process-wide.
// The watcher sleeps in poll() on a signalfd and an eventfd that the destructor
// writes, so that a finished command exits at once.
class InterruptWatcher {
 public:
  // `what_happens` ends the line printed on the first signal, after
  // "lakedump: interrupted; stopping (".
  explicit InterruptWatcher(std::string what_happens = "nothing will be committed");
  ~InterruptWatcher();
  std::stop_token token() const { return stop_.get_token(); }
  bool interrupted() const { return stop_.stop_requested(); }

 private:
  void Watch(const sigset_t& set, std::stop_token self);

  std::stop_source stop_;
  std::string message_;
  int wake_fd_ = -1;  // eventfd: the destructor's "stop watching"
  std::jthread thread_;
};

}  // namespace lakedump::cli
