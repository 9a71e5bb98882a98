// The option-combination rules of `lakedump dump` (cli/dump_args.h): one table, checked in one
// place, each refusal with its one-line message and exit code 2.
#include "cli/dump_args.h"

#include <gtest/gtest.h>

#include <string>

namespace lakedump::cli {
namespace {

constexpr const char* kPg = "postgres://db/app";
constexpr const char* kSqlite = "app.sqlite";

DumpArgs Args(const char* source) {
  DumpArgs a;
  a.source = source;
  a.dest = "out";
  return a;
}

// The message of the first rule refusing `a` ("" when none does); *code its exit code.
std::string Refusal(const DumpArgs& a, int* code = nullptr) {
  auto options = BuildOptions(a);
  EXPECT_TRUE(options.ok()) << options.status().ToString();
  if (!options.ok()) return "";
  int exit_code = -1;
  Status s = CheckDumpFlagRules(a, *options, &exit_code);
  if (code != nullptr) *code = exit_code;
  return s.ok() ? "" : s.message();
}

TEST(DumpFlagRulesCliTest, OrdinaryCoordinatorAndWorkerPass) {
  EXPECT_EQ(Refusal(Args(kSqlite)), "");
  DumpArgs coordinator = Args(kPg);
  coordinator.shards = 4;
  coordinator.coordinate = true;
  EXPECT_EQ(Refusal(coordinator), "");
  DumpArgs worker = Args(kPg);
  worker.shards = 4;
  worker.shard = "auto";
  EXPECT_EQ(Refusal(worker), "");
  DumpArgs incremental = Args(kPg);
  incremental.incremental = true;
  EXPECT_EQ(Refusal(incremental), "");
}

TEST(DumpFlagRulesCliTest, ShardingFlagsThatDoNotFitTogether) {
  DumpArgs a = Args(kPg);
  a.shards = 2;
  a.coordinate = true;
  a.shard = "1";
  int code = 0;
  EXPECT_NE(Refusal(a, &code).find("exclude each other"), std::string::npos);
  EXPECT_EQ(code, kExitUsage);
  a = Args(kPg);
  a.coordinate = true;
  EXPECT_NE(Refusal(a).find("--coordinate needs --shards N"), std::string::npos);
  a = Args(kPg);
  a.shards = 2;
  EXPECT_NE(Refusal(a).find("add --coordinate"), std::string::npos);
}

TEST(DumpFlagRulesCliTest, SqliteSourcesMayBeShardedAndNoSnapshotNeedsShards) {
  DumpArgs a = Args(kSqlite);
  a.shards = 2;
  a.coordinate = true;
  EXPECT_EQ(Refusal(a), "");  // WAL mode is refused once the file is opened
  a.no_snapshot = true;
  EXPECT_EQ(Refusal(a), "");
  a = Args(kPg);
  a.no_snapshot = true;
  int code = 0;
  EXPECT_NE(Refusal(a, &code).find("--no-snapshot is for sharded dumps"), std::string::npos);
  EXPECT_EQ(code, kExitUsage);
}

TEST(DumpFlagRulesCliTest, ShardsRefuseIcebergButResumeTheCoordinator) {
  DumpArgs a = Args(kPg);
  a.shards = 2;
  a.shard = "0";
  a.table_format = "iceberg";
  EXPECT_EQ(Refusal(a), "--table-format iceberg cannot be combined with --shards");
  a = Args(kPg);
  a.shards = 2;
  a.coordinate = true;
  a.if_exists = "resume";
  EXPECT_EQ(Refusal(a), "") << "a restart after a dead coordinator (docs/scale-out.md)";
  a.coordinate = false;
  a.shard = "0";
  EXPECT_EQ(Refusal(a), "") << "a worker's --if-exists is not the coordinator's";
}

TEST(DumpFlagRulesCliTest, IncrementalRefusals) {
  DumpArgs a = Args(kPg);
  a.incremental = true;
  a.shards = 2;
  a.coordinate = true;
  EXPECT_NE(Refusal(a).find("--incremental cannot be combined with --shards"), std::string::npos);
  // A worker too (it used to ignore --incremental).
  a.coordinate = false;
  a.shard = "0";
  EXPECT_NE(Refusal(a).find("--incremental cannot be combined with --shards"), std::string::npos);
  a = Args(kSqlite);
  a.incremental = true;
  EXPECT_NE(Refusal(a).find("--incremental needs a PostgreSQL source"), std::string::npos);
  a = Args(kPg);
  a.incremental = true;
  a.table_format = "iceberg";
  EXPECT_EQ(Refusal(a), "");  // an Iceberg base: its increments are Iceberg snapshots
  a.partition_by = "id";
  EXPECT_NE(Refusal(a).find("--incremental with --table-format iceberg cannot be combined with "
                            "--partition-by"),
            std::string::npos);
  a = Args(kPg);
  a.incremental = true;
  a.queries = {"q=SELECT 1"};
  EXPECT_EQ(Refusal(a), "--incremental cannot follow --query results: dump tables");
}

TEST(DumpFlagRulesCliTest, EveryRuleRefusesWithExitCodeTwo) {
  ASSERT_FALSE(DumpFlagRules().empty());
  for (const DumpFlagRule& rule : DumpFlagRules()) {
    EXPECT_EQ(rule.exit_code, kExitUsage) << rule.message;
    EXPECT_EQ(std::string(rule.message).find('\n'), std::string::npos) << rule.message;
  }
}

}  // namespace
}  // namespace lakedump::cli
