// The shared setup of the incremental dump tests (incremental_test.cc,
// incremental_iceberg_test.cc, incremental_iceberg_evolve_test.cc,
// incremental_iceberg_compact_test.cc) against the test
// PostgreSQL (wal_level=logical): a scratch source database whose replication slots are
// dropped after the test, a DEST folder, replicas loaded from it, the rows of a database as
// pg_dump prints them, and for Iceberg bases the rows icebird (tests/interop) reads.
#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <initializer_list>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "fakes/cli_run.h"
#include "fakes/temp_dir.h"
#include "integration/pg_slot_cleanup.h"
#include "integration/pg_test_util.h"

namespace lakedump::testing_inc {

inline std::string PgBin() {
  const char* bin = std::getenv("LD_TEST_PG_BIN");
  return bin && *bin ? bin : "/usr/lib/postgresql/15/bin";
}

// The rows of every table as pg_dump --data-only prints them, sorted (physical order
// differs between a source and its replica). `pg_dump_args`: more arguments.
inline std::string DataOf(const std::string& conninfo, const std::string& pg_dump_args = "") {
  TempDir tmp;
  const std::string out = tmp.Sub("data.sql");
  // lakedump's own record of the increments applied (applied_increments.h) is not data.
  const std::string cmd =
      fmt::format("{}/pg_dump --data-only --exclude-schema lakedump {} -d {} > {} 2>&1",
                  PgBin(), pg_dump_args, testing_cli::Quote(conninfo), out);
  EXPECT_EQ(std::system(cmd.c_str()), 0) << testing_cli::ReadFile(out);
  std::istringstream in(testing_cli::ReadFile(out));
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line.starts_with("--") || line.starts_with("\\restrict") ||
        line.starts_with("\\unrestrict") ||
        line.starts_with("SET ") || line.starts_with("SELECT pg_catalog.set_config")) {
      continue;
    }
    lines.push_back(line);
  }
  std::sort(lines.begin(), lines.end());
  std::string joined;
  for (const std::string& l : lines) joined += l + "\n";
  return joined;
}

// Runs `sql` on `conninfo` (search_path public).
inline void RunSql(const std::string& conninfo, const std::string& sql) {
  auto c = PgConn::Connect(conninfo, 10);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  Status s = (*c)->Exec("SET search_path = public; " + sql);
  ASSERT_TRUE(s.ok()) << sql << ": " << s.ToString();
}

// Rows as sorted JSON texts, so that two reads compare whatever their order.
inline std::vector<std::string> Canonical(const nlohmann::json& rows) {
  std::vector<std::string> out;
  for (const nlohmann::json& r : rows) out.push_back(r.dump());
  std::sort(out.begin(), out.end());
  return out;
}

// A scratch source (its slots dropped at the end), DEST, and replicas.
class IncrementalFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    LD_REQUIRE_LOGICAL_PG(admin_);
    src_ = std::make_unique<testing_pg::ScratchDatabase>(admin_.get());
    slots_ = std::make_unique<testing_pg::SlotCleanup>(admin_.get(), src_->name());
    dest_ = tmp_.Sub("dest");
  }
  void TearDown() override {
    slots_.reset();
    replicas_.clear();
    src_.reset();
  }
  void Sql(const std::string& sql) { RunSql(src_->conninfo(), sql); }
  // A new empty database.
  std::string EmptyReplica() {
    replicas_.push_back(std::make_unique<testing_pg::ScratchDatabase>(admin_.get()));
    return replicas_.back()->conninfo();
  }
  // A new database loaded from DEST (trusted) with `args`.
  std::string Replica(const std::string& args = "") {
    const std::string conninfo = EmptyReplica();
    testing_cli::RunResult r = testing_cli::RunLakedump(
        fmt::format("load {} {} --trust-dump --progress none {}", testing_cli::Quote(dest_),
                    testing_cli::Quote(conninfo), args),
        tmp_, 600);
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    return conninfo;
  }
  testing_cli::RunResult Verify() {
    return testing_cli::RunLakedump("verify " + testing_cli::Quote(dest_), tmp_, 600);
  }

  std::unique_ptr<PgConn> admin_;
  std::unique_ptr<testing_pg::ScratchDatabase> src_;
  std::unique_ptr<testing_pg::SlotCleanup> slots_;
  std::vector<std::unique_ptr<testing_pg::ScratchDatabase>> replicas_;
  TempDir tmp_;
  std::string dest_;
};

