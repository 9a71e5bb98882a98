// Slots and publications of incremental dumps held to "bytes from DEST are data" (issue 29,
// docs/incremental.md "Slots and publications", docs/security.md), written as an attacker
// with write access to DEST would: a replaced base manifest that names another consumer's
// slot and publication, or another host, makes lakedump neither drop nor advance anything,
// nor connect anywhere but where the user said. Against the test PostgreSQL (wal_level =
// logical) and a fake server on 127.0.0.1 that records what clients send it.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "fakes/cli_run.h"
#include "fakes/temp_dir.h"
#include "integration/fake_pg_listener.h"
#include "integration/pg_slot_cleanup.h"
#include "integration/pg_test_util.h"

namespace lakedump {
namespace {

using testing_cli::ExpectOneLineError;
using testing_cli::Quote;
using testing_cli::RunLakedump;
using testing_cli::RunResult;
using testing_pg::AdminConn;
using testing_pg::FakePgListener;
using testing_pg::QueryOne;
using testing_pg::ScratchDatabase;
using testing_pg::SlotCleanup;

constexpr const char* kPassword = "slots-secret-pw-29";

class IncrementalSlotTest : public ::testing::Test {
 protected:
  void SetUp() override {
    LD_REQUIRE_LOGICAL_PG(admin_);
    src_ = std::make_unique<ScratchDatabase>(admin_.get());
    slots_ = std::make_unique<SlotCleanup>(admin_.get(), src_->name());
    dest_ = tmp_.Sub("dest");
    ASSERT_TRUE(testing_pg::RunSqlIn(
        *src_, "CREATE TABLE t (id int PRIMARY KEY, v text); "
               "INSERT INTO t SELECT g, 'v' || g FROM generate_series(1, 100) g"));
    src_conn_ = AdminConn(src_->conninfo());
    ASSERT_NE(src_conn_, nullptr);
  }
  void TearDown() override {
    src_conn_.reset();
    slots_.reset();
    src_.reset();
  }
  RunResult Dump() {
    return RunLakedump(fmt::format("dump {} {} --incremental --progress none",
                                   Quote(src_->conninfo()), Quote(dest_)),
                       tmp_, 300);
  }
  RunResult DropSlot(const std::string& extra) {
    return RunLakedump(fmt::format("gc {} --drop-slot {}", Quote(dest_), extra), tmp_, 120);
  }
  nlohmann::json Manifest() {
    return nlohmann::json::parse(testing_cli::ReadFile(dest_ + "/_manifest.json"));
  }
  void WriteManifest(const nlohmann::json& m) {
    testing_cli::WriteFile(dest_ + "/_manifest.json", m.dump());
  }
  // The base's manifest with its slot and publication replaced (as an attacker would).
  void NameInManifest(const std::string& slot, const std::string& publication) {
    nlohmann::json m = Manifest();
    m["incremental"]["slot"] = slot;
    m["incremental"]["publication"] = publication;
    WriteManifest(m);
  }
  std::string Sql(const std::string& sql) { return QueryOne(*src_conn_, sql); }
  bool SlotExists(const std::string& slot) {
    return Sql(fmt::format("SELECT count(*) FROM pg_replication_slots WHERE slot_name = '{}'",
                           slot)) == "1";
  }
  bool PublicationExists(const std::string& pub) {
    return Sql(fmt::format("SELECT count(*) FROM pg_publication WHERE pubname = '{}'", pub)) ==
           "1";
  }
  std::string ConfirmedFlush(const std::string& slot) {
    return Sql(fmt::format(
        "SELECT confirmed_flush_lsn::text FROM pg_replication_slots WHERE slot_name = '{}'",
        slot));
  }
  bool Committed(int n) {
    return std::filesystem::exists(fmt::format("{}/_increments/{:06d}/_manifest.json", dest_, n));
  }
  // Another consumer of the source: its own logical slot and publication, its slot behind
  // some changes.
  void MakeOtherConsumer(const std::string& slot, const std::string& pub) {
    Sql(fmt::format("SELECT 1 FROM pg_create_logical_replication_slot('{}', 'pgoutput')", slot));
    ASSERT_TRUE(testing_pg::RunSqlIn(
        *src_, fmt::format("CREATE PUBLICATION {} FOR TABLE t; "
                           "INSERT INTO t SELECT (SELECT max(id) FROM t) + g, 'w' "
                           "FROM generate_series(1, 100) g",
                           pub)));
  }
  // Both refusals leave the other consumer's slot where it was and its publication there.
  void ExpectLeftAlone(const std::string& slot, const std::string& pub, const char* why) {
    const std::string before = ConfirmedFlush(slot);
    ExpectOneLineError(DropSlot("--source " + Quote(src_->conninfo())), 2, why);
    ExpectOneLineError(Dump(), 2, why);
    EXPECT_TRUE(SlotExists(slot));
    EXPECT_TRUE(PublicationExists(pub));
    EXPECT_EQ(ConfirmedFlush(slot), before);
    EXPECT_FALSE(Committed(1));
  }

