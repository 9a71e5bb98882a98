// `lakedump demo DB.sqlite`: creates the deterministic demo database.
#include <fmt/format.h>

#include <memory>

#include "cli/cli_util.h"
#include "cli/commands.h"

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

int RunDemo(const DemoArgs& a) {
#ifdef LAKEDUMP_HAVE_DEMO
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
  app->add_option("--rows", args->rows, "rows of store_orders_fact")->capture_default_str();
  app->add_option("--small-tables", args->small_tables, "add N small tables of 100 rows each")
      ->capture_default_str();
  app->add_option("--seed", args->seed, "random seed (same seed, same data)")
      ->capture_default_str();
  app->add_option("--big-rows", args->big_rows, "rows of an extra big_table (0 = none)")
      ->capture_default_str();
  app->add_flag("--force", args->force, "replace DB if it exists");
  app->footer(
      "Examples:\n"
      "  lakedump demo demo.sqlite\n"
      "  lakedump demo small.sqlite --rows 20000 --small-tables 1000 --force\n"
      "  lakedump demo big.sqlite --rows 300000 --big-rows 10000000");
  return {app, [args] { return RunDemo(*args); }};
}

}  // namespace lakedump::cli
