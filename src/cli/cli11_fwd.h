// CLI11's types, declared only. Headers that merely name them include this; the files that
// define or read options include <CLI/CLI.hpp> (about 9,000 lines, parsed per file).
#pragma once

namespace CLI {
class App;
class Option;
}  // namespace CLI
