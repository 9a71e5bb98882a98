// A dump written by an earlier build (tests/data/dumps/) still verifies, deeply, and loads
// with this one, every table with the rows its manifest records: the format is the same.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "fakes/cli_run.h"
#include "fakes/temp_dir.h"

namespace lakedump {
namespace {

namespace fs = std::filesystem;
using namespace testing_cli;

int64_t CountRows(const std::string& db, const std::string& table) {
  sqlite3* conn = nullptr;
  if (sqlite3_open_v2(db.c_str(), &conn, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    sqlite3_close(conn);
    return -1;
  }
  int64_t rows = -1;
  sqlite3_stmt* stmt = nullptr;
  const std::string sql = "SELECT count(*) FROM \"" + table + "\"";
  if (sqlite3_prepare_v2(conn, sql.c_str(), -1, &stmt, nullptr) == SQLITE_OK &&
      sqlite3_step(stmt) == SQLITE_ROW) {
    rows = sqlite3_column_int64(stmt, 0);
  }
  sqlite3_finalize(stmt);
  sqlite3_close(conn);
  return rows;
}

TEST(EarlierDumpCliTest, ADumpOfBeforeIssue28VerifiesAndLoads) {
  TempDir tmp;
  const std::string dump = tmp.Sub("dump");
  fs::copy(std::string(LAKEDUMP_SOURCE_DIR) + "/tests/data/dumps/before-issue28", dump,
           fs::copy_options::recursive);

  RunResult r = RunLakedump("verify " + dump + " --deep", tmp);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("ok: dump"), std::string::npos) << r.out;

  const std::string db = tmp.Sub("loaded.sqlite");
  r = RunLakedump("load " + dump + " " + db + " --progress none", tmp);
  ASSERT_EQ(r.code, 0) << r.err;

  const nlohmann::json manifest = nlohmann::json::parse(ReadFile(dump + "/_manifest.json"));
  ASSERT_EQ(manifest["tables"].size(), 4u);
  for (const nlohmann::json& t : manifest["tables"]) {
    const std::string table = t["table"].get<std::string>();
    EXPECT_EQ(CountRows(db, table), t["rows"].get<int64_t>()) << table;
  }
}

}  // namespace
}  // namespace lakedump
