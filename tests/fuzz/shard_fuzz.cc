// libFuzzer target: the documents of a sharded dump that one process reads from another's
// writes at DEST: _plan.json (JSON), and the reports and progress objects (compact JSON in one
// zstd frame). Any input must yield a value or an error, never a crash or an allocation past
// the 32 MiB bound (run with -rss_limit_mb; scripts/fuzz does); what parses must serialize
// again and parse back.
//
// Each input goes through every parser twice: as stored (the plan's JSON; for the reports and
// progress objects, hostile zstd frames) and, for the reports and progress objects, compressed
// first by the target (so that mutations of the JSON reach the checks behind the frame).
// Seeds: with LD_SHARD_FUZZ_WRITE_SEEDS=DIR set, the target first writes a valid plan, report
// and progress object as JSON to DIR (scripts/fuzz does, into the corpus).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <string_view>

#include "lake/object_keys.h"
#include "dump/shard/shard_plan.h"
#include "format/codec/codec.h"

namespace {

using namespace lakedump;

constexpr std::string_view kDumpId = "20261202T080000Z-0a1b2c3d";

std::string Compressed(std::string_view text) {
  std::string out;
  auto zstd = MakeCodec(CodecKind::kZstd);
  if (!zstd.ok() || !(*zstd)->Compress(text, &out).ok()) std::abort();
  return out;
}

// The JSON inside a stored report or progress object we serialized ourselves.
std::string Json(const std::string& stored) {
  auto size = ZstdDeclaredSize(stored);
  auto zstd = MakeCodec(CodecKind::kZstd);
  std::string text;
  if (!size.ok() || !zstd.ok() || !(*zstd)->Decompress(stored, *size, &text).ok()) std::abort();
  return text;
}

void WriteSeeds(const char* dir) {
  ShardPlan plan;
  plan.dump_id = std::string(kDumpId);
  plan.created_at = "2026-12-02T08:00:00.000Z";
  plan.snapshot_id = "00000003-00000002-1";
  plan.source = {{"engine", "postgres"}, {"system_identifier", "7300000000000000001"}};
  plan.options = {{"tables", nlohmann::json::array()}, {"compression", "zstd"}};
  PlannedUnit big{TableRef{"public", "big"}, 0, 2, "ctid < '(10,0)'::pg_catalog.tid", 1000,
                  1 << 20, false};
  PlannedUnit small{TableRef{"public", "small"}, 0, 1, "", 10, 100, false};
  plan.shards = {{big}, {small}};
  plan.attempt_tokens = {"0123456789abcdef", "fedcba9876543210"};
  ShardReport report;
  report.token = plan.attempt_tokens[1];
  report.dump_id = plan.dump_id;
  report.shard = 1;
  report.attempt = std::string(kDumpId) + "-s1-00c0ffee";
  report.finished_at = "2026-12-02T08:01:00.000Z";
  UnitOutput u;
  u.table = small.table;
  u.unit = 0;
  u.schema.AddColumn(Column{"id", LogicalType::Of(TypeId::kInt64), false, "bigint"});
  DataFile f;
  f.key = DataFileKey(u.table, "", 0, 0, report.attempt);
  f.rows = 10;
  f.bytes = 400;
  u.files.push_back(f);
  report.units.push_back(u);
  const std::string base(dir);
  std::ofstream(base + "/seed-plan.json") << ToJson(plan).dump();
  std::ofstream(base + "/seed-report.json") << Json(*SerializeShardReport(report));
  std::ofstream(base + "/seed-progress.json") << Json(*SerializeShardProgress(report));
}

void Check(std::string_view stored) {
  if (auto plan = ParseShardPlan(stored, "_plan.json"); plan.ok()) {
    if (!ParseShardPlan(ToJson(*plan).dump(), "again").ok()) std::abort();
  }
  if (auto report = ParseShardReport(stored, "report"); report.ok()) {
    auto again = SerializeShardReport(*report);
    if (!again.ok() || !ParseShardReport(*again, "again").ok()) std::abort();
  }
  if (auto progress = ParseShardProgress(stored, "progress"); progress.ok()) {
    auto again = SerializeShardProgress(*progress);
    if (!again.ok() || !ParseShardProgress(*again, "again").ok()) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const bool seeded = [] {
    if (const char* dir = std::getenv("LD_SHARD_FUZZ_WRITE_SEEDS")) WriteSeeds(dir);
    return true;
  }();
  (void)seeded;
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  Check(in);
  Check(Compressed(in));
  return 0;
}
