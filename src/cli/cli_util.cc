#include "cli/cli_util.h"

#include "base/interrupt.h"
#include "base/units.h"
#include "base/utf8.h"
#include "cli/numeric_option.h"
#include "store/open_store.h"
#include "store/s3/credentials.h"
#include "store/s3/s3_multipart_writer.h"

#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <mutex>

#include <CLI/CLI.hpp>

#if __has_include("source/sqlite/sqlite_database.h")
#include "source/sqlite/sqlite_database.h"
#define LAKEDUMP_HAVE_SQLITE 1
#endif
#if __has_include("source/postgres/postgres_database.h")
#include "source/postgres/postgres_database.h"
#define LAKEDUMP_HAVE_POSTGRES 1
#endif

namespace lakedump::cli {

std::string TerminalSafe(std::string_view text, bool keep_newlines) {
  std::string out;
  out.reserve(text.size());
  auto escape = [&out](unsigned char c) { out += fmt::format("\\x{:02x}", c); };
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      if ((c < 0x20 && !(keep_newlines && (c == '\n' || c == '\t'))) || c == 0x7F) {
        escape(c);
      } else {
        out += static_cast<char>(c);
      }
      ++i;
      continue;
    }
    const size_t bad = FirstInvalidUtf8(text.substr(i, std::min<size_t>(4, text.size() - i)));
    size_t n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
    if (bad == 0 || (bad != std::string_view::npos && bad < n) || i + n > text.size()) {
      escape(c);  // not UTF-8
      ++i;
      continue;
    }
    if (c == 0xC2 && static_cast<unsigned char>(text[i + 1]) < 0xA0) {  // C1 control
      escape(c);
      escape(static_cast<unsigned char>(text[i + 1]));
    } else {
      out.append(text.substr(i, n));
    }
    i += n;
  }
  return out;
}

std::string DisplayJson(const nlohmann::json& j, int indent) {
  return j.dump(indent, ' ', /*ensure_ascii=*/false, nlohmann::json::error_handler_t::replace);
}

std::string OneLine(std::string_view text) {
  std::string out;
  for (char c : text) out += (c == '\n' || c == '\r') ? ' ' : c;
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return TerminalSafe(out, /*keep_newlines=*/false);
}

int ExitCodeForStatus(const Status& status) {
  return status.code() == Code::kInvalidArgument ? kExitUsage : kExitFailed;
}

int PrintError(const Status& status, int exit_code) {
  std::fprintf(stderr, "lakedump: error: %s\n", OneLine(status.message()).c_str());
  std::fflush(stderr);
  return exit_code;
}

namespace {

bool StartsWith(std::string_view s, std::string_view p) { return s.rfind(p, 0) == 0; }

}  // namespace

bool IsPostgresSource(const std::string& source) {
  return StartsWith(source, "postgres://") || StartsWith(source, "postgresql://") ||
         source.find("host=") != std::string::npos || source.find("dbname=") != std::string::npos;
}

Result<PostgresOptions> PostgresOptionsFrom(const SourceOptions& options) {
  PostgresOptions pg;
  pg.max_connections = options.connections;
  pg.include_materialized_views = options.pg_materialized_views;
  LD_RETURN_IF_ERROR(ParsePgNumericPolicy(options.pg_numeric, &pg.types)
                         .WithContext("--pg-numeric"));
  auto infinity = ParsePgInfinityPolicy(options.pg_infinity);
  if (!infinity.ok()) return infinity.status().WithContext("--pg-infinity");
  pg.infinity = *infinity;
  auto special = ParsePgNumericSpecialPolicy(options.pg_numeric_nan);
  if (!special.ok()) return special.status().WithContext("--pg-numeric-nan");
  pg.numeric_special = *special;
  pg.slot_name = options.pg_slot_name;
  pg.types.known_array_text = options.pg_known_array_text;
  LD_ASSIGN_OR_RETURN(pg.lock_timeout_ms, ParseLockWaitTimeout(options.pg_lock_wait_timeout));
  pg.stop = options.stop;
  return pg;
}

