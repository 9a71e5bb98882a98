// The sharded dump's documents (plan, reports), the assignment of units to shards and the
// shard index from a scheduler's environment (dump/shard/shard_plan.h).
#include "lake/no_snapshot.h"
#include "dump/shard/shard_plan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>

#include "lake/object_keys.h"
#include "format/codec/codec.h"
#include "dump/shard/shard_coordinator.h"

namespace lakedump {
namespace {

PlannedUnit Unit(std::string table, uint64_t bytes, int index = 0, int count = 1) {
  PlannedUnit u;
  u.table = TableRef{"public", std::move(table)};
  u.index = index;
  u.count = count;
  u.estimated_bytes = bytes;
  u.estimated_rows = bytes / 10;
  return u;
}

ShardPlan SamplePlan() {
  ShardPlan p;
  p.dump_id = "20261201T120000Z-0a1b2c3d";
  p.created_at = "2026-12-01T12:00:00.000Z";
  p.snapshot_id = "00000003-0000001B-1";
  p.source = {{"kind", "postgresql"}, {"database_oid", "5"}, {"system_identifier", "7"}};
  p.options = {{"compression", "snappy"}, {"tables", nlohmann::json::array()}};
  PlannedUnit big0 = Unit("big", 1000, 0, 2);
  big0.range_predicate = "ctid < '(10,0)'::pg_catalog.tid";
  PlannedUnit big1 = Unit("big", 1000, 1, 2);
  big1.range_predicate = "ctid >= '(10,0)'::pg_catalog.tid";
  PlannedUnit q = Unit("recent", 5);
  q.table.schema = "query";
  q.is_query = true;
  p.shards = {{big0, q}, {big1, Unit("small", 1)}};
  p.attempt_tokens = {NewAttemptToken(), NewAttemptToken()};
  return p;
}

std::string Text(const nlohmann::json& j) { return j.dump(); }

TEST(ShardPlanTest, RoundTrip) {
  const ShardPlan p = SamplePlan();
  auto parsed = ParseShardPlan(Text(ToJson(p)), "_plan.json");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->dump_id, p.dump_id);
  EXPECT_EQ(parsed->snapshot_id, p.snapshot_id);
  EXPECT_EQ(parsed->source, p.source);
  EXPECT_EQ(parsed->options, p.options);
  ASSERT_EQ(parsed->shards.size(), 2u);
  ASSERT_EQ(parsed->shards[0].size(), 2u);
  EXPECT_EQ(parsed->shards[0][0].table, (TableRef{"public", "big"}));
  EXPECT_EQ(parsed->shards[0][0].count, 2);
  EXPECT_EQ(parsed->shards[0][0].range_predicate, "ctid < '(10,0)'::pg_catalog.tid");
  EXPECT_TRUE(parsed->shards[0][1].is_query);
  EXPECT_EQ(parsed->shards[1][1].table.name, "small");
  EXPECT_EQ(parsed->shards[1][1].estimated_bytes, 1u);
}

TEST(ShardPlanTest, HostilePlansAreCorruptionNamingTheProblem) {
  const nlohmann::json good = ToJson(SamplePlan());
  auto expect_corrupt = [](const std::string& text, const std::string& needle) {
    auto parsed = ParseShardPlan(text, "_plan.json");
    ASSERT_FALSE(parsed.ok()) << text.substr(0, 200);
    EXPECT_EQ(parsed.status().code(), Code::kCorruption);
    EXPECT_NE(parsed.status().message().find("_plan.json"), std::string::npos);
    EXPECT_NE(parsed.status().message().find(needle), std::string::npos)
        << parsed.status().message();
  };
  expect_corrupt("not json", "_plan.json");
  expect_corrupt("[1,2]", "_plan.json");
  expect_corrupt(std::string(100000, '[') + std::string(100000, ']'), "nested");
  nlohmann::json j = good;
  j["format"] = "lakedump-shard-report";
  expect_corrupt(Text(j), "format");
  j = good;
  j["version"] = 1;  // an older lakedump's (its reports were not compressed)
  expect_corrupt(Text(j), "version");
  j = good;
  j["shards"] = nlohmann::json::array();
  expect_corrupt(Text(j), "shards");
  j = good;
  j["shards"] = nlohmann::json::array();
  for (int i = 0; i <= kMaxShards; ++i) j["shards"].push_back(nlohmann::json::array());
  expect_corrupt(Text(j), "shards");
  j = good;
  j["shards"][0][0]["unit"] = 2;  // of 2
  expect_corrupt(Text(j), "unit 2 of 2");
  j = good;
  j["shards"][0][0]["unit"] = -1;
  expect_corrupt(Text(j), "unit -1");
  j = good;
  j["shards"][1][0]["unit"] = 0;  // big#0 in both shards
  expect_corrupt(Text(j), "planned twice");
  j = good;
  j["dump_id"] = "../../etc";
  expect_corrupt(Text(j), "dump_id");
  j = good;
  j["snapshot_id"] = "x'; DROP TABLE t; --";
  expect_corrupt(Text(j), "snapshot_id");
  j = good;
  j["shards"][0][0]["table"] = "";
  expect_corrupt(Text(j), "empty");
  j = good;
  j["shards"][0][0]["bytes"] = "many";
  expect_corrupt(Text(j), "malformed");
  j = good;
  j["shards"][0][0]["range"] = std::string(5000, 'x');
  expect_corrupt(Text(j), "too long");
  j = good;
  j["source"] = "postgres://user:secret@host/db";
  expect_corrupt(Text(j), "objects");
}

TEST(ShardPlanTest, AttemptTokensRoundTripAndMustCoverEveryShard) {
  const ShardPlan p = SamplePlan();
  auto parsed = ParseShardPlan(Text(ToJson(p)), "_plan.json");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->attempt_tokens, p.attempt_tokens);
  EXPECT_NE(p.attempt_tokens[0], p.attempt_tokens[1]);
  nlohmann::json j = ToJson(p);
  j["attempt_tokens"].erase(1);
  EXPECT_EQ(ParseShardPlan(Text(j), "_plan.json").status().code(), Code::kCorruption);
  j = ToJson(p);
  j["attempt_tokens"][0] = "../../x";
  EXPECT_EQ(ParseShardPlan(Text(j), "_plan.json").status().code(), Code::kCorruption);
  j = ToJson(p);
  j.erase("attempt_tokens");
  EXPECT_EQ(ParseShardPlan(Text(j), "_plan.json").status().code(), Code::kCorruption);
}

