// `lakedump gc DEST [--older-than 1h]`: aborts the incomplete multipart uploads
// under an S3 prefix left by runs that were killed (SIGKILL, power loss) before
// they could abort their own uploads.
#include <cstdio>
#include <memory>

#include "base/units.h"
#include "cli/cli_util.h"
#include "cli/commands.h"
#include "store/s3/s3_store.h"

namespace lakedump::cli {
namespace {

struct GcArgs {
  std::string dest;
  std::string older_than = "1h";
  S3Flags s3;
};

int RunGc(const GcArgs& a) {
  if (!a.dest.starts_with("s3://")) {
    return PrintError(Status::InvalidArgument("gc works on s3://bucket/prefix destinations; " +
                                              a.dest + " has no multipart uploads to clean"),
                      kExitUsage);
  }
  auto age = ParseDuration(a.older_than);
  if (!age.ok()) return PrintError(age.status().WithContext("--older-than"), kExitUsage);
  StoreOptions options;
  if (Status s = ApplyS3Flags(a.s3, &options.s3); !s.ok()) return PrintError(s, kExitUsage);
  std::vector<std::string> aborted;
  Status s = AbortStaleUploads(a.dest, std::chrono::duration_cast<std::chrono::seconds>(*age),
                               options, &aborted);
  for (const std::string& key : aborted) std::printf("aborted upload of %s\n", key.c_str());
  if (!s.ok()) return PrintError(s, kExitFailed);
  std::printf("%zu incomplete uploads older than %s aborted under %s\n", aborted.size(),
              a.older_than.c_str(), a.dest.c_str());
  return kExitOk;
}

}  // namespace

CommandEntry AddGcCommand(CLI::App& parent) {
  auto a = std::make_shared<GcArgs>();
  CLI::App* app = parent.add_subcommand(
      "gc", "Abort incomplete S3 multipart uploads under a prefix (left by killed runs).");
  app->add_option("DEST", a->dest, "s3://bucket/prefix")->required();
  app->add_option("--older-than", a->older_than,
                  "only uploads started longer ago than this (default 1h; 0s = all)");
  AddS3Flags(app, &a->s3, /*with_upload=*/false);
  app->footer(
      "Examples:\n"
      "  lakedump gc s3://bucket/dumps/app\n"
      "  lakedump gc s3://bucket/dumps --older-than 10m --endpoint http://127.0.0.1:7480");
  return {app, [a] { return RunGc(*a); }};
}

}  // namespace lakedump::cli