Result<int> ParseLockWaitTimeout(const std::string& text) {
  if (text == "forever") return kLockWaitForever;
  auto d = ParseDuration(text);
  if (!d.ok()) return d.status().WithContext("--lock-wait-timeout");
  if (d->count() < 0 || d->count() > kMaxLockWaitMs) {
    return Status::InvalidArgument("--lock-wait-timeout must be between 0 and 24h, or forever, "
                                   "not \"" + text + "\"");
  }
  return static_cast<int>(d->count());
}

Result<std::unique_ptr<Database>> OpenDatabase(const std::string& source,
                                               [[maybe_unused]] const SourceOptions& options) {
  if (IsPostgresSource(source)) {
#ifdef LAKEDUMP_HAVE_POSTGRES
    LD_ASSIGN_OR_RETURN(PostgresOptions pg, PostgresOptionsFrom(options));
    return OpenPostgresDatabase(source, pg);
#else
    return Status::Unimplemented("PostgreSQL sources are not supported by this build yet");
#endif
  }
  std::string path = source;
  if (StartsWith(source, "sqlite:")) {
#ifdef LAKEDUMP_HAVE_SQLITE
    path = SqlitePathFromUrl(source);
#endif
  } else if (source.find("://") != std::string::npos) {
    return Status::InvalidArgument(fmt::format(
        "source \"{}\": unknown kind (use sqlite:///path/db.sqlite, a path to a SQLite file, or "
        "postgres://...)",
        OneLine(source.substr(0, source.find("://") + 3))));
  }
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0) {
    return Status::NotFound(fmt::format("source {}: no such file", path));
  }
  if (S_ISDIR(st.st_mode)) {
    return Status::InvalidArgument(
        fmt::format("source {}: is a directory, not a SQLite database file", path));
  }
#ifdef LAKEDUMP_HAVE_SQLITE
  SqliteOptions sq;
  sq.lax_types = options.sqlite_lax_types;
  sq.exact_values = options.sqlite_exact_values;
  sq.connections = options.connections;
  return OpenSqliteDatabase(source, sq);
#else
  return Status::Unimplemented("SQLite sources are not supported by this build yet");
#endif
}

int DefaultParallelism() {
  return static_cast<int>(
      std::clamp<int64_t>(std::thread::hardware_concurrency(), 1, kMaxThreads));
}

namespace {

// -v: the source of the credentials, once per source (a command that opens its store twice,
// for a lease handle, says it once).
void SayCredentials(const std::string& source) {
  static std::mutex mu;
  static std::string said;
  std::lock_guard<std::mutex> lock(mu);
  if (source == said) return;
  said = source;
  std::fprintf(stderr, "credentials: %s\n", source.c_str());
}

}  // namespace

