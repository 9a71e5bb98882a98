// End-to-end tests of what lakedump may delete (docs/dump-format.md, "The run journal"): a
// folder that never held a dump keeps its files through overwrite, resume, gc and the dry runs;
// gc removes only what a dead run's journal names; verify judges the committed dump (another
// run's leftovers are warnings) and --deep catches an edited _table.json.
#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "fakes/cli_run.h"
#include "fakes/temp_dir.h"

namespace lakedump {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace testing_cli;

constexpr char kDeadRun[] = "20261101T000000Z-0000dead";

class JournalCliTest : public DemoDatabaseSuite<JournalCliTest> {
 public:
  static constexpr const char* kDemoArgs = "--rows 3000 --small-tables 2 --seed 5";

 protected:
  // A folder holding someone's files and no dump.
  std::string ThesisFolder() {
    const std::string dest = dir_.Sub("folder");
    fs::create_directories(dest + "/docs");
    WriteFile(dest + "/docs/thesis.txt", "four years of work");
    WriteFile(dest + "/docs/.thesis.txt.tmp-1a2b3c", "an editor's temp file");
    return dest;
  }
  std::string Dump(const std::string& dest, const std::string& flags = "") {
    RunResult r = RunLakedump("dump " + db_ + " " + dest + " --progress none " + flags, dir_);
    EXPECT_EQ(r.code, 0) << r.err;
    return dest;
  }
  static size_t FileCount(const std::string& dir) {
    size_t n = 0;
    for (const auto& e : fs::recursive_directory_iterator(dir)) n += e.is_regular_file();
    return n;
  }
  // What a killed run leaves: its journal naming a table folder and its commit key, a data
  // file of it there, a temp file of another data file.
  static void PlantKilledRun(const std::string& dest, const std::string& table_folder) {
    const std::string run = kDeadRun;
    const json batch = {{"format", "lakedump-run-journal"}, {"format_version", 1},
                        {"run_id", run},                   {"seq", 1},
                        {"keys", {table_folder + "_table-" + run + ".json"}},
                        {"table_folders", {table_folder}}, {"uploads", json::array()}};
    fs::create_directories(dest + "/_runs/" + run);
    WriteFile(dest + "/_runs/" + run + "/journal-000001.json", batch.dump());
    WriteFile(dest + "/" + table_folder + "part-0000-00000-" + run + ".parquet", "PAR1...");
    WriteFile(dest + "/" + table_folder + ".part-0000-00001-" + run + ".parquet.tmp-9f8e7d",
              "PAR1");
  }
  static std::string FirstTableFolder(const std::string& dest) {
    const json m = json::parse(ReadFile(dest + "/_manifest.json"));
    const std::string key = m["tables"][0]["key"];
    return key.substr(0, key.rfind('/') + 1);
  }
};

TEST_F(JournalCliTest, OverwriteAndResumeRefuseAFolderThatNeverHeldADump) {
  const std::string dest = ThesisFolder();
  for (const char* mode : {"overwrite", "resume"}) {
    RunResult r = RunLakedump("dump " + db_ + " " + dest + " --progress none --if-exists " + mode,
                              dir_);
    ExpectOneLineError(r, 2, "1 object that no lakedump run wrote (e.g. docs/thesis.txt)");
    EXPECT_EQ(ReadFile(dest + "/docs/thesis.txt"), "four years of work") << mode;
    EXPECT_EQ(FileCount(dest), 2u) << mode;
  }
  // The "not empty" error suggests no flag that would delete them.
  RunResult r = RunLakedump("dump " + db_ + " " + dest + " --progress none", dir_);
  ExpectOneLineError(r, 1, "no lakedump run wrote");
  EXPECT_EQ(r.err.find("overwrite"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("--delete-foreign"), std::string::npos) << r.err;
}

TEST_F(JournalCliTest, DryRunsDeleteNothing) {
  const std::string dest = ThesisFolder();
  RunResult r = RunLakedump(
      "dump " + db_ + " " + dest + " --if-exists overwrite --delete-foreign --dry-run", dir_);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("would delete docs/thesis.txt"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("nothing was deleted"), std::string::npos) << r.out;
  EXPECT_EQ(FileCount(dest), 2u);
  EXPECT_FALSE(fs::exists(dest + "/_manifest.json"));

  // Over a committed dump with a killed run's leftovers: both dry runs name them, keep them.
  const std::string dump = Dump(dir_.Sub("dump"));
  const std::string folder = FirstTableFolder(dump);
  PlantKilledRun(dump, folder);
  const size_t files = FileCount(dump);
  r = RunLakedump("dump " + db_ + " " + dump + " --if-exists overwrite --dry-run", dir_);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("would delete " + folder + "part-0000-00000-" + kDeadRun), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("would remove unfinished write"), std::string::npos) << r.out;
  r = RunLakedump("gc " + dump + " --dry-run", dir_);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("would remove temp file"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("nothing deleted"), std::string::npos) << r.out;
  EXPECT_EQ(FileCount(dump), files);
  // gc itself removes the dead run's temp file (its journal names the folder), whatever its age.
  r = RunLakedump("gc " + dump, dir_);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(FileCount(dump), files - 1) << r.out;
}

TEST_F(JournalCliTest, GcOnAFolderWithoutADumpDeletesNothing) {
  const std::string dest = ThesisFolder();
  RunResult r = RunLakedump("gc " + dest + " --older-than 0s", dir_);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("nothing deleted"), std::string::npos) << r.out;
  EXPECT_EQ(ReadFile(dest + "/docs/.thesis.txt.tmp-1a2b3c"), "an editor's temp file");
  EXPECT_EQ(FileCount(dest), 2u);
}

