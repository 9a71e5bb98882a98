// The man page and the bash completion script, generated from the CLI definition (DefineCli),
// so that they cover every command and option there is. Pure functions of the app.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace lakedump::cli {

// lakedump(1) in roff (man(7) macros): synopsis, each command with its arguments and options
// (type, default, range), examples and exit codes from the help footers.
std::string ManPage(const CLI::App& app, const std::string& version);

// A bash completion script: commands, each command's options, files for arguments.
std::string BashCompletion(const CLI::App& app);

}  // namespace lakedump::cli
