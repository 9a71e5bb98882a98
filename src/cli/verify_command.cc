// `lakedump verify DUMP [--deep]`: checks a dump against its store (dump/verifier.h).
// Exit codes: 0 all is well, 1 problems found (or the check could not run), 2 bad usage.
#include <fmt/format.h>

#include <cstdio>
#include <memory>

#include <CLI/CLI.hpp>

#include "base/units.h"
#include "cli/cli_util.h"
#include "cli/commands.h"
#include "cli/numeric_option.h"
#include "cli/unfinished_writes.h"
#include "lake/signature.h"
#include "lake/verifier.h"

namespace lakedump::cli {
namespace {

struct VerifyArgs {
  std::string dest;
  bool deep = false;
  bool json = false;
  int parallelism = 4;
  std::string require_signature;  // key file
  S3Flags s3;
};

int RunVerify(const VerifyArgs& a) {
  InterruptWatcher interrupt;
  StoreOptions store_options;
  store_options.stop = interrupt.token();
  // Also for the listing of unfinished writes below (S3 endpoint, credentials).
  if (Status s = ApplyS3Flags(a.s3, &store_options.s3); !s.ok()) return PrintError(s, kExitUsage);
  std::unique_ptr<ObjectStore> store;
  if (int rc = OpenCommandStore(a.dest, a.s3, store_options, &store); rc != kExitOk) return rc;
  VerifyOptions options;
  if (!a.require_signature.empty()) {
    auto key = ReadSigningKey(a.require_signature);
    if (!key.ok()) return PrintError(key.status(), kExitUsage);
    options.signing_key = std::move(key).value();
  }
  options.deep = a.deep;
  options.parallelism = a.parallelism;
  options.stop = interrupt.token();
  Result<VerifyReport> report = Verify(*store, options);
  if (!report.ok()) {
    Status s = report.status();
    if (interrupt.interrupted()) s = Status::Cancelled("verify interrupted");
    if (a.json) {
      std::printf("%s\n", DisplayJson(nlohmann::json(
                            {{"status", "error"}, {"error", OneLine(s.message())}}))
                            .c_str());
    }
    return PrintError(s, kExitFailed);
  }
  const VerifyReport& r = *report;
  // Not part of the dump and no problem of it, but space that someone should
  // reclaim (lakedump gc, or the next --if-exists resume).
  std::vector<std::string> unfinished;
  if (auto listed = ListUnfinishedWrites(a.dest, *store, store_options); listed.ok()) {
    unfinished = std::move(*listed);
  }
  if (a.json) {
    nlohmann::json j = ToJson(r);
    j["unfinished_writes"] = unfinished;
    std::printf("%s\n", DisplayJson(j).c_str());
    std::fflush(stdout);
  } else {
    for (const VerifyProblem& p : r.problems) {
      std::printf("PROBLEM %s: %s\n", p.kind.c_str(), OneLine(p.ToString()).c_str());
    }
    for (const std::string& w : r.warnings) {
      std::printf("WARNING %s\n", OneLine(w).c_str());
    }
    for (const std::string& u : unfinished) {
      std::printf("WARNING unfinished write (no part of the dump; lakedump gc removes it): %s\n",
                  OneLine(u).c_str());
    }
    const std::string what = fmt::format(
        "{} tables, {} files, {} rows, {} hashed{}{} in {}{}", r.tables, r.files,
        FormatCount(static_cast<double>(r.rows)), FormatBytes(r.bytes),
        r.deep ? ", every page decoded" : "",
        options.signing_key.empty() ? "" : ", signature and every SHA-256 checked",
        FormatSeconds(r.seconds),
        r.one_snapshot ? "" : " (its tables are not one snapshot of the source: `lakedump ls` says why)");
    if (!options.signing_key.empty() && !r.dump_id.empty()) {
      // Signed, so a copy elsewhere or a replay of an old dump shows here.
      std::printf("signed dump %s: written to %s at %s\n", r.dump_id.c_str(),
                  r.written_to.empty() ? "(not recorded)" : r.written_to.c_str(),
                  r.written_at.c_str());
    }
    if (r.ok()) {
      std::printf("ok: dump %s at %s: %s\n", r.dump_id.c_str(), r.location.c_str(), what.c_str());
    }
    std::fflush(stdout);
  }
  if (r.ok()) return kExitOk;
  // One line on stderr for scripts; the list is on stdout.
  std::fprintf(stderr, "lakedump: error: %zu problem%s in the dump at %s (first: %s)\n",
               r.problems.size(), r.problems.size() == 1 ? "" : "s", r.location.c_str(),
               OneLine(r.problems.front().ToString()).c_str());
  std::fflush(stderr);
  return kExitFailed;
}

}  // namespace

CommandEntry AddVerifyCommand(CLI::App& parent) {
  auto a = std::make_shared<VerifyArgs>();
  CLI::App* app = parent.add_subcommand(
      "verify",
      "Check a dump: manifests, every file's presence, size, XXH64 and Parquet footer, stray "
      "files; --deep decodes every page.");
  app->add_option("DUMP", a->dest, "the dump's location (directory, file:// or s3:// URL)")
      ->required();
  app->add_flag("--deep", a->deep,
                "also decode every page of every file and check row counts (reads all data)");
  app->add_flag("--json", a->json, "print the report as one JSON object on stdout");
  AddIntOption(app, "--parallelism,-j", &a->parallelism, 1, kMaxThreads, "files checked at once");
  app->add_option("--require-signature", a->require_signature,
                  "the dump must be signed with the key in this file (dump --sign-key-file): "
                  "checks _manifest.sig and the SHA-256 of every object, and every increment's "
                  "signature and chain; prints where and when the dump was written")
      ->type_name("KEYFILE");
  AddS3Flags(app, &a->s3, /*with_upload=*/false);
  app->footer(
      "Examples:\n"
      "  lakedump verify ./lakedump-demo\n"
      "  lakedump verify ./lakedump-demo --deep --parallelism 2\n"
      "  lakedump verify s3://bucket/dumps/app --endpoint http://127.0.0.1:7480 --json\n\n"
      "Checks: _manifest.json (present, JSON, a format version this lakedump reads, totals),\n"
      "every _table.json it lists, every data file (present, recorded size and XXH64, Parquet\n"
      "footer with the recorded row count and schema), and objects no manifest claims (strays).\n"
      "Prints one PROBLEM line per problem found (key: what is wrong (expected E, found F)).\n\n"
      "Exit codes: 0 all is well, 1 problems found (or the dump could not be read), 2 bad "
      "usage.");
  return {app, [a] { return RunVerify(*a); }};
}

}  // namespace lakedump::cli