void AddS3Flags(CLI::App* app, S3Flags* flags, bool with_upload) {
  app->add_option("--endpoint", flags->endpoint, "S3 endpoint URL");
  app->add_option("--region", flags->region, "S3 region");
  app->add_option("--profile", flags->profile,
                  "AWS profile (credentials and settings; docs/s3.md, \"Credentials\")");
  app->add_flag_callback(
      "-v,--verbose", [] { SetCredentialsObserver(SayCredentials); },
      "print which credentials S3 requests use (\"credentials: profile dev "
      "(credential_process)\"), never a secret");
  app->add_option("--s3-addressing", flags->addressing,
                  "auto | path | virtual: bucket in the path (default for custom endpoints) or "
                  "in the host name (default on AWS); AWS config: s3.addressing_style")
      ->check(CLI::IsMember({"auto", "path", "virtual"}));
  constexpr int64_t kDay = 86'400'000;
  AddSizeOption(app, "--s3-connect-timeout", &flags->connect_timeout,
                {NumericRange::Kind::kDuration, 1, kDay, "", ""},
                "S3: give up a TCP/TLS connect after this long (then retried)");
  AddSizeOption(app, "--s3-min-rate", &flags->min_rate,
                {NumericRange::Kind::kSize, 1, kGiB, "never", "", /*per_second=*/true},
                "S3: a transfer slower than this (bytes/s, e.g. 1KiB/s) over "
                "--s3-min-rate-window is abandoned and retried; there is no cap on a "
                "request's total time");
  AddSizeOption(app, "--s3-min-rate-window", &flags->min_rate_window,
                {NumericRange::Kind::kDuration, 1000, kDay, "", ""},
                "S3: the window --s3-min-rate is averaged over (whole seconds)");
  AddSizeOption(app, "--s3-retry-budget", &flags->retry_budget,
                {NumericRange::Kind::kDuration, 1, kDay, "", ""},
                "S3: keep retrying a failed request (connection refused or reset, 5xx, "
                "SlowDown, timeouts, replies cut short) for this long, with exponential "
                "backoff and jitter");
  AddIntOption(app, "--s3-max-attempts", &flags->max_attempts, 1, 1000,
               "S3: at most this many attempts per request (first included)");
  if (!with_upload) return;
  app->add_flag("--s3-content-md5", flags->content_md5,
                "S3: send Content-MD5 with each part and object (buckets with object lock "
                "demand it; costs an MD5 of every byte)");
  app->add_option("--s3-checksum", flags->checksum,
                  "S3: none | crc32c: send x-amz-checksum-crc32c with each part and object "
                  "(hardware CRC; AWS checks it, radosgw 16 ignores it)")
      ->check(CLI::IsMember({"none", "crc32c"}))
      ->capture_default_str();
  AddIntOption(app, "--upload-parallelism", &flags->upload_parallelism, 0, 64,
               "S3 parts of one file in flight (0 = one after another)");
  // S3's own limits on a multipart part (the last part may be smaller).
  AddSizeOption(app, "--part-size", &flags->part_size,
                {NumericRange::Kind::kSize, static_cast<int64_t>(kMinPartSize),
                 static_cast<int64_t>(kMaxPartSize), "default", ""},
                "S3 multipart part size");
  AddIntOption(app, "--max-connections", &flags->max_connections, 1, 1024,
               "S3 connections for the whole run");
}

Status ApplyS3Flags(const S3Flags& flags, S3Options* out) {
  out->endpoint = flags.endpoint;
  out->region = flags.region;
  out->profile = flags.profile;
  out->addressing = flags.addressing;
  // The numeric flags' ranges were checked while parsing (numeric_option.h).
  out->upload_parallelism = flags.upload_parallelism;
  auto part = ParseSize(flags.part_size);
  if (!part.ok()) return part.status().WithContext("--part-size");
  out->part_size = *part;
  out->max_connections = flags.max_connections;
  out->content_md5 = flags.content_md5;
  out->checksum_crc32c = flags.checksum == "crc32c";
  return ApplyS3RetryFlags(flags, out);
}

Status ApplyS3RetryFlags(const S3Flags& flags, S3Options* out) {
  auto positive = [](std::string_view option,
                     const std::string& text) -> Result<std::chrono::milliseconds> {
    auto d = ParseDuration(text);
    if (!d.ok()) return d.status().WithContext(option);
    if (d->count() <= 0 || *d > std::chrono::hours(24)) {
      return Status::InvalidArgument(std::string(option) + " must be between 1ms and 24h, not \"" +
                                     text + "\"");
    }
    return *d;
  };
  LD_ASSIGN_OR_RETURN(out->connect_timeout, positive("--s3-connect-timeout", flags.connect_timeout));
  LD_ASSIGN_OR_RETURN(out->retry_budget, positive("--s3-retry-budget", flags.retry_budget));
  LD_ASSIGN_OR_RETURN(auto window, positive("--s3-min-rate-window", flags.min_rate_window));
  if (window < std::chrono::seconds(1)) {
    return Status::InvalidArgument("--s3-min-rate-window must be at least 1s");
  }
  out->min_rate_window = std::chrono::duration_cast<std::chrono::seconds>(window);
  std::string rate = flags.min_rate;
  if (rate.ends_with("/s")) rate.resize(rate.size() - 2);
  auto r = ParseSize(rate);
  if (!r.ok()) return r.status().WithContext("--s3-min-rate");
  if (*r > (uint64_t{1} << 30)) {
    return Status::InvalidArgument("--s3-min-rate must be between 0 and 1GiB/s, not \"" +
                                   flags.min_rate + "\"");
  }
  out->min_rate = *r;
  if (flags.max_attempts < 1 || flags.max_attempts > 1000) {
    return Status::InvalidArgument("--s3-max-attempts must be between 1 and 1000, not " +
                                   std::to_string(flags.max_attempts));
  }
  out->max_attempts = flags.max_attempts;
  return Status::OK();
}