TEST(ShardPlanTest, NoSnapshotPlanNamesNoSnapshot) {
  ShardPlan p = SamplePlan();
  p.snapshot_id = "";
  p.options["no_snapshot"] = true;  // --no-snapshot, in the options every process shares
  const nlohmann::json written = ToJson(p);
  EXPECT_EQ(written["no_snapshot"], true);
  auto parsed = ParseShardPlan(Text(written), "_plan.json");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_TRUE(OptionsSayNoSnapshot(parsed->options));
  EXPECT_EQ(parsed->snapshot_id, "");
  EXPECT_FALSE(ToJson(SamplePlan()).contains("no_snapshot"));
  EXPECT_FALSE(OptionsSayNoSnapshot(ParseShardPlan(Text(ToJson(SamplePlan())), "_plan.json")
                                        ->options));
  // Hostile: a snapshot named anyway, a snapshot missing, a top-level field that disagrees.
  nlohmann::json j = written;
  j["snapshot_id"] = "00000003-0000001B-1";
  auto named = ParseShardPlan(Text(j), "_plan.json");
  ASSERT_FALSE(named.ok());
  EXPECT_EQ(named.status().code(), Code::kCorruption);
  EXPECT_NE(named.status().message().find("names a snapshot_id"), std::string::npos);
  j = ToJson(SamplePlan());
  j["snapshot_id"] = "";
  EXPECT_EQ(ParseShardPlan(Text(j), "_plan.json").status().code(), Code::kCorruption);
  j = ToJson(SamplePlan());
  j["no_snapshot"] = true;
  EXPECT_EQ(ParseShardPlan(Text(j), "_plan.json").status().code(), Code::kCorruption);
}

