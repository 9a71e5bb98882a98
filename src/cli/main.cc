// The lakedump command line (src/cli/cli_app.cc defines it; one file per command).
#include "base/core_files.h"
#include "cli/commands.h"

int main(int argc, char** argv) {
  lakedump::NoCoreFiles();  // secrets in memory never reach a core file
  return lakedump::cli::RunCli(argc, argv);
}