// Foreign files inside a committed dump survive its overwrite and resume (refused), and gc.
TEST_F(JournalCliTest, ForeignFilesInADumpSurviveOverwriteResumeAndGc) {
  const std::string dump = Dump(dir_.Sub("dump"));
  const std::string folder = FirstTableFolder(dump);
  WriteFile(dump + "/" + folder + "notes.txt", "mine");
  WriteFile(dump + "/" + folder + ".notes.txt.tmp-abc", "mine too");
  for (const char* mode : {"overwrite", "resume"}) {
    RunResult r = RunLakedump("dump " + db_ + " " + dump + " --progress none --if-exists " + mode,
                              dir_);
    ExpectOneLineError(r, 2, "1 object that no lakedump run wrote (e.g. " + folder + "notes.txt)");
  }
  RunResult r = RunLakedump("gc " + dump + " --older-than 0s", dir_);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(ReadFile(dump + "/" + folder + "notes.txt"), "mine");
  EXPECT_EQ(ReadFile(dump + "/" + folder + ".notes.txt.tmp-abc"), "mine too");
  // No journal names it: a stray of the dump, as before.
  r = RunLakedump("verify " + dump, dir_);
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("PROBLEM stray: " + folder + "notes.txt"), std::string::npos) << r.out;
}

TEST_F(JournalCliTest, VerifyPassesACommittedDumpWithAKilledRunsLeftovers) {
  const std::string dump = Dump(dir_.Sub("dump"));
  PlantKilledRun(dump, FirstTableFolder(dump));
  RunResult r = RunLakedump("verify " + dump, dir_);
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find(std::string("WARNING 2 objects of run ") + kDeadRun), std::string::npos)
      << r.out;
  // The next resume takes them: the leftovers and the journal are gone, the dump verifies.
  r = RunLakedump("dump " + db_ + " " + dump + " --progress none --if-exists resume", dir_);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_FALSE(fs::exists(dump + "/_runs/" + kDeadRun + "/journal-000001.json"));
  r = RunLakedump("verify " + dump, dir_);
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.find("WARNING"), std::string::npos) << r.out;
}

TEST_F(JournalCliTest, VerifyDeepFailsOnAnEditedTableJson) {
  const std::string dump = Dump(dir_.Sub("dump"));
  const json m = json::parse(ReadFile(dump + "/_manifest.json"));
  const std::string key = m["tables"][0]["key"];
  ASSERT_TRUE(m["tables"][0].contains("table_json_xxh64"));
  // An attacker's edit that keeps every count the manifest records: the DDL.
  json t = json::parse(ReadFile(dump + "/" + key));
  t["ddl"] = "CREATE TABLE x (a int CHECK (lo_import('/etc/passwd') IS NOT NULL))";
  WriteFile(dump + "/" + key, t.dump(2) + "\n");
  RunResult r = RunLakedump("verify " + dump + " --deep", dir_);
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("PROBLEM table-manifest: " + key + ": altered after the dump"),
            std::string::npos)
      << r.out;

  // A dump whose manifest records no hash (an older lakedump): a warning, not a failure.
  const std::string old = Dump(dir_.Sub("old"));
  json om = json::parse(ReadFile(old + "/_manifest.json"));
  for (json& e : om["tables"]) e.erase("table_json_xxh64");
  WriteFile(old + "/_manifest.json", om.dump(2) + "\n");
  r = RunLakedump("verify " + old + " --deep", dir_);
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("the manifest records no hash of it"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace lakedump