TEST(ShardPlanTest, AssignUnitsBalancesBytesLargestFirst) {
  std::vector<PlannedUnit> units;
  // A big table in 8 ranges plus 1000 small tables of varied sizes.
  for (int i = 0; i < 8; ++i) units.push_back(Unit("big", 8000, i, 8));
  for (int i = 0; i < 1000; ++i) units.push_back(Unit("t" + std::to_string(i), 1 + i % 7));
  auto shards = AssignUnits(units, 4);
  ASSERT_EQ(shards.size(), 4u);
  size_t total = 0;
  std::vector<uint64_t> load;
  for (const auto& s : shards) {
    total += s.size();
    uint64_t bytes = 0;
    for (const PlannedUnit& u : s) bytes += std::max<uint64_t>(1, u.estimated_bytes / u.count);
    load.push_back(bytes);
    // Largest first within each shard.
    for (size_t i = 1; i < s.size(); ++i) {
      EXPECT_GE(s[i - 1].estimated_bytes / s[i - 1].count, s[i].estimated_bytes / s[i].count);
    }
  }
  EXPECT_EQ(total, units.size());
  const auto [lo, hi] = std::minmax_element(load.begin(), load.end());
  EXPECT_LE(*hi - *lo, 7u) << "loads differ by more than the largest small unit";
  // Every big range went to a different shard than its neighbour (2 per shard).
  for (const auto& s : shards) {
    EXPECT_EQ(std::count_if(s.begin(), s.end(),
                            [](const PlannedUnit& u) { return u.table.name == "big"; }),
              2);
  }
  // Deterministic.
  auto again = AssignUnits(units, 4);
  for (size_t i = 0; i < 4; ++i) {
    ASSERT_EQ(again[i].size(), shards[i].size());
    for (size_t k = 0; k < again[i].size(); ++k) {
      EXPECT_EQ(again[i][k].table, shards[i][k].table);
      EXPECT_EQ(again[i][k].index, shards[i][k].index);
    }
  }
}

TEST(ShardPlanTest, AssignUnitsSpreadsEmptyTablesAndKeepsEmptyShards) {
  std::vector<PlannedUnit> units;
  for (int i = 0; i < 10; ++i) units.push_back(Unit("e" + std::to_string(i), 0));
  auto shards = AssignUnits(units, 3);
  EXPECT_EQ(shards[0].size() + shards[1].size() + shards[2].size(), 10u);
  for (const auto& s : shards) EXPECT_GE(s.size(), 3u);
  // More shards than units: the extra shards are empty (their workers report no units).
  auto many = AssignUnits({Unit("a", 5)}, 4);
  ASSERT_EQ(many.size(), 4u);
  EXPECT_EQ(many[0].size(), 1u);
  EXPECT_TRUE(many[3].empty());
}

std::map<std::string, std::string>* g_env = nullptr;
char* FakeGetenv(const char* name) {
  auto it = g_env->find(name);
  return it == g_env->end() ? nullptr : it->second.data();
}

TEST(ShardPlanTest, IndexFromSchedulerEnvironment) {
  std::map<std::string, std::string> env;
  g_env = &env;
  auto none = ShardIndexFromEnv(&FakeGetenv);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), Code::kInvalidArgument);
  EXPECT_NE(none.status().message().find("JOB_COMPLETION_INDEX"), std::string::npos);

  env["AWS_BATCH_JOB_ARRAY_INDEX"] = "7";
  EXPECT_EQ(*ShardIndexFromEnv(&FakeGetenv), 7);
  env["SLURM_ARRAY_TASK_ID"] = "3";
  EXPECT_EQ(*ShardIndexFromEnv(&FakeGetenv), 3);
  env["JOB_COMPLETION_INDEX"] = "0";
  EXPECT_EQ(*ShardIndexFromEnv(&FakeGetenv), 0);
  for (const char* bad : {"", "-1", "1x", "99999999999", " 2"}) {
    env["JOB_COMPLETION_INDEX"] = bad;
    auto r = ShardIndexFromEnv(&FakeGetenv);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("JOB_COMPLETION_INDEX"), std::string::npos);
  }
  EXPECT_FALSE(ShardCountFromEnv(&FakeGetenv)->has_value());
  env["SLURM_ARRAY_TASK_COUNT"] = "4";
  EXPECT_EQ(ShardCountFromEnv(&FakeGetenv)->value(), 4);
  env["SLURM_ARRAY_TASK_COUNT"] = "four";
  EXPECT_FALSE(ShardCountFromEnv(&FakeGetenv).ok());
  g_env = nullptr;
}

