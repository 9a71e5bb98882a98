// pg_restore's -t/-n/-N patterns as psql reads them (dots split schema and name outside
// quotes, unquoted letters fold to lower case, quoted text is exact, * and ? are wildcards
// outside quotes), and --role-map's OLD=NEW.
#include "load/restore_filter.h"

#include <gtest/gtest.h>

namespace lakedump {
namespace {

TEST(RestoreFilterTest, TablePatternsFollowPsqlQuoting) {
  RestoreFilter f;
  f.tables = {"public.\"Odd Name/x\""};
  ASSERT_TRUE(f.Check().ok());
  EXPECT_TRUE(f.Keeps({"public", "Odd Name/x"}));
  EXPECT_FALSE(f.Keeps({"public", "odd name/x"}));
  f.tables = {"Public.Orders"};  // unquoted: folded
  EXPECT_TRUE(f.Keeps({"public", "orders"}));
  EXPECT_FALSE(f.Keeps({"Public", "Orders"}));
  f.tables = {"\"my schema\".\"a.b\""};  // a quoted dot is part of the name
  EXPECT_TRUE(f.Keeps({"my schema", "a.b"}));
  EXPECT_FALSE(f.Keeps({"my schema", "a"}));
  f.tables = {"\"say \"\"hi\"\"\""};  // "" is one quote; no schema: any schema
  EXPECT_TRUE(f.Keeps({"s1", "say \"hi\""}));
  f.tables = {"ord*", "\"x*\""};  // * outside quotes is a wildcard, inside it is a star
  EXPECT_TRUE(f.Keeps({"shop", "orders"}));
  EXPECT_TRUE(f.Keeps({"shop", "x*"}));
  EXPECT_FALSE(f.Keeps({"shop", "xy"}));
  f.tables = {"line\nbreak"};
  EXPECT_TRUE(f.Keeps({"s", "line\nbreak"}));
}

TEST(RestoreFilterTest, SchemasAndTablesCombineAsPgRestoreDoes) {
  RestoreFilter f;
  f.schemas = {"\"Sales Team\""};
  EXPECT_TRUE(f.Keeps({"Sales Team", "t"}));
  EXPECT_FALSE(f.Keeps({"sales team", "t"}));
  f.tables = {"t"};
  EXPECT_FALSE(f.Keeps({"other", "t"}));  // -t within the -n schemas
  f = RestoreFilter{};
  f.exclude_schemas = {"tmp*"};
  EXPECT_FALSE(f.Keeps({"tmp_1", "t"}));
  EXPECT_TRUE(f.Keeps({"app", "t"}));
}

TEST(RestoreFilterTest, BadPatternsAreRefusedNamingTheOption) {
  RestoreFilter f;
  f.tables = {"db.s.t"};
  Status s = f.Check();
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.ToString().find("--table"), std::string::npos) << s.ToString();
  f.tables = {"\"unterminated"};
  EXPECT_EQ(f.Check().code(), Code::kInvalidArgument);
  f.tables.clear();
  f.schemas = {"a.b"};
  EXPECT_EQ(f.Check().code(), Code::kInvalidArgument);
}

TEST(RestoreFilterTest, RoleMappings) {
  auto m = ParseRoleMapping("prod_owner=staging");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->first, "prod_owner");
  EXPECT_EQ(m->second, "staging");
  m = ParseRoleMapping("\"odd=role\"=\"New \"\"One\"\"\"");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->first, "odd=role");
  EXPECT_EQ(m->second, "New \"One\"");
  m = ParseRoleMapping("Odd Role=app");  // as written, not folded
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->first, "Odd Role");
  for (const char* bad : {"x", "=y", "x=", "\"x=y", "a=b=c"}) {
    EXPECT_EQ(ParseRoleMapping(bad).status().code(), Code::kInvalidArgument) << bad;
  }
}

}  // namespace
}  // namespace lakedump
