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

}  // namespace
}  // namespace lakedump
