// Signed increments (issue 29, docs/dump-format.md "Signed dumps", docs/incremental.md) end to
// end against the test PostgreSQL (wal_level=logical), written as an attacker with write
// access to DEST would: a genuine signed base with two signed increments (a table with a key,
// followed by its changes; one without, re-dumped whole in each increment) verifies and loads
// with --require-signature in every mode (full, --until, --if-exists append --from N). Then,
// on copies of DEST: an increment's manifest edited, its signature removed, a change file or
// a re-dumped file altered, the increments reordered, an increment copied from another dump
// signed with the same key (as is, and edited to name this dump's base), each refused by
// load with exit 2 and one line naming the increment, nothing written on the target; verify
// names it in a PROBLEM line.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <thread>

#include <nlohmann/json.hpp>

#include "fakes/cli_run.h"
#include "fakes/temp_dir.h"
#include "integration/pg_test_util.h"

namespace lakedump {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using testing_cli::ExpectOneLineError;
using testing_cli::Quote;
using testing_cli::ReadFile;
using testing_cli::RunLakedump;
using testing_cli::RunResult;
using testing_cli::WriteFile;
using testing_pg::AdminConn;
using testing_pg::ScratchDatabase;

void Sql(const std::string& conninfo, const std::string& sql) {
  auto c = PgConn::Connect(conninfo, 10);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  Status s = (*c)->Exec("SET search_path = public; " + sql);
  ASSERT_TRUE(s.ok()) << sql << ": " << s.ToString();
}

std::string One(const std::string& conninfo, const std::string& sql) {
  auto c = PgConn::Connect(conninfo, 10);
  if (!c.ok()) return "connect failed: " + c.status().ToString();
  return testing_pg::QueryOne(**c, sql);
}

// The target's tables and rows, to compare and to see that a refused load wrote nothing.
std::string Contents(const std::string& conninfo) {
  const std::string tables = One(
      conninfo,
      "SELECT coalesce(string_agg(relname, ',' ORDER BY relname), '') FROM pg_class c JOIN "
      "pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND relkind = 'r'");
  std::string out = tables;
  if (tables.find("nokey") != std::string::npos) {
    out += " | " + One(conninfo, "SELECT string_agg(v, ',' ORDER BY v) FROM public.nokey");
  }
  if ((',' + tables + ',').find(",t,") != std::string::npos) {
    out += " | " + One(conninfo, "SELECT string_agg(id || '=' || v, ',' ORDER BY id) FROM "
                                 "public.t");
  }
  return out;
}

class IncrementalSignedTest : public ::testing::Test {
 protected:
  void SetUp() override {
    LD_REQUIRE_LOGICAL_PG(admin_);
    src_ = std::make_unique<ScratchDatabase>(admin_.get());
    key_ = tmp_.Sub("key");
    WriteFile(key_, std::string(32, 'K'));
    ::chmod(key_.c_str(), 0600);
    dest_ = tmp_.Sub("dest");
    Sql(src_->conninfo(),
        "CREATE TABLE t (id int PRIMARY KEY, v text); CREATE TABLE nokey (v text); "
        "INSERT INTO t SELECT g, 'base' || g FROM generate_series(1, 20) g; "
        "INSERT INTO nokey VALUES ('a'), ('b')");
    ASSERT_EQ(Dump(dest_).code, 0);
    Sql(src_->conninfo(), "UPDATE t SET v = 'one' WHERE id <= 5; INSERT INTO nokey VALUES ('c')");
    ASSERT_EQ(Dump(dest_).code, 0);
    Sql(src_->conninfo(), "DELETE FROM t WHERE id = 20; INSERT INTO t VALUES (21, 'two')");
    ASSERT_EQ(Dump(dest_).code, 0);
  }
  void TearDown() override {
    if (admin_ && src_) {
      // The slots of the bases (one per DEST): a slot left behind holds WAL.
      for (int i = 0; i < 50; ++i) {
        auto r = admin_->Query(
            "SELECT count(pg_drop_replication_slot(slot_name)) FILTER (WHERE NOT active), "
            "count(*) FILTER (WHERE active) FROM pg_replication_slots WHERE database = $1",
            {src_->name()});
        if (!r.ok() || PgValue(r->get(), 0, 1) == "0") break;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
    }
    replicas_.clear();
    src_.reset();
  }
  RunResult Dump(const std::string& dest) {
    RunResult r = RunLakedump(fmt::format("dump {} {} --incremental --progress none "
                                          "--sign-key-file {}",
                                          Quote(src_->conninfo()), Quote(dest), Quote(key_)),
                              tmp_, 600);
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    return r;
  }
  std::string Copy(const std::string& name) {
    const std::string to = tmp_.Sub(name);
    fs::copy(dest_, to, fs::copy_options::recursive);
    return to;
  }
  std::string NewReplica() {
    replicas_.push_back(std::make_unique<ScratchDatabase>(admin_.get()));
    return replicas_.back()->conninfo();
  }
  RunResult Load(const std::string& dest, const std::string& replica,
                 const std::string& args = "") {
    return RunLakedump(fmt::format("load {} {} --progress none --require-signature {} {}",
                                   Quote(dest), Quote(replica), Quote(key_), args),
                       tmp_, 600);
  }
  RunResult Verify(const std::string& dest) {
    return RunLakedump(
        fmt::format("verify {} --require-signature {}", Quote(dest), Quote(key_)), tmp_);
  }
  // The refusals a forged DEST must get: verify names `needle` in a PROBLEM line (or its
  // broken chain); a full load and a catch-up (--from 2 on a replica at increment 1) exit 2
  // with one line naming it, and write nothing.
  void ExpectRefused(const std::string& dest, const std::string& needle) {
    RunResult v = Verify(dest);
    EXPECT_EQ(v.code, 1) << v.out << v.err;
    EXPECT_NE(v.out.find(needle), std::string::npos) << v.out;
    const std::string empty = NewReplica();
    const std::string before = Contents(empty);
    RunResult full = Load(dest, empty);
    ExpectOneLineError(full, 2, needle);
    EXPECT_EQ(Contents(empty), before);
    RunResult from = Load(dest, at_one_, "--if-exists append --from 2");
    ExpectOneLineError(from, 2, needle);
    EXPECT_EQ(Contents(at_one_), at_one_contents_);
  }
  // A replica at increment 1, loaded from the genuine DEST.
  void MakeReplicaAtOne() {
    at_one_ = NewReplica();
    RunResult r = Load(dest_, at_one_, "--until 1");
    ASSERT_EQ(r.code, 0) << r.err;
    at_one_contents_ = Contents(at_one_);
  }

  std::unique_ptr<PgConn> admin_;
  std::unique_ptr<ScratchDatabase> src_;
  std::vector<std::unique_ptr<ScratchDatabase>> replicas_;
  TempDir tmp_;
  std::string key_;
  std::string dest_;
  std::string at_one_;
  std::string at_one_contents_;
};

TEST_F(IncrementalSignedTest, SignedIncrementsVerifyAndLoadInEveryMode) {
  const json one = json::parse(ReadFile(dest_ + "/_increments/000001/_manifest.json"));
  EXPECT_EQ(one.value("previous_manifest_sha256", "").size(), 64u) << one.dump();
  EXPECT_EQ(one.value("redump_manifest_sha256", "").size(), 64u) << one.dump();
  EXPECT_TRUE(fs::exists(dest_ + "/_increments/000002/_manifest.sig"));
  RunResult v = Verify(dest_);
  EXPECT_EQ(v.code, 0) << v.out << v.err;
  EXPECT_NE(v.out.find("written to " + dest_), std::string::npos) << v.out;
  const std::string full = NewReplica();
  RunResult l = Load(dest_, full);
  ASSERT_EQ(l.code, 0) << l.out << l.err;
  EXPECT_NE(l.out.find("applied increment 2 (signature verified)"), std::string::npos) << l.out;
  EXPECT_EQ(Contents(full), Contents(src_->conninfo()));
  MakeReplicaAtOne();
  RunResult from = Load(dest_, at_one_, "--if-exists append --from 2");
  ASSERT_EQ(from.code, 0) << from.out << from.err;
  EXPECT_EQ(Contents(at_one_), Contents(src_->conninfo()));
}

TEST_F(IncrementalSignedTest, ForgedIncrementsAreRefusedInEveryLoadMode) {
  MakeReplicaAtOne();
  {  // increment 2's manifest edited (one digit of its counts): its HMAC no longer matches
    const std::string dest = Copy("edited");
    const std::string path = dest + "/_increments/000002/_manifest.json";
    std::string text = ReadFile(path);
    const size_t at = text.find("\"seconds\": ");
    ASSERT_NE(at, std::string::npos);
    text[at + 11] = text[at + 11] == '1' ? '2' : '1';
    WriteFile(path, text);
    ExpectRefused(dest, "_increments/000002/_manifest.json");
  }
  {  // its signature removed: an unsigned increment in a signed dump
    const std::string dest = Copy("unsigned");
    fs::remove(dest + "/_increments/000002/_manifest.sig");
    ExpectRefused(dest, "increment 2");
  }
  {  // a change file altered: refused before its rows are applied
    const std::string dest = Copy("change-file");
    const json two = json::parse(ReadFile(dest + "/_increments/000002/_manifest.json"));
    ASSERT_FALSE(two["change_files"].empty());
    const std::string file =
        dest + "/_increments/000002/" + two["change_files"][0]["key"].get<std::string>();
    std::string data = ReadFile(file);
    data[data.size() / 2] ^= 0x01;
    WriteFile(file, data);
    RunResult v = Verify(dest);
    EXPECT_EQ(v.code, 1);
    EXPECT_NE(v.out.find("PROBLEM signature: _increments/000002/changes/"), std::string::npos)
        << v.out;
    RunResult from = Load(dest, at_one_, "--if-exists append --from 2");
    ExpectOneLineError(from, 2, "altered");
    EXPECT_NE(from.err.find("increment 2 not applied"), std::string::npos) << from.err;
    EXPECT_EQ(Contents(at_one_), at_one_contents_);
  }
}

TEST_F(IncrementalSignedTest, ReorderedAndCopiedIncrementsAreRefused) {
  MakeReplicaAtOne();
  {  // increments 1 and 2 swapped
    const std::string dest = Copy("reordered");
    fs::rename(dest + "/_increments/000001", dest + "/_increments/swap");
    fs::rename(dest + "/_increments/000002", dest + "/_increments/000001");
    fs::rename(dest + "/_increments/swap", dest + "/_increments/000002");
    ExpectRefused(dest, "_increments/000001/_manifest.json");
  }
  // Another incremental dump of the same source, signed with the same key.
  const std::string other = tmp_.Sub("other");
  ASSERT_EQ(Dump(other).code, 0);
  Sql(src_->conninfo(), "UPDATE t SET v = 'other' WHERE id = 1");
  ASSERT_EQ(Dump(other).code, 0);
  {  // its increment 1 copied over this dump's increment 2 (renumbered by hand)
    const std::string dest = Copy("copied");
    fs::remove_all(dest + "/_increments/000002");
    fs::copy(other + "/_increments/000001", dest + "/_increments/000002",
             fs::copy_options::recursive);
    ExpectRefused(dest, "_increments/000002/_manifest.json");
  }
  {  // the same, its manifest edited to claim this dump's place: the HMAC breaks
    const std::string dest = Copy("copied-edited");
    fs::remove_all(dest + "/_increments/000002");
    fs::copy(other + "/_increments/000001", dest + "/_increments/000002",
             fs::copy_options::recursive);
    const json mine = json::parse(ReadFile(dest_ + "/_increments/000002/_manifest.json"));
    json forged = json::parse(ReadFile(dest + "/_increments/000002/_manifest.json"));
    for (const char* field : {"sequence", "base_dump_id", "previous_increment_id", "start_lsn",
                              "previous_manifest_sha256"}) {
      forged[field] = mine[field];
    }
    WriteFile(dest + "/_increments/000002/_manifest.json", forged.dump(2) + "\n");
    ExpectRefused(dest, "_increments/000002/_manifest.json");
  }
}

}  // namespace
}  // namespace lakedump
