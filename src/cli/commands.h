// The CLI's commands, one file each. Add*Command registers a subcommand on the
// CLI11 app and returns the function that runs it (after parsing) and returns
// the process exit code.
#pragma once

#include <functional>

#include <CLI/CLI.hpp>

namespace lakedump::cli {

struct CommandEntry {
  CLI::App* app = nullptr;
  std::function<int()> run;
};

CommandEntry AddDemoCommand(CLI::App& parent);
CommandEntry AddDumpCommand(CLI::App& parent);
CommandEntry AddLsCommand(CLI::App& parent);
CommandEntry AddLoadCommand(CLI::App& parent);  // load_command.cc
CommandEntry AddGcCommand(CLI::App& parent);  // gc_command.cc (S3 store)

}  // namespace lakedump::cli