DataFile File(const std::string& key, uint64_t rows, uint64_t bytes) {
  DataFile f;
  f.key = key;
  f.rows = rows;
  f.bytes = bytes;
  f.xxh64 = "0123456789abcdef";
  return f;
}

ShardReport SampleReport() {
  ShardReport r;
  r.dump_id = "20261201T120000Z-0a1b2c3d";
  r.shard = 1;
  r.attempt = NewAttemptId(r.dump_id, 1);
  r.finished_at = "2026-12-01T12:01:00.000Z";
  r.token = "00112233aabbccdd";
  UnitOutput u;
  u.table = TableRef{"public", "big"};
  u.unit = 1;
  u.schema.AddColumn(Column{"id", LogicalType::Of(TypeId::kInt64), false, "bigint"});
  u.files.push_back(File(DataFileKey(u.table, "", 1, 0, r.attempt), 10, 100));
  r.units.push_back(u);
  return r;
}

TEST(ShardReportTest, RoundTripAndAttemptOfKey) {
  const ShardReport r = SampleReport();
  auto text = SerializeShardReport(r);
  ASSERT_TRUE(text.ok());
  auto parsed = ParseShardReport(*text, "report");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->attempt, r.attempt);
  EXPECT_EQ(parsed->shard, 1);
  ASSERT_EQ(parsed->units.size(), 1u);
  EXPECT_EQ(parsed->units[0].unit, 1);
  EXPECT_EQ(parsed->units[0].schema.num_columns(), 1u);
  ASSERT_EQ(parsed->units[0].files.size(), 1u);
  EXPECT_EQ(parsed->units[0].files[0].key, r.units[0].files[0].key);
  EXPECT_EQ(AttemptOfKey(r.units[0].files[0].key, r.dump_id), r.attempt);
  EXPECT_EQ(AttemptOfKey("public/big/part-0-0-20261201T120000Z-0a1b2c3d.parquet", r.dump_id), "");
  EXPECT_EQ(AttemptOfKey("x-" + r.dump_id + "-s12-0000000g", r.dump_id), "");
  EXPECT_EQ(ShardReportKey(3, "A", false), "_shards/3/report-A.json.zst");
  EXPECT_EQ(ShardReportKey(3, "A", true), "_shards/3/failed-A.json.zst");
}

TEST(ShardReportTest, AReportCannotClaimFilesOfAnotherTableOrAttempt) {
  ShardReport r = SampleReport();
  r.units[0].files[0].key = "public/other/part-1-0-" + r.attempt + ".parquet";
  auto parsed = ParseShardReport(*SerializeShardReport(r), "report");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().code(), Code::kCorruption);
  EXPECT_NE(parsed.status().message().find("not one of this shard's attempts' files"),
            std::string::npos);

  r = SampleReport();
  r.units[0].files[0].key = "public/big/part-1-0-" + r.dump_id + "-s0-00000000.parquet";
  EXPECT_FALSE(ParseShardReport(*SerializeShardReport(r), "report").ok());

  r = SampleReport();
  r.units[0].files[0].key = "public/big/../../" + r.attempt;
  EXPECT_FALSE(ParseShardReport(*SerializeShardReport(r), "report").ok());

  r = SampleReport();
  r.shard = -3;
  EXPECT_FALSE(ParseShardReport(*SerializeShardReport(r), "report").ok());
}

