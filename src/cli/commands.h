// The CLI's commands, one file each. Add*Command registers a subcommand on the
// CLI11 app and returns the function that runs it (after parsing) and returns
// the process exit code.
#pragma once

#include <functional>
#include <vector>

#include "cli/cli11_fwd.h"

namespace lakedump::cli {

struct CommandEntry {
  CLI::App* app = nullptr;
  std::function<int()> run;
};

// Defines the whole command line on `app` (description, --version, every command below) and
// returns the commands in order. main() parses with it; the docs generator and the tests walk it.
// The returned entries own the variables the options write: keep them while `app` is used.
std::vector<CommandEntry> DefineCli(CLI::App& app);

// Parses argv, runs the chosen command, returns the process exit code (cli_util.h's kExit*).
int RunCli(int argc, char** argv);

CommandEntry AddDemoCommand(CLI::App& parent);
CommandEntry AddDumpCommand(CLI::App& parent);
CommandEntry AddLsCommand(CLI::App& parent);
CommandEntry AddLoadCommand(CLI::App& parent);  // load_command.cc
CommandEntry AddGcCommand(CLI::App& parent);
CommandEntry AddCompactCommand(CLI::App& parent);  // compact_command.cc  // gc_command.cc (S3 store)
CommandEntry AddVerifyCommand(CLI::App& parent);

}  // namespace lakedump::cli
