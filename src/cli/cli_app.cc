#include <cstdio>
#include <new>
#include <string>

#include <CLI/CLI.hpp>

#include "base/thread_pool.h"
#include "cli/cli_util.h"
#include "cli/commands.h"
#include "format/parquet/parquet_writer.h"

namespace lakedump::cli {

std::vector<CommandEntry> DefineCli(CLI::App& app) {
  app.description(
      "lakedump: dump databases (SQLite, PostgreSQL) to Parquet files in a local folder or S3, "
      "in parallel, and load them back.");
  app.name("lakedump");
  app.set_version_flag("--version", lakedump::CreatedBy());
  app.require_subcommand(1);
  app.footer(
      "Examples:\n"
      "  lakedump demo demo.sqlite --rows 300000\n"
      "  lakedump dump demo.sqlite ./lakedump-demo --table-parallelism 4\n"
      "  lakedump ls ./lakedump-demo\n"
      "  lakedump load ./lakedump-demo restored.sqlite\n"
      "  lakedump verify ./lakedump-demo --deep\n\n"
      "Exit codes: 0 complete, 1 failed (nothing committed), 2 bad usage.\n"
      "Run `lakedump <command> --help` for a command's options.");
  return {AddDemoCommand(app), AddDumpCommand(app), AddLoadCommand(app),
          AddLsCommand(app),   AddGcCommand(app),   AddCompactCommand(app),
          AddVerifyCommand(app)};
}

int RunCli(int argc, char** argv) {
  CLI::App app;
  std::vector<CommandEntry> commands = DefineCli(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::string hint = "lakedump --help";
    for (const auto& c : commands) {
      if (c.app->parsed()) hint = "lakedump " + c.app->get_name() + " --help";
    }
    std::fprintf(stderr, "lakedump: error: %s (see `%s`)\n", OneLine(e.what()).c_str(),
                 hint.c_str());
    return kExitUsage;
  }
  for (const auto& c : commands) {
    if (!c.app->parsed()) continue;
    // The command boundary: an allocation that failed outside a task (a hostile input that
    // got past the bounds, or a memory limit below what the options need) ends as one line.
    try {
      return c.run();
    } catch (const std::bad_alloc&) {
      std::fprintf(stderr, "lakedump %s: error: %s\n", c.app->get_name().c_str(),
                   std::string(lakedump::OutOfMemoryStatus().message()).c_str());
      return kExitFailed;
    }
  }
  return kExitUsage;
}

}  // namespace lakedump::cli