TEST(ShardReportTest, AReportMayNameAnEarlierAttemptOfItsShardAProgressObjectOnlyItsOwn) {
  ShardReport r = SampleReport();
  const std::string earlier = NewAttemptId(r.dump_id, 1);
  r.units[0].files.push_back(File(DataFileKey(r.units[0].table, "", 1, 0, earlier), 5, 50));
  // A retry's report: the units it took over carry the earlier attempt's files.
  auto report = ParseShardReport(*SerializeShardReport(r), "report");
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->units[0].files[1].key, r.units[0].files[1].key);
  // A progress object names only what its own attempt wrote.
  auto progress = ParseShardProgress(*SerializeShardProgress(r), "progress");
  ASSERT_FALSE(progress.ok());
  EXPECT_NE(progress.status().message().find("not one of this attempt's files"),
            std::string::npos)
      << progress.status().message();
  r.units[0].files.pop_back();
  progress = ParseShardProgress(*SerializeShardProgress(r), "progress");
  ASSERT_TRUE(progress.ok()) << progress.status().ToString();
  EXPECT_EQ(progress->attempt, r.attempt);
  EXPECT_EQ(ShardProgressKey(1, r.attempt), "_shards/1/progress-" + r.attempt + ".json.zst");
  // One is not the other.
  EXPECT_FALSE(ParseShardReport(*SerializeShardProgress(r), "progress").ok());
  EXPECT_FALSE(ParseShardProgress(*SerializeShardReport(r), "report").ok());
  // An attempt id of another shard, or of another dump, is refused in either.
  ShardReport other = SampleReport();
  other.attempt = NewAttemptId(r.dump_id, 2);
  other.units[0].files[0].key = DataFileKey(other.units[0].table, "", 1, 0, other.attempt);
  EXPECT_FALSE(ParseShardReport(*SerializeShardReport(other), "report").ok());
  EXPECT_FALSE(ParseShardProgress(*SerializeShardProgress(other), "progress").ok());
  other.attempt = NewAttemptId("20261201T120000Z-ffffffff", 1);
  other.units[0].files[0].key = DataFileKey(other.units[0].table, "", 1, 0, other.attempt);
  EXPECT_FALSE(ParseShardReport(*SerializeShardReport(other), "report").ok());
}

std::string Zstd(std::string_view text) {
  std::string out;
  EXPECT_TRUE((*MakeCodec(CodecKind::kZstd))->Compress(text, &out).ok());
  return out;
}

TEST(ShardReportTest, StoredCompressedAndBoundedBeforeDecompressing) {
  const ShardReport r = SampleReport();
  const std::string stored = *SerializeShardReport(r);
  auto declared = ZstdDeclaredSize(stored);
  ASSERT_TRUE(declared.ok());
  std::string text;
  ASSERT_TRUE((*MakeCodec(CodecKind::kZstd))->Decompress(stored, *declared, &text).ok());
  // Compact JSON inside.
  auto j = nlohmann::json::parse(text);
  EXPECT_EQ(j["format"], "lakedump-shard-report");
  EXPECT_EQ(text.find("\n  "), std::string::npos);
  // Hostile stored forms: each one Corruption naming the document, nothing allocated for a
  // size past the bound.
  auto refused = [](const std::string& bytes, std::string_view why) {
    auto parsed = ParseShardReport(bytes, "_shards/1/report-x.json.zst");
    ASSERT_FALSE(parsed.ok()) << why;
    EXPECT_EQ(parsed.status().code(), Code::kCorruption) << why;
    EXPECT_NE(parsed.status().message().find("_shards/1/report-x.json.zst"), std::string::npos)
        << parsed.status().message();
    EXPECT_NE(parsed.status().message().find(why), std::string::npos)
        << parsed.status().message();
  };
  refused(text, "not zstd data");              // the JSON, uncompressed
  refused(Zstd("{\"format\": "), "JSON");      // compressed, not JSON
  refused(stored.substr(0, stored.size() / 2), "zstd");  // cut short
  // A frame that declares more than the bound (33 MiB of zeros: a few KB compressed).
  refused(Zstd(std::string((kMaxShardDocumentBytes + (1u << 20)), '\0')),
          "its JSON would be 34603008 bytes");
  // A frame whose declared size is not what it holds: its header's size field says 1 byte
  // less (single-segment frame of a small input: the size is the byte after the descriptor).
  std::string lying = stored;
  ASSERT_GE(lying.size(), 6u);
  const uint8_t descriptor = static_cast<uint8_t>(lying[4]);
  ASSERT_EQ(descriptor & 0x20, 0x20) << "single segment";
  ASSERT_EQ(descriptor >> 6, 1) << "a 2-byte size field";
  uint16_t size = static_cast<uint8_t>(lying[5]) | static_cast<uint8_t>(lying[6]) << 8;
  size -= 1;
  lying[5] = static_cast<char>(size & 0xff);
  lying[6] = static_cast<char>(size >> 8);
  refused(lying, "zstd");
}

