// libFuzzer target: the dump manifest parsers (_manifest.json and _table.json). Any input must
// yield a value or an error, never a crash; what parses must serialize again and parse back to
// the same value.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "lake/manifest.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace lakedump;
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  auto dump = ParseDumpManifest(in, "_manifest.json");
  if (dump.ok()) {
    const std::string again = ToJson(*dump).dump();
    auto back = ParseDumpManifest(again, "again");
    if (!back.ok() || ToJson(*back).dump() != again) std::abort();
  }
  auto table = ParseTableManifest(in, "t/_table.json");
  if (table.ok()) {
    const std::string again = ToJson(*table).dump();
    auto back = ParseTableManifest(again, "again");
    if (!back.ok() || ToJson(*back).dump() != again) std::abort();
  }
  return 0;
}