int OpenCommandStore(const std::string& url, const S3Flags& flags, StoreOptions options,
                     std::unique_ptr<ObjectStore>* store) {
  Status s = ApplyS3Flags(flags, &options.s3);
  if (!s.ok()) return PrintError(s, kExitUsage);
  auto opened = OpenStore(url, options);
  if (!opened.ok()) {
    return PrintError(opened.status(), opened.status().code() == Code::kInvalidArgument
                                           ? kExitUsage
                                           : kExitFailed);
  }
  *store = std::move(*opened);
  return kExitOk;
}

int OpenUncancelledStore(const std::string& url, const S3Flags& flags, StoreOptions options,
                         std::unique_ptr<ObjectStore>* store, StoreOptions* options_out) {
  options.stop = {};
  S3Flags small = flags;
  small.max_connections = 2;
  options.s3.max_connections = 2;
  if (options_out != nullptr) *options_out = options;
  return OpenCommandStore(url, small, std::move(options), store);
}

InterruptWatcher::InterruptWatcher(std::string what_happens)
    : message_("\nlakedump: interrupted; stopping (" + what_happens + ")\n") {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  wake_fd_ = eventfd(0, EFD_CLOEXEC);
  thread_ = std::jthread([this, set](std::stop_token self) { Watch(set, self); });
}

void InterruptWatcher::Watch(const sigset_t& set, std::stop_token self) {
  int signals = 0;
  auto on_signal = [&](int sig) {
    if (sig != SIGINT && sig != SIGTERM) return;
    if (++signals > 1) _exit(130);
    ssize_t ignored = write(STDERR_FILENO, message_.data(), message_.size());
    (void)ignored;
    stop_.request_stop();
    RequestProcessInterrupt();  // hurries what stop_ does not cancel (base/interrupt.h)
  };
  const int sig_fd = wake_fd_ < 0 ? -1 : signalfd(-1, &set, SFD_CLOEXEC);
  if (sig_fd < 0) {  // no signalfd/eventfd: poll for signals every 100 ms
    while (!self.stop_requested()) {
      timespec timeout{0, 100 * 1000 * 1000};
      on_signal(sigtimedwait(&set, nullptr, &timeout));
    }
    return;
  }
  while (!self.stop_requested()) {
    pollfd fds[2] = {{sig_fd, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
    if (poll(fds, 2, -1) < 0) continue;  // EINTR
    if (fds[1].revents != 0) break;
    signalfd_siginfo info;
    if (fds[0].revents != 0 && read(sig_fd, &info, sizeof info) == sizeof info) {
      on_signal(static_cast<int>(info.ssi_signo));
    }
  }
  close(sig_fd);
}

InterruptWatcher::~InterruptWatcher() {
  thread_.request_stop();
  if (wake_fd_ >= 0) {
    const uint64_t one = 1;
    ssize_t ignored = write(wake_fd_, &one, sizeof one);
    (void)ignored;
  }
  if (thread_.joinable()) thread_.join();
  if (wake_fd_ >= 0) close(wake_fd_);
}

}  // namespace lakedump::cli
