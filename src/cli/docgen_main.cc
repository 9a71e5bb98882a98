// lakedump_docgen: writes the man page or the bash completion script generated from the CLI
// definition (cli_docs.h). Run at build time; not installed.
//   usage: lakedump_docgen man|bash OUTPUT
#include <cstdio>
#include <fstream>
#include <string>

#include "cli/cli_docs.h"
#include "cli/commands.h"
#include "format/parquet/parquet_writer.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: lakedump_docgen man|bash OUTPUT\n");
    return 2;
  }
  CLI::App app;
  // The commands own the variables the options are bound to: kept alive with the app.
  const auto commands = lakedump::cli::DefineCli(app);
  const std::string what = argv[1];
  std::string text;
  if (what == "man") text = lakedump::cli::ManPage(app, lakedump::CreatedBy());
  else if (what == "bash") text = lakedump::cli::BashCompletion(app);
  else {
    std::fprintf(stderr, "lakedump_docgen: unknown output '%s' (man or bash)\n", argv[1]);
    return 2;
  }
  std::ofstream out(argv[2], std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) {
    std::fprintf(stderr, "lakedump_docgen: cannot write %s\n", argv[2]);
    return 1;
  }
  return 0;
}
