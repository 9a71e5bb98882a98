// End-to-end tests of `lakedump verify` and `lakedump ls` on a real `lakedump demo` dump:
// exit codes, the one-line error on stderr, the PROBLEM lines and the JSON report.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "fakes/cli_run.h"
#include "fakes/temp_dir.h"

namespace lakedump {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

using namespace testing_cli;

// One demo database and one dump of it per suite; each test copies the dump to damage it.
class VerifyCliTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    tmp_ = new TempDir();
    const std::string db = tmp_->Sub("demo.sqlite");
    RunResult r = RunLakedump("demo " + db + " --rows 5000 --small-tables 2 --seed 3", *tmp_);
    ASSERT_EQ(r.code, 0) << r.err;
    r = RunLakedump("dump " + db + " " + tmp_->Sub("dump") + " -j 2 --progress none", *tmp_);
    ASSERT_EQ(r.code, 0) << r.err;
  }
  static void TearDownTestSuite() {
    delete tmp_;
    tmp_ = nullptr;
  }

  // A fresh copy of the dump; returns its path.
  std::string CopyDump() {
    const std::string dest = dir_.Sub("dump");
    fs::copy(tmp_->Sub("dump"), dest, fs::copy_options::recursive);
    return dest;
  }
  // The key of the first data file of the first table of the dump at `dest`.
  static std::string FirstDataFile(const std::string& dest) {
    const json m = json::parse(ReadFile(dest + "/_manifest.json"));
    for (const json& t : m["tables"]) {
      const json tm = json::parse(ReadFile(dest + "/" + t["key"].get<std::string>()));
      if (!tm["files"].empty()) return tm["files"][0]["key"];
    }
    return "";
  }

  static TempDir* tmp_;
  TempDir dir_;
};
TempDir* VerifyCliTest::tmp_ = nullptr;

TEST_F(VerifyCliTest, GoodDumpExitsZero) {
  const std::string dest = CopyDump();
  RunResult r = RunLakedump("verify " + dest, dir_);
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.rfind("ok: dump ", 0), 0u) << r.out;
  EXPECT_TRUE(r.err.empty()) << r.err;

  r = RunLakedump("verify " + dest + " --deep --parallelism 2 --json", dir_);
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["status"], "ok");
  EXPECT_EQ(j["deep"], true);
  EXPECT_GE(j["rows"].get<uint64_t>(), 5000u);
  EXPECT_GE(j["tables"].get<uint64_t>(), 8u);
  EXPECT_TRUE(j["problems"].empty());
}

TEST_F(VerifyCliTest, MissingFileExitsOneWithOneLine) {
  const std::string dest = CopyDump();
  const std::string key = FirstDataFile(dest);
  ASSERT_FALSE(key.empty());
  fs::remove(dest + "/" + key);
  RunResult r = RunLakedump("verify " + dest, dir_);
  ExpectOneLineError(r, 1, "1 problem in the dump");
  EXPECT_NE(r.err.find(key), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("PROBLEM missing: " + key + ": "), std::string::npos) << r.out;
}

TEST_F(VerifyCliTest, FlippedByteAndStrayAreBothReported) {
  const std::string dest = CopyDump();
  const std::string key = FirstDataFile(dest);
  std::string data = ReadFile(dest + "/" + key);
  ASSERT_GT(data.size(), 100u);
  data[data.size() / 2] = static_cast<char>(data[data.size() / 2] ^ 0x01);
  WriteFile(dest + "/" + key, data);
  WriteFile(dest + "/main/stray.parquet", "PAR1");
  RunResult r = RunLakedump("verify " + dest + " --json", dir_);
  EXPECT_EQ(r.code, 1) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["status"], "problems");
  std::vector<std::string> kinds;
  for (const json& p : j["problems"]) kinds.push_back(p["kind"].get<std::string>() + " " +
                                                      p["key"].get<std::string>());
  EXPECT_NE(std::find(kinds.begin(), kinds.end(), "checksum " + key), kinds.end()) << r.out;
  EXPECT_NE(std::find(kinds.begin(), kinds.end(), "stray main/stray.parquet"), kinds.end())
      << r.out;
  ExpectOneLineError(r, 1, "problems in the dump");
}

