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
