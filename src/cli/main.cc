// The lakedump command line (src/cli/cli_app.cc defines it; one file per command).
#include "cli/commands.h"

int main(int argc, char** argv) { return lakedump::cli::RunCli(argc, argv); }