TEST(ShardPlanTest, OptionsMismatchNamesTheFirstDifference) {
  nlohmann::json a = {{"compression", "zstd"}, {"tables", {"a*"}}};
  EXPECT_EQ(OptionsMismatch(a, a), "");
  nlohmann::json b = a;
  b["compression"] = "snappy";
  const std::string diff = OptionsMismatch(a, b);
  EXPECT_NE(diff.find("compression"), std::string::npos);
  EXPECT_NE(diff.find("zstd"), std::string::npos);
  EXPECT_NE(diff.find("snappy"), std::string::npos);
  nlohmann::json c = a;
  c.erase("tables");
  EXPECT_NE(OptionsMismatch(a, c).find("tables"), std::string::npos);
  EXPECT_NE(OptionsMismatch(c, a).find("tables"), std::string::npos);
  EXPECT_NE(OptionsMismatch("x", a), "");
}

// A signed dump's plan, reports and progress objects carry the key's MAC: a worker or
// coordinator holding the key refuses one written by anyone else (an attacker who can write
// to the bucket but does not hold the key), or edited after.
TEST(ShardPlanTest, SignedDocumentsAreRefusedWithoutTheKeysMac) {
  const std::string key(32, 'k');
  const std::string other(32, 'o');
  const ShardPlan p = SamplePlan();
  auto signed_plan = SerializeShardPlan(p, key);
  ASSERT_TRUE(signed_plan.ok());
  EXPECT_TRUE(ParseShardPlan(*signed_plan, "_plan.json", key).ok());
  auto expect_denied = [](const Status& s, std::string_view needle) {
    EXPECT_EQ(s.code(), Code::kPermissionDenied) << s.ToString();
    EXPECT_NE(s.message().find(needle), std::string::npos) << s.message();
  };
  // Unsigned (a planted plan), signed with another key, or edited after.
  expect_denied(ParseShardPlan(*SerializeShardPlan(p), "_plan.json", key).status(), "missing");
  expect_denied(ParseShardPlan(*SerializeShardPlan(p, other), "_plan.json", key).status(),
                "not the key's");
  nlohmann::json edited = nlohmann::json::parse(*signed_plan);
  edited["shards"][1][1]["schema"] = "pg_catalog";
  edited["shards"][1][1]["table"] = "pg_authid";
  expect_denied(ParseShardPlan(edited.dump(), "_plan.json", key).status(), "not the key's");

  ShardReport r = SampleReport();
  EXPECT_TRUE(ParseShardReport(*SerializeShardReport(r, key), "report", key).ok());
  expect_denied(ParseShardReport(*SerializeShardReport(r), "report", key).status(), "missing");
  expect_denied(ParseShardReport(*SerializeShardReport(r, other), "report", key).status(),
                "not the key's");
  EXPECT_TRUE(ParseShardProgress(*SerializeShardProgress(r, key), "progress", key).ok());
  expect_denied(ParseShardProgress(*SerializeShardProgress(r), "progress", key).status(),
                "missing");
  // A report's token must be one: nothing else passes.
  r.token = "not a token";
  EXPECT_EQ(ParseShardReport(*SerializeShardReport(r), "report").status().code(),
            Code::kCorruption);
}

}  // namespace
}  // namespace lakedump
