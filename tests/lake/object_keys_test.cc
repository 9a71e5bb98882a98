#include "lake/object_keys.h"

#include <gtest/gtest.h>

#include "store/object_key.h"

namespace lakedump {
namespace {

TEST(ObjectKeysTest, EscapesSeparatorsDotsAndHiveCharacters) {
  EXPECT_EQ(EscapeKeyComponent("orders"), "orders");
  EXPECT_EQ(EscapeKeyComponent("a/b"), "a%2Fb");
  EXPECT_EQ(EscapeKeyComponent("a\\b"), "a%5Cb");
  EXPECT_EQ(EscapeKeyComponent("."), "%2E");
  EXPECT_EQ(EscapeKeyComponent(".."), "%2E.");
  EXPECT_EQ(EscapeKeyComponent(".hidden"), "%2Ehidden");
  EXPECT_EQ(EscapeKeyComponent("50%"), "50%25");
  EXPECT_EQ(EscapeKeyComponent("say \"hi\""), "say %22hi%22");
  EXPECT_EQ(EscapeKeyComponent("it's"), "it%27s");
  EXPECT_EQ(EscapeKeyComponent("k=v"), "k%3Dv");
  EXPECT_EQ(EscapeKeyComponent("tab\there"), "tab%09here");
  EXPECT_EQ(EscapeKeyComponent("with space"), "with space");
  EXPECT_EQ(EscapeKeyComponent("ünïcödé 表"), "ünïcödé 表");
  EXPECT_EQ(EscapeKeyComponent(std::string("bad\xff", 4)), "bad%FF");
  EXPECT_EQ(EscapeKeyComponent(""), "%");
}

TEST(ObjectKeysTest, UnescapeInvertsEscape) {
  for (std::string name : {"a/b", "..", ".x", "50%", "q\"'", "ü表 x", "a=b:c", ""}) {
    EXPECT_EQ(UnescapeKeyComponent(EscapeKeyComponent(name)), name) << name;
  }
}

TEST(ObjectKeysTest, NoNameLeavesItsFolder) {
  const std::vector<std::string> names = {"a/b",  "..",     "../..", "/etc/passwd", ".",
                                          "x\\y", "a\"b'c", "sp ace", "ünï",       "",
                                          "%2F",  "a\nb",   "/",     std::string(300, 'x')};
  for (const std::string& schema : {std::string("main"), std::string("..")}) {
    for (const std::string& name : names) {
      const TableRef t{schema, name};
      const std::string key = DataFileKey(t, "", 0, 1, "RUN");
      EXPECT_TRUE(ValidateObjectKey(key).ok()) << key;
      EXPECT_TRUE(IsValidUtf8(key)) << key;
      // exactly <schema>/<table>/<file>
      EXPECT_EQ(std::count(key.begin(), key.end(), '/'), 2) << key;
      EXPECT_TRUE(ValidateObjectKey(TableManifestKey(t)).ok());
      EXPECT_LE(EscapeKeyComponent(name).size(), 200u);
    }
  }
}

TEST(ObjectKeysTest, LongNamesStayDistinct) {
  const std::string a(300, 'a');
  std::string b = a;
  b.back() = 'b';
  EXPECT_NE(EscapeKeyComponent(a), EscapeKeyComponent(b));
  EXPECT_LE(EscapeKeyComponent(std::string(150, '/')).size(), 200u);
}

TEST(ObjectKeysTest, HivePartitionValues) {
  EXPECT_EQ(EscapeHivePartitionValue("2024-01-01"), "2024-01-01");
  EXPECT_EQ(EscapeHivePartitionValue("a=b/c"), "a%3Db%2Fc");
  EXPECT_EQ(EscapeHivePartitionValue("12:30"), "12%3A30");
  EXPECT_EQ(EscapeHivePartitionValue(""), "__HIVE_DEFAULT_PARTITION__");
  EXPECT_EQ(EscapeHivePartitionValue(".."), "..");  // inside "col=..", harmless
}

TEST(ObjectKeysTest, DataFileKeyLayout) {
  EXPECT_EQ(DataFileKey(TableRef{"main", "t"}, "", 0, 3, "R1"), "main/t/part-0000-00003-R1.parquet");
  EXPECT_EQ(DataFileKey(TableRef{"main", "t"}, "c=1", 2, 0, "R1"),
            "main/t/c=1/part-0002-00000-R1.parquet");
  EXPECT_NE(NewRunId(), NewRunId());
}

}  // namespace
}  // namespace lakedump
