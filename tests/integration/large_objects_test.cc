// Large objects (issue 31, "Nothing lost"): dumped as files of their own with owner, grants
// and comment, verified, and restored with their own OIDs (data, as pg_restore's BLOBS: not
// with --schema-only, not with -t); --no-owner/--no-privileges; an OID the target has already
// and a dump whose large-object file or entry was altered are refused in one line. Against
// the real server (tests/data/replica/rich_schema.sql as the source) and radosgw.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

#include "fakes/cli_run.h"
#include "integration/pg_test_util.h"
#include "integration/replica_fixture.h"
#include "integration/s3_test_env.h"
#include "lake/large_objects.h"

namespace lakedump {
namespace {

using testing_cli::Quote;
using testing_cli::ReadFile;
using testing_cli::RunLakedump;
using testing_cli::RunResult;
using testing_pg::QueryOne;
using testing_pg::ScratchDatabase;
using testing_replica::ReplicaTest;

// Every large object: OID, MD5 of its bytes, size, owner, privileges, comment; one line each.
constexpr const char* kLargeObjectsSql =
    "SELECT string_agg(concat_ws('|', m.oid, md5(lo_get(m.oid)), length(lo_get(m.oid)), "
    "m.lomowner::regrole, coalesce(m.lomacl::text, 'default'), "
    "coalesce(obj_description(m.oid, 'pg_largeobject'), 'no comment')), E'\\n' ORDER BY m.oid) "
    "FROM pg_largeobject_metadata m";

class LargeObjectsTest : public ReplicaTest {
 protected:
  void SetUp() override {
    ReplicaTest::SetUp();
    if (Stopped()) return;
    const int pid = static_cast<int>(getpid());
    owner_ = fmt::format("ld lobj {} Owner", pid);
    reader_ = fmt::format("ld_lobj_{}_reader", pid);
    for (const std::string& role : {owner_, reader_}) {
      ASSERT_TRUE(admin_->Exec("DROP ROLE IF EXISTS " + QuoteIdent(role)).ok());
      ASSERT_TRUE(admin_->Exec("CREATE ROLE " + QuoteIdent(role)).ok());
    }
    // An empty one, a small one, and one of a few MiB (more than 3 chunks of the dump's
    // reads and the load's writes), an oid column naming them.
    Source(fmt::format(
        "SELECT lo_create(4242001);"
        "SELECT lo_from_bytea(4242002, 'small \\000 bytes'::bytea);"
        "SELECT lo_from_bytea(4242003, (SELECT string_agg(decode(md5(g::text), 'hex'), ''::bytea) "
        "FROM generate_series(1, {}) g));"
        "ALTER LARGE OBJECT 4242002 OWNER TO {};"
        "ALTER LARGE OBJECT 4242003 OWNER TO {};"
        "GRANT SELECT ON LARGE OBJECT 4242003 TO {};"
        "GRANT UPDATE ON LARGE OBJECT 4242002 TO PUBLIC;"
        "COMMENT ON LARGE OBJECT 4242003 IS 'the big one''s comment';"
        "CREATE TABLE public.docs (id int PRIMARY KEY, body oid);"
        "INSERT INTO public.docs VALUES (1, 4242001), (2, 4242002), (3, 4242003);",
        (3 * kLargeObjectChunkBytes + 12345) / 16 + 1, QuoteIdent(owner_), QuoteIdent(owner_),
        QuoteIdent(reader_)));
  }
  void TearDown() override {
    if (!admin_) return;
    source_.reset();
    for (const std::string& role : {owner_, reader_}) {
      if (!role.empty()) admin_->Exec("DROP ROLE IF EXISTS " + QuoteIdent(role)).IgnoreError();
    }
  }
  void Source(const std::string& sql) {
    auto conn = PgConn::Connect(source_->conninfo(), 10);
    ASSERT_TRUE(conn.ok());
    Status s = (*conn)->Exec(sql);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  static std::string LargeObjects(const std::string& conninfo) {
    auto conn = PgConn::Connect(conninfo, 10);
    EXPECT_TRUE(conn.ok());
    if (!conn.ok()) return "";
    return QueryOne(**conn, kLargeObjectsSql);
  }
  static std::string Count(const ScratchDatabase& db) {
    auto conn = PgConn::Connect(db.conninfo(), 10);
    EXPECT_TRUE(conn.ok());
    if (!conn.ok()) return "";
    return QueryOne(**conn, "SELECT count(*) FROM pg_largeobject_metadata");
  }
  // A dump of the source, checked by verify.
  std::string DumpVerified() {
    const std::string dump = dir_.Sub("d");
    RunResult d = Dump(dump);
    EXPECT_EQ(d.code, 0) << d.out << d.err;
    EXPECT_EQ(d.err.find("large object"), std::string::npos) << d.err;
    RunResult v = RunLakedump("verify " + Quote(dump), dir_);
    EXPECT_EQ(v.code, 0) << v.out << v.err;
    return dump;
  }
  nlohmann::json Manifest(const std::string& dump) {
    return nlohmann::json::parse(ReadFile(dump + "/_manifest.json"));
  }
  void WriteManifest(const std::string& dump, const nlohmann::json& m) {
    const std::string path = dump + "/_manifest.json";
    FILE* f = std::fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr);
    const std::string text = m.dump();
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
  }

