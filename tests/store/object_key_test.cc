#include "store/object_key.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace lakedump {
namespace {

using ::testing::HasSubstr;

TEST(ObjectKeyTest, AcceptsOrdinaryKeys) {
  for (const char* key : {"a", "public/orders/part-0-abc.parquet", "_manifest.json",
                          "s/t/.hidden", "a..b/c...d", "x/y=1/z"}) {
    EXPECT_TRUE(ValidateObjectKey(key).ok()) << key;
  }
}

TEST(ObjectKeyTest, RejectsKeysThatCouldEscapeTheRoot) {
  const std::pair<std::string, std::string> cases[] = {
      {"", "empty"},          {"/etc/passwd", "absolute"},  {"..", "'..'"},
      {"a/../../b", "'..'"},  {"a/..", "'..'"},             {"a//b", "empty segment"},
      {"a/", "ends with"},    {"./a", "'.'"},               {"a/./b", "'.'"},
      {std::string("a\0b", 3), "NUL"},
  };
  for (const auto& [key, why] : cases) {
    Status s = ValidateObjectKey(key);
    EXPECT_EQ(s.code(), Code::kInvalidArgument) << key;
    EXPECT_THAT(s.message(), HasSubstr(why)) << key;
  }
  EXPECT_THAT(ValidateObjectKey(std::string("a\0b", 3)).message(), HasSubstr("a\\x00b"));
}

TEST(ObjectKeyTest, PrefixesMayBeEmptyOrPartial) {
  for (const char* p : {"", "a/", "a/b", "a/part-", "a/."}) {
    EXPECT_TRUE(ValidateKeyPrefix(p).ok()) << p;
  }
  for (const char* p : {"/", "/a", "../", "a/../", "a//b", ".."}) {
    EXPECT_EQ(ValidateKeyPrefix(p).code(), Code::kInvalidArgument) << p;
  }
}

}  // namespace
}  // namespace lakedump