TEST_F(VerifyCliTest, TruncatedFileNamesSizes) {
  const std::string dest = CopyDump();
  const std::string key = FirstDataFile(dest);
  const std::string data = ReadFile(dest + "/" + key);
  WriteFile(dest + "/" + key, data.substr(0, data.size() - 10));
  RunResult r = RunLakedump("verify " + dest, dir_);
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("PROBLEM size: " + key + ": data file is shorter than recorded "
                       "(truncated?) (expected " + std::to_string(data.size()) +
                       " bytes, found " + std::to_string(data.size() - 10) + " bytes)"),
            std::string::npos)
      << r.out;
}

TEST_F(VerifyCliTest, NotADump) {
  RunResult r = RunLakedump("verify " + dir_.path(), dir_);
  ExpectOneLineError(r, 1, "not a committed dump");
  WriteFile(dir_.Sub("_manifest.json"), "not json");
  r = RunLakedump("verify " + dir_.path(), dir_);
  ExpectOneLineError(r, 1, "not valid JSON");
}

TEST_F(VerifyCliTest, BadUsageExitsTwo) {
  RunResult r = RunLakedump("verify " + dir_.path() + " --parallelism 0", dir_);
  ExpectOneLineError(r, 2, "--parallelism: \"0\" is out of range; accepted: 1 to 256");
  r = RunLakedump("verify " + dir_.path() + " --no-such-flag", dir_);
  EXPECT_EQ(r.code, 2) << r.err;
  r = RunLakedump("verify", dir_);
  EXPECT_EQ(r.code, 2) << r.err;
  r = RunLakedump("verify --help", dir_);
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("Exit codes: 0 all is well"), std::string::npos) << r.out;
}

TEST_F(VerifyCliTest, LsShowsSourceFormatAndDdl) {
  const std::string dest = tmp_->Sub("dump");
  RunResult r = RunLakedump("ls " + dest + " --ddl", dir_);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("\nformat: lakedump-dump 1.1\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nsource: SQLite 3."), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nsnapshot: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("CREATE TABLE"), std::string::npos) << r.out;
  r = RunLakedump("ls " + dest + " --json --ddl", dir_);
  ASSERT_EQ(r.code, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["format_version"], 1);
  EXPECT_EQ(j["source"]["kind"], "sqlite");
  EXPECT_FALSE(j["source"]["sqlite_version"].get<std::string>().empty());
  EXPECT_NE(j["tables"][0]["ddl"].get<std::string>().find("CREATE TABLE"), std::string::npos);
  EXPECT_EQ(j["created_by"].get<std::string>().rfind("lakedump", 0), 0u);
}

// The facts `ls` shows for a PostgreSQL dump, from the source object dump writes (the manifest is
// edited: unit tests reach no server).
TEST_F(VerifyCliTest, LsShowsPostgresSnapshotFacts) {
  const std::string dest = CopyDump();
  json m = json::parse(ReadFile(dest + "/_manifest.json"));
  m["source"] = {{"kind", "postgresql"},
                 {"server_version", "16.4"},
                 {"server_version_num", 160004},
                 {"host", "127.0.0.1"},
                 {"port", "5432"},
                 {"user", "app"},
                 {"database", "shop"},
                 {"isolation", "repeatable read, read only, exported snapshot"},
                 {"snapshot_id", "00000003-0000001B-1"},
                 {"in_recovery", false},
                 {"wal_lsn", "0/1A2B3C4"}};
  WriteFile(dest + "/_manifest.json", m.dump(2));
  RunResult r = RunLakedump("ls " + dest, dir_);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("\nsource: PostgreSQL 16.4 at 127.0.0.1:5432/shop (user app)\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\nsnapshot: 00000003-0000001B-1, WAL LSN 0/1A2B3C4; repeatable read"),
            std::string::npos)
      << r.out;
  // The edited manifest still verifies: the source object is not checked against anything.
  r = RunLakedump("verify " + dest, dir_);
  EXPECT_EQ(r.code, 0) << r.out << r.err;
}

}  // namespace
}  // namespace lakedump
