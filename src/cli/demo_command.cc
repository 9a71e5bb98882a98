// `lakedump demo DB.sqlite`: creates the deterministic demo database.
#include <fmt/format.h>
#include <sys/statvfs.h>

#include <filesystem>
#include <memory>

#include <CLI/CLI.hpp>

#include "base/units.h"

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "cli/numeric_option.h"

#if __has_include("source/demo/demo_database.h")
#include "source/demo/demo_database.h"
#define LAKEDUMP_HAVE_DEMO 1
#endif

namespace lakedump::cli {
namespace {

struct DemoArgs {
  std::string path;
  uint64_t rows = 300000;
  int small_tables = 0;
  uint64_t seed = 42;
  uint64_t big_rows = 0;
  bool force = false;
};

// Ten billion rows: a terabyte or more of SQLite; a bigger demo is a typo.
constexpr int64_t kMaxDemoRows = 10'000'000'000;
// What a row takes in the SQLite file (file size / rows, measured at 300K rows: 125 and 103
// bytes; rounded up).
constexpr uint64_t kFactRowBytes = 128, kBigRowBytes = 112;

// Refuses, before anything is written, a demo database bigger than the free space of the
// file system that would hold it. OK when the free space cannot be read (the write then
// fails cleanly: the database is built in a temporary file).
Status CheckFreeSpace(const DemoArgs& a) {
  std::error_code ec;
  std::filesystem::path dir = std::filesystem::absolute(a.path, ec).parent_path();
  if (ec || dir.empty()) dir = ".";
  struct statvfs vfs{};
  if (::statvfs(dir.c_str(), &vfs) != 0) return Status::OK();
  const uint64_t free_bytes = static_cast<uint64_t>(vfs.f_bavail) * vfs.f_frsize;
  // At most 1e10 rows each (the options' ranges): no overflow.
  const uint64_t need = a.rows * kFactRowBytes + a.big_rows * kBigRowBytes;
  if (need <= free_bytes) return Status::OK();
  const std::string what = a.big_rows > 0 ? fmt::format("--rows {} and --big-rows {}", a.rows,
                                                        a.big_rows)
                                          : fmt::format("--rows {}", a.rows);
  return Status::InvalidArgument(fmt::format("{}: the database would take about {}, but {} has "
                                             "only {} free",
                                             what, FormatBytes(need), dir.string(),
                                             FormatBytes(free_bytes)));
}

int RunDemo(const DemoArgs& a) {
#ifdef LAKEDUMP_HAVE_DEMO
  if (Status s = CheckFreeSpace(a); !s.ok()) return PrintError(s, kExitUsage);
  DemoOptions options;
  options.rows = a.rows;
  options.small_tables = a.small_tables;
  options.seed = a.seed;
  options.big_rows = a.big_rows;
  options.overwrite = a.force;
  Status s = CreateDemoDatabase(a.path, options);
  if (!s.ok()) return PrintError(s, s.code() == Code::kInvalidArgument ? kExitUsage : kExitFailed);
  std::printf("created %s: store_orders_fact with %llu rows, dimensions%s\n", a.path.c_str(),
              static_cast<unsigned long long>(a.rows),
              a.small_tables > 0 ? fmt::format(", {} small tables", a.small_tables).c_str()
                                 : "");
  return kExitOk;
#else
  (void)a;
  return PrintError(Status::Unimplemented("the demo database is not built into this lakedump yet"),
                    kExitFailed);
#endif
}

}  // namespace

CommandEntry AddDemoCommand(CLI::App& parent) {
  auto args = std::make_shared<DemoArgs>();
  CLI::App* app = parent.add_subcommand(
      "demo", "Create a deterministic demo SQLite database (VMart-like star schema).");
  app->add_option("DB", args->path, "SQLite file to create")->required();
  AddIntOption(app, "--rows", &args->rows, 1, kMaxDemoRows, "rows of store_orders_fact");
  AddIntOption(app, "--small-tables", &args->small_tables, 0, 100'000,
               "add N small tables of 100 rows each");
  AddIntOption(app, "--seed", &args->seed, 0, INT64_MAX, "random seed (same seed, same data)");
  AddIntOption(app, "--big-rows", &args->big_rows, 0, kMaxDemoRows,
               "rows of an extra big_table (0 = none)");
  app->add_flag("--force", args->force, "replace DB if it exists");
  app->footer(
      "Examples:\n"
      "  lakedump demo demo.sqlite\n"
      "  lakedump demo small.sqlite --rows 20000 --small-tables 1000 --force\n"
      "  lakedump demo big.sqlite --rows 300000 --big-rows 10000000");
  return {app, [args] { return RunDemo(*args); }};
}

}  // namespace lakedump::cli