  std::string owner_, reader_;
};

TEST_F(LargeObjectsTest, AreDumpedVerifiedAndRestoredWithTheirOidsOwnersAndGrants) {
  if (Stopped()) return;
  const std::string dump = DumpVerified();
  const nlohmann::json lobs = Manifest(dump)["schema"]["large_objects"];
  ASSERT_TRUE(lobs.is_array()) << lobs.dump();
  ASSERT_EQ(lobs.size(), 3u);
  EXPECT_EQ(lobs[0]["oid"], 4242001);
  EXPECT_EQ(lobs[0]["bytes"], 0);
  EXPECT_EQ(lobs[1]["owner"], owner_);
  EXPECT_GT(lobs[2]["bytes"].get<uint64_t>(), 3 * kLargeObjectChunkBytes);
  EXPECT_EQ(lobs[2]["comment"], "the big one's comment");
  // Each is a file of its own, its bytes as they are.
  EXPECT_EQ(ReadFile(dump + "/" + lobs[1]["key"].get<std::string>()),
            std::string("small \0 bytes", 13));
  ScratchDatabase replica(admin_.get());
  RunResult l = Load(dump, replica, "--trust-dump --json");
  ASSERT_EQ(l.code, 0) << l.out << l.err;
  EXPECT_EQ(nlohmann::json::parse(l.out)["large_objects"], 3) << l.out;
  const std::string source = LargeObjects(source_->conninfo());
  EXPECT_NE(source.find(owner_), std::string::npos) << source;
  EXPECT_NE(source.find(reader_ + "=r/"), std::string::npos) << source;
  EXPECT_EQ(LargeObjects(replica.conninfo()), source);
  // The oid column points at them.
  auto conn = PgConn::Connect(replica.conninfo(), 10);
  ASSERT_TRUE(conn.ok());
  EXPECT_EQ(QueryOne(**conn, "SELECT string_agg(length(lo_get(body))::text, ',' ORDER BY id) "
                             "FROM public.docs"),
            "0,13," + std::to_string(lobs[2]["bytes"].get<uint64_t>()));
}

TEST_F(LargeObjectsTest, NoOwnerNoPrivilegesLeaveOwnersAndGrantsOut) {
  if (Stopped()) return;
  const std::string dump = DumpVerified();
  ScratchDatabase replica(admin_.get());
  RunResult l = Load(dump, replica, "--trust-dump --no-owner --no-privileges");
  ASSERT_EQ(l.code, 0) << l.out << l.err;
  // Data and comments as in the source; every one owned by the loading role, with the default
  // privileges.
  const std::string sql =
      "SELECT string_agg(concat_ws('|', oid, md5(lo_get(oid)), {}, {}, "
      "obj_description(oid, 'pg_largeobject')), ',' ORDER BY oid) FROM pg_largeobject_metadata";
  auto conn = PgConn::Connect(replica.conninfo(), 10);
  ASSERT_TRUE(conn.ok());
  const std::string restored = QueryOne(
      **conn, fmt::format(fmt::runtime(sql),
                          "lomowner = (SELECT oid FROM pg_roles WHERE rolname = current_user)",
                          "lomacl IS NULL"));
  auto src = PgConn::Connect(source_->conninfo(), 10);
  ASSERT_TRUE(src.ok());
  EXPECT_EQ(restored, QueryOne(**src, fmt::format(fmt::runtime(sql), "true", "true")));
  EXPECT_NE(restored.find("the big one's comment"), std::string::npos) << restored;
  // An untrusted load restores the data the same way, and says why owners and grants are out.
  ScratchDatabase untrusted(admin_.get());
  RunResult u = Load(dump, untrusted);
  ASSERT_EQ(u.code, 0) << u.out << u.err;
  EXPECT_NE(u.err.find("3 large object(s) restored without their owners and grants"),
            std::string::npos)
      << u.err;
  EXPECT_EQ(Count(untrusted), "3");
}

TEST_F(LargeObjectsTest, AreDataForSchemaOnlyDataOnlyAndTables) {
  if (Stopped()) return;
  const std::string dump = DumpVerified();
  ScratchDatabase replica(admin_.get());
  RunResult schema = Load(dump, replica, "--trust-dump --schema-only");
  ASSERT_EQ(schema.code, 0) << schema.out << schema.err;
  EXPECT_EQ(Count(replica), "0");
  RunResult data = Load(dump, replica, "--trust-dump --data-only --if-exists append");
  ASSERT_EQ(data.code, 0) << data.out << data.err;
  EXPECT_EQ(LargeObjects(replica.conninfo()), LargeObjects(source_->conninfo()));
  // -t restores tables only, as pg_restore, and says so.
  ScratchDatabase subset(admin_.get());
  RunResult t = Load(dump, subset, "--trust-dump -t docs");
  ASSERT_EQ(t.code, 0) << t.out << t.err;
  EXPECT_NE(t.err.find("the dump's 3 large object(s) are not restored: -t"), std::string::npos)
      << t.err;
  EXPECT_EQ(Count(subset), "0");
  // dump --tables leaves them out (as pg_dump -t), with a word.
  RunResult d = Dump(dir_.Sub("t"), "--tables public.docs");
  ASSERT_EQ(d.code, 0) << d.err;
  EXPECT_NE(d.err.find("the source holds 3 large object(s), which a dump with --tables"),
            std::string::npos)
      << d.err;
}

TEST_F(LargeObjectsTest, AnOidTheTargetHasIsOneErrorAndNothingIsRestored) {
  if (Stopped()) return;
  const std::string dump = DumpVerified();
  ScratchDatabase replica(admin_.get());
  ASSERT_TRUE(testing_pg::RunSqlIn(replica, "DO $$BEGIN PERFORM lo_create(4242003); END$$"));
  RunResult l = Load(dump, replica, "--trust-dump");
  EXPECT_EQ(l.code, 2) << l.out << l.err;
  EXPECT_NE(l.err.find("large object 4242003 already exists in the target"), std::string::npos)
      << l.err;
  EXPECT_EQ(Count(replica), "1");
  auto conn = PgConn::Connect(replica.conninfo(), 10);
  ASSERT_TRUE(conn.ok());
  EXPECT_EQ(QueryOne(**conn, "SELECT count(*) FROM pg_tables WHERE schemaname = 'shop'"), "0");
}

TEST_F(LargeObjectsTest, AnAlteredFileOrEntryIsRefused) {
  if (Stopped()) return;
  const std::string dump = DumpVerified();
  const nlohmann::json manifest = Manifest(dump);
  // The first large object's bytes changed, same size: verify reports it, load refuses it.
  const std::string key = manifest["schema"]["large_objects"][1]["key"];
  {
    FILE* f = std::fopen((dump + "/" + key).c_str(), "r+b");
    ASSERT_NE(f, nullptr);
    std::fputc('S', f);
    std::fclose(f);
  }
  RunResult v = RunLakedump("verify " + Quote(dump), dir_);
  EXPECT_NE(v.code, 0) << v.out;
  EXPECT_NE(v.out.find(key), std::string::npos) << v.out;
  ScratchDatabase replica(admin_.get());
  RunResult l = Load(dump, replica);
  EXPECT_EQ(l.code, 2) << l.out << l.err;
  EXPECT_NE(l.err.find(key + ": XXH64 is"), std::string::npos) << l.err;
  EXPECT_EQ(Count(replica), "1");  // the empty one before it; nothing of the altered one
  // An OID that is not a number, a key outside _large_objects/: refused before anything.
  for (const auto& [field, value] :
       {std::pair<std::string, nlohmann::json>{"oid", "4242002; DROP TABLE x"},
        {"key", "../../etc/passwd"},
        {"key", "_large_objects/4242001-" + manifest["dump_id"].get<std::string>() + ".bin"}}) {
    nlohmann::json altered = manifest;
    altered["schema"]["large_objects"][1][field] = value;
    WriteManifest(dump, altered);
    ScratchDatabase target(admin_.get());
    RunResult r = Load(dump, target, "--trust-dump");
    EXPECT_EQ(r.code, 2) << field << ": " << r.out << r.err;
    EXPECT_NE(r.err.find("schema.large_objects[1]"), std::string::npos) << r.err;
    EXPECT_EQ(Count(target), "0");
    RunResult rv = RunLakedump("verify " + Quote(dump), dir_);
    EXPECT_NE(rv.code, 0) << rv.out;
  }
}

TEST_F(LargeObjectsTest, ThroughS3) {
  if (Stopped()) return;
  auto s3 = testing_s3::UseTestS3();
  if (!s3) GTEST_SKIP() << "LD_TEST_S3_ENDPOINT is not set";
  const std::string prefix = fmt::format("lobj-{}-{}", getpid(), std::rand());
  const std::string url = "s3://" + s3->bucket + "/" + prefix;
  const std::string endpoint = " --endpoint " + s3->endpoint;
  RunResult d = Dump(url, endpoint);
  ASSERT_EQ(d.code, 0) << d.out << d.err;
  const std::string listing = s3->Aws(
      "s3 ls --recursive s3://" + s3->bucket + "/" + prefix + "/_large_objects/", dir_);
  EXPECT_NE(listing.find("/_large_objects/4242003-"), std::string::npos) << listing;
  RunResult v = RunLakedump(fmt::format("verify {}{}", Quote(url), endpoint), dir_);
  EXPECT_EQ(v.code, 0) << v.out << v.err;
  ScratchDatabase replica(admin_.get());
  RunResult l = Load(url, replica, "--trust-dump" + endpoint);
  ASSERT_EQ(l.code, 0) << l.out << l.err;
  EXPECT_EQ(LargeObjects(replica.conninfo()), LargeObjects(source_->conninfo()));
  s3->Aws("s3 rm --recursive --only-show-errors s3://" + s3->bucket + "/" + prefix, dir_);
}

TEST_F(LargeObjectsTest, IntoSqliteTheyAreListedAsSkipped) {
  if (Stopped()) return;
  const std::string dump = DumpVerified();
  RunResult l = RunLakedump(fmt::format("load {} {} --progress none --json", Quote(dump),
                                        Quote("sqlite://" + dir_.Sub("out.sqlite"))),
                            dir_);
  ASSERT_EQ(l.code, 0) << l.out << l.err;
  const nlohmann::json skipped = nlohmann::json::parse(l.out)["schema"]["skipped"];
  EXPECT_NE(skipped.dump().find("skipped 3 PostgreSQL large object(s): large objects cannot be "
                                "restored into sqlite"),
            std::string::npos)
      << skipped.dump();
}

}  // namespace
}  // namespace lakedump
