// The manifest parsers on real dumps' manifests (tests/data/manifests, also the seed corpus of
// the manifest_fuzz target) and on every input that once broke them
// (tests/data/fuzz-regressions/manifest): real ones parse and round-trip; the others fail
// cleanly, the same way tests/fuzz/manifest_fuzz.cc checks them.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "lake/manifest.h"

namespace lakedump {
namespace {

namespace fs = std::filesystem;

std::string ReadBytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// What manifest_fuzz checks: parse; what parses serializes and parses back to the same JSON.
void Replay(const std::string& in, bool* dump_ok, bool* table_ok) {
  auto dump = ParseDumpManifest(in, "_manifest.json");
  *dump_ok = dump.ok();
  if (dump.ok()) {
    const std::string again = ToJson(*dump).dump();
    auto back = ParseDumpManifest(again, "again");
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(ToJson(*back).dump(), again);
  }
  auto table = ParseTableManifest(in, "t/_table.json");
  *table_ok = table.ok();
  if (table.ok()) {
    const std::string again = ToJson(*table).dump();
    auto back = ParseTableManifest(again, "again");
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(ToJson(*back).dump(), again);
  }
}

const fs::path kData = fs::path(LAKEDUMP_SOURCE_DIR) / "tests" / "data";

TEST(ManifestSeedTest, RealManifestsParseAndRoundTrip) {
  size_t dumps = 0, tables = 0;
  for (const auto& e : fs::directory_iterator(kData / "manifests")) {
    if (e.path().extension() != ".json") continue;
    SCOPED_TRACE(e.path().filename().string());
    bool dump_ok = false, table_ok = false;
    Replay(ReadBytes(e.path()), &dump_ok, &table_ok);
    EXPECT_NE(dump_ok, table_ok) << "a real manifest is exactly one of the two kinds";
    dumps += dump_ok;
    tables += table_ok;
  }
  EXPECT_GE(dumps, 2u);
  EXPECT_GE(tables, 3u);
}

TEST(ManifestFuzzRegressionTest, ReplaysEveryInput) {
  const fs::path dir = kData / "fuzz-regressions" / "manifest";
  size_t n = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (!e.is_regular_file() || e.path().filename() == "README.md") continue;
    SCOPED_TRACE(e.path().filename().string());
    bool dump_ok = false, table_ok = false;
    Replay(ReadBytes(e.path()), &dump_ok, &table_ok);
    ++n;
  }
  EXPECT_GE(n, 1u);
}

TEST(ManifestFuzzRegressionTest, DeepNestingIsRefusedClearly) {
  const std::string in =
      ReadBytes(kData / "fuzz-regressions" / "manifest" / "deep_nesting_in_source.json");
  auto m = ParseDumpManifest(in, "_manifest.json");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), Code::kCorruption);
  EXPECT_NE(m.status().message().find("_manifest.json: nested more than 64 levels deep"),
            std::string::npos)
      << m.status().ToString();
  // Brackets inside strings do not count; 64 levels are fine.
  std::string ok = R"({"format":"lakedump-dump","format_version":1,"dump_id":"[[[[{{{{",)"
                   R"("tables":[],"totals":{"rows":0,"files":0,"bytes":0},"source":)";
  ok += std::string(62, '[') + std::string(62, ']') + "}";
  auto parsed = ParseDumpManifest(ok, "_manifest.json");
  EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
}

}  // namespace
}  // namespace lakedump