// An Iceberg base (--table-format iceberg) read back by icebird.
class IcebergIncrementalFixture : public IncrementalFixture {
 protected:
  void SetUp() override {
    IncrementalFixture::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    interop_ = testing_cli::InteropDir();
    if (interop_.empty()) GTEST_SKIP() << "LD_INTEROP_DIR with node_modules not found";
  }
  testing_cli::RunResult Dump(const std::string& extra = "") {
    return testing_cli::RunLakedump(
        fmt::format("dump {} {} --incremental --table-format iceberg --progress none {}",
                    testing_cli::Quote(src_->conninfo()), testing_cli::Quote(dest_), extra),
        tmp_, 600);
  }
  // The source's rows of `table` as JSON, each row `row_expr` over the table as t (the
  // whole row by default: int and text columns read as icebird shows them).
  nlohmann::json SourceRows(const std::string& table, const std::string& row_expr = "t") {
    return RowsOf(src_->conninfo(), table, row_expr);
  }
  // The same of the database `conninfo` (a replica).
  static nlohmann::json RowsOf(const std::string& conninfo, const std::string& table,
                               const std::string& row_expr = "t") {
    auto c = PgConn::Connect(conninfo, 10);
    EXPECT_TRUE(c.ok());
    if (!c.ok()) return nlohmann::json::array();
    return nlohmann::json::parse(testing_pg::QueryOne(
        **c, fmt::format("SELECT coalesce(json_agg({}), '[]') FROM public.{} t", row_expr,
                         table)));
  }
  // The table read by icebird: at its current snapshot, or with `args` (--snapshot ID).
  nlohmann::json IcebirdRows(const std::string& table, const std::string& args = "") {
    const std::string out = tmp_.Sub("icebird-" + table + ".json");
    const std::string cmd =
        fmt::format("node {}/iceberg_read.mjs {} --rows {} >{} 2>&1", interop_,
                    testing_cli::Quote("file://" + dest_ + "/public/" + table), args, out);
    const int rc = std::system(cmd.c_str());
    const std::string text = testing_cli::ReadFile(out);
    EXPECT_EQ(WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, 0) << text.substr(0, 2000);
    const nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    return j.is_object() && j.contains("values") ? j["values"] : nlohmann::json::array();
  }
  // Every table read by icebird equals the source.
  void ExpectIcebirdReadsSource(const std::string& when,
                                std::initializer_list<const char*> tables) {
    for (const char* table : tables) {
      const std::vector<std::string> want = Canonical(SourceRows(table));
      const std::vector<std::string> got = Canonical(IcebirdRows(table));
      EXPECT_EQ(got.size(), want.size()) << when << ": table " << table;
      EXPECT_TRUE(got == want) << when << ": table " << table << " differs";
    }
  }
  // The table's current metadata, as version-hint.text names it.
  nlohmann::json Metadata(const std::string& table) {
    const std::string meta = dest_ + "/public/" + table + "/metadata/";
    const std::string version = testing_cli::ReadFile(meta + "version-hint.text");
    return nlohmann::json::parse(testing_cli::ReadFile(meta + "v" + version + ".metadata.json"));
  }
  // The current snapshot of `table` as its metadata names it.
  nlohmann::json CurrentSnapshot(const std::string& table) {
    const nlohmann::json m = Metadata(table);
    for (const nlohmann::json& s : m["snapshots"]) {
      if (s["snapshot-id"] == m["current-snapshot-id"]) return s;
    }
    return nlohmann::json::object();
  }

  std::string interop_;
};

}  // namespace lakedump::testing_inc
