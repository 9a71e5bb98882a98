// The base's table selection as increments read it from its _manifest.json's options
// (ReadBaseSelection): what a base records, an old base without the options, and a hostile
// manifest (Corruption, never an exception).
#include "lake/incremental_state.h"

#include <gtest/gtest.h>

#include "dump/dump_options.h"

namespace lakedump {
namespace {

TEST(IncrementalStateTest, BaseSelectionIsTheBasesTablesAndExclude) {
  DumpOptions options;
  options.include = {"public.*", "sales.orders"};
  options.exclude = {"public.tmp_*"};
  DumpManifest base;
  base.options = DumpOptionsToJson(options);
  auto selection = ReadBaseSelection(base);
  ASSERT_TRUE(selection.ok()) << selection.status().ToString();
  EXPECT_EQ(selection->include, options.include);
  EXPECT_EQ(selection->exclude, options.exclude);
}

TEST(IncrementalStateTest, BaseWithoutOptionsSelectsEveryTable) {
  DumpManifest base;  // options null
  auto selection = ReadBaseSelection(base);
  ASSERT_TRUE(selection.ok()) << selection.status().ToString();
  EXPECT_TRUE(selection->include.empty());
  EXPECT_TRUE(selection->exclude.empty());
}

TEST(IncrementalStateTest, HostileSelectionIsCorruption) {
  for (const char* options : {R"({"tables": "public.*"})", R"({"tables": [1, 2]})",
                              R"({"exclude": {"a": 1}})", R"({"tables": [null]})"}) {
    DumpManifest base;
    base.options = nlohmann::json::parse(options);
    auto selection = ReadBaseSelection(base);
    ASSERT_FALSE(selection.ok()) << options;
    EXPECT_EQ(selection.status().code(), Code::kCorruption) << options;
    EXPECT_NE(selection.status().message().find("\"tables\" or \"exclude\""), std::string::npos);
  }
}

// A table's text_arrays (docs/incremental.md, "The base") round-trip through the increment
// manifest; one naming a column the table does not have is Corruption.
TEST(IncrementalStateTest, TextArraysRoundTripAndMustNameColumns) {
  IncrementManifest m;
  m.sequence = 1;
  m.increment_id = "inc";
  m.base_dump_id = "base";
  m.slot = m.publication = "lakedump_x";
  IncrementalTable t;
  t.ref = TableRef{"public", "md"};
  t.oid = 42;
  t.key = {"id"};
  t.columns = {{"id", 23, -1}, {"a", 1007, -1}};
  t.text_arrays = {"a"};
  m.tables.push_back(t);
  nlohmann::json j = ToJson(m);
  auto back = ParseIncrementManifest(j.dump(), "test");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ(back->tables.size(), 1u);
  EXPECT_EQ(back->tables[0].text_arrays, std::vector<std::string>{"a"});
  j["tables"][0]["text_arrays"] = {"nope"};
  auto hostile = ParseIncrementManifest(j.dump(), "test");
  ASSERT_FALSE(hostile.ok());
  EXPECT_EQ(hostile.status().code(), Code::kCorruption) << hostile.status().ToString();
  EXPECT_NE(hostile.status().message().find("text_arrays names no column"), std::string::npos)
      << hostile.status().ToString();
}

// Reserved column names in change files (docs/incremental.md, "Change files"): the meta
// columns' names and _lakedump_* are escaped, every other name stays, and unescaping gives the
// source's name back; the manifest says so.
TEST(IncrementalStateTest, ReservedColumnNamesAreEscapedAndBack) {
  for (const char* name : {"_op", "_lsn", "_xid", "_commit_ts", "_unchanged", "_lakedump_lsn",
                           "_lakedump_", "_lakedump__op"}) {
    const std::string escaped = EscapeChangeColumnName(name);
    EXPECT_EQ(escaped, std::string("_lakedump_") + name);
    EXPECT_EQ(UnescapeChangeColumnName(escaped), name);
  }
  for (const char* name : {"id", "op", "_opx", "_lakedum", "lakedump_x", "_Lakedump_x"}) {
    EXPECT_EQ(EscapeChangeColumnName(name), name);
    EXPECT_EQ(UnescapeChangeColumnName(name), name);
  }
  IncrementManifest m;
  m.sequence = 1;
  m.escaped_column_names = true;
  auto back = ParseIncrementManifest(ToJson(m).dump(), "m");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE(back->escaped_column_names);
  m.escaped_column_names = false;
  EXPECT_FALSE(ParseIncrementManifest(ToJson(m).dump(), "m")->escaped_column_names);
}

}  // namespace
}  // namespace lakedump
