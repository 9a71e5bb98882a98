// The lakedump command line: dispatches to one file per command.
#include <cstdio>
#include <cstring>

#include "format/parquet/parquet_writer.h"

int main(int argc, char** argv) {
  if (argc > 1 && (std::strcmp(argv[1], "--version") == 0)) {
    std::printf("%s\n", lakedump::CreatedBy().c_str());
    return 0;
  }
  std::printf("usage: lakedump <command> [options]\n");
  return argc > 1 && std::strcmp(argv[1], "--help") == 0 ? 0 : 2;
}