  std::unique_ptr<PgConn> admin_;
  std::unique_ptr<ScratchDatabase> src_;
  std::unique_ptr<SlotCleanup> slots_;
  std::unique_ptr<PgConn> src_conn_;
  TempDir tmp_;
  std::string dest_;
};

// The slot and publication are named after the dump id, and the publication carries the
// marker naming both; gc --drop-slot with the user's --source drops lakedump's own.
TEST_F(IncrementalSlotTest, OwnSlotIsNamedAfterTheDumpIdAndDroppedByGc) {
  RunResult base = Dump();
  ASSERT_EQ(base.code, 0) << base.err;
  const nlohmann::json m = Manifest();
  std::string expected = "lakedump_" + m["dump_id"].get<std::string>();
  for (char& c : expected) c = c == '-' ? '_' : static_cast<char>(std::tolower(c));
  const std::string slot = m["incremental"]["slot"];
  EXPECT_EQ(slot, expected);
  EXPECT_EQ(m["incremental"]["publication"], expected);
  EXPECT_EQ(Sql(fmt::format("SELECT obj_description(oid, 'pg_publication') FROM pg_publication "
                            "WHERE pubname = '{}'",
                            slot)),
            fmt::format("lakedump incremental base: dump_id={} slot={}",
                        m["dump_id"].get<std::string>(), slot));
  ASSERT_EQ(Dump().code, 0);  // an increment
  EXPECT_TRUE(Committed(1));
  // Without --source: refused, nothing dropped.
  ExpectOneLineError(DropSlot(""), 2, "needs --source");
  EXPECT_TRUE(SlotExists(slot));
  // --source reaching another database: refused, nothing dropped.
  ScratchDatabase other(admin_.get());
  ExpectOneLineError(DropSlot("--source " + Quote(other.conninfo())), 2, "not the database");
  EXPECT_TRUE(SlotExists(slot));
  RunResult gc = DropSlot("--source " + Quote(src_->conninfo()));
  EXPECT_EQ(gc.code, 0) << gc.err;
  EXPECT_FALSE(SlotExists(slot));
  EXPECT_FALSE(PublicationExists(slot));
  ExpectOneLineError(Dump(), 2, "is gone");
  EXPECT_EQ(DropSlot("--source " + Quote(src_->conninfo())).code, 0);  // nothing left: fine
}

// A replaced manifest naming another consumer's slot and publication: gc --drop-slot neither
// drops them, and an increment neither reads, alters nor advances them.
TEST_F(IncrementalSlotTest, AnotherConsumersSlotNamedInTheManifestIsLeftAlone) {
  ASSERT_EQ(Dump().code, 0);
  const std::string own = Manifest()["incremental"]["slot"];
  MakeOtherConsumer("consumer_slots29", "consumer_pub29");
  NameInManifest("consumer_slots29", "consumer_pub29");
  ExpectLeftAlone("consumer_slots29", "consumer_pub29", "other than lakedump_");
  // A consumer whose names look like those of a base made before dump-id names.
  const std::string old_style = "lakedump_0123456789abcdef";
  MakeOtherConsumer(old_style, old_style);
  NameInManifest(old_style, old_style);
  ExpectLeftAlone(old_style, old_style, "made before lakedump named its slot");
  // Another dump id whose names belong to a slot and publication lakedump did not mark.
  nlohmann::json m = Manifest();
  m["dump_id"] = "20200101T000000Z-0badc0de";
  m["incremental"]["slot"] = m["incremental"]["publication"] = "lakedump_20200101t000000z_0badc0de";
  WriteManifest(m);
  MakeOtherConsumer("lakedump_20200101t000000z_0badc0de", "lakedump_20200101t000000z_0badc0de");
  ExpectLeftAlone("lakedump_20200101t000000z_0badc0de", "lakedump_20200101t000000z_0badc0de",
                  "does not carry the comment");
  // lakedump's own slot was never touched either.
  EXPECT_TRUE(SlotExists(own));
}

// A new base over an incremental base drops the old base's own slot and publication, but
// leaves another consumer's that a replaced manifest names (with a warning).
TEST_F(IncrementalSlotTest, NewBaseDropsOnlyTheOldBasesOwnSlot) {
  ASSERT_EQ(Dump().code, 0);
  const std::string first = Manifest()["incremental"]["slot"];
  RunResult again = RunLakedump(fmt::format("dump {} {} --incremental --progress none "
                                            "--if-exists overwrite",
                                            Quote(src_->conninfo()), Quote(dest_)),
                                tmp_, 300);
  ASSERT_EQ(again.code, 0) << again.err;
  const std::string second = Manifest()["incremental"]["slot"];
  EXPECT_NE(second, first);
  EXPECT_FALSE(SlotExists(first));
  EXPECT_FALSE(PublicationExists(first));
  EXPECT_TRUE(SlotExists(second));
  MakeOtherConsumer("consumer_slots29", "consumer_pub29");
  NameInManifest("consumer_slots29", "consumer_pub29");
  const std::string before = ConfirmedFlush("consumer_slots29");
  RunResult third = RunLakedump(fmt::format("dump {} {} --incremental --progress none "
                                            "--if-exists overwrite",
                                            Quote(src_->conninfo()), Quote(dest_)),
                                tmp_, 300);
  ASSERT_EQ(third.code, 0) << third.err;
  EXPECT_NE(third.err.find("was left alone"), std::string::npos) << third.err;
  EXPECT_TRUE(SlotExists("consumer_slots29"));
  EXPECT_TRUE(PublicationExists("consumer_pub29"));
  EXPECT_EQ(ConfirmedFlush("consumer_slots29"), before);
}

// A replaced manifest naming a host (the fake server): neither gc --drop-slot (with or without
// --source) nor an increment connects to it, and the password never reaches it.
TEST_F(IncrementalSlotTest, HostNamedInTheManifestIsNeverContacted) {
  FakePgListener fake;
  ASSERT_NE(fake.port(), 0);
  ASSERT_EQ(Dump().code, 0);
  const std::string slot = Manifest()["incremental"]["slot"];
  nlohmann::json m = Manifest();
  m["source"]["host"] = "127.0.0.1";
  m["source"]["port"] = std::to_string(fake.port());
  m["source"]["user"] = "victim";
  WriteManifest(m);
  setenv("PGPASSWORD", kPassword, 1);
  ExpectOneLineError(DropSlot(""), 2, "needs --source");
  RunResult increment = Dump();
  EXPECT_EQ(increment.code, 0) << increment.err;
  RunResult gc = DropSlot("--source " + Quote(src_->conninfo()));
  EXPECT_EQ(gc.code, 0) << gc.err;
  EXPECT_FALSE(SlotExists(slot));
  EXPECT_EQ(fake.connections(), 0);
  EXPECT_EQ(fake.received().find(kPassword), std::string::npos);
  // The fake does catch a client that connects: the password arrives.
  auto direct = PgConn::Connect(
      fmt::format("host=127.0.0.1 port={} user=victim dbname=x sslmode=disable", fake.port()), 5);
  unsetenv("PGPASSWORD");
  EXPECT_FALSE(direct.ok());
  EXPECT_EQ(fake.connections(), 1);
  EXPECT_NE(fake.received().find(kPassword), std::string::npos);
}

}  // namespace
}  // namespace lakedump
