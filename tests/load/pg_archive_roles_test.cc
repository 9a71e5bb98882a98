// The roles of a pg_dump archive found by their place in pg_dump's own statements (grantees,
// grantors, default-privilege roles, policy roles, owners), never by searching for a name:
// odd names stay one name, a table or a string literal spelled like a role is not one, and
// --role-map rewrites exactly those tokens.
#include "load/postgres/pg_archive_roles.h"

#include <gtest/gtest.h>

namespace lakedump {
namespace {

PgArchiveTocEntry Entry(std::string desc, std::string definition, std::string owner = "postgres") {
  PgArchiveTocEntry e;
  e.desc = std::move(desc);
  e.definition = std::move(definition);
  e.has_definition = true;
  e.owner = std::move(owner);
  return e;
}

std::vector<std::string> Roles(const PgArchiveTocEntry& e) {
  std::vector<std::string> out;
  for (const PgRoleRef& r : PgDefinitionRoles(e)) out.push_back(r.role);
  return out;
}

constexpr const char* kAcl =
    "REVOKE ALL ON TABLE \"odd schema\".\"Odd Name/x\" FROM PUBLIC;\n"
    "GRANT SELECT(\"to\") ON TABLE \"odd schema\".\"Odd Name/x\" TO \"odd \"\"role\"\"\";\n"
    "SET SESSION AUTHORIZATION grantor;\n"
    "GRANT ALL ON TABLE shop.\"app\" TO app WITH GRANT OPTION;\n"
    "RESET SESSION AUTHORIZATION;\n"
    "GRANT SELECT ON TABLE shop.\"to\" TO \"Reader Team\", reader;\n";

TEST(PgArchiveRolesTest, GrantsNameTheirGranteesAndGrantors) {
  EXPECT_EQ(Roles(Entry("ACL", kAcl)),
            (std::vector<std::string>{"odd \"role\"", "grantor", "app", "Reader Team", "reader"}));
  EXPECT_EQ(Roles(Entry("DEFAULT ACL",
                        "ALTER DEFAULT PRIVILEGES FOR ROLE \"old owner\" IN SCHEMA shop GRANT "
                        "SELECT ON TABLES TO reader;\n")),
            (std::vector<std::string>{"old owner", "reader"}));
  // Neither a comment nor a function's body is a grant.
  EXPECT_TRUE(Roles(Entry("COMMENT", "COMMENT ON TABLE t IS 'GRANT x TO bob';")).empty());
}

TEST(PgArchiveRolesTest, PoliciesNameTheirRolesNotTheirExpressions) {
  EXPECT_EQ(Roles(Entry("POLICY",
                        "CREATE POLICY \"to\" ON shop.orders AS RESTRICTIVE FOR SELECT TO \"app "
                        "user\", reader USING ((note = 'TO bob'::text)) WITH CHECK ($x$ TO "
                        "eve $x$ <> ''::text);\n")),
            (std::vector<std::string>{"app user", "reader"}));
  EXPECT_TRUE(Roles(Entry("POLICY", "CREATE POLICY p ON shop.orders USING (true);")).empty());
}

TEST(PgArchiveRolesTest, NeededRolesFollowTheOptions) {
  PgArchiveToc toc;
  toc.entries = {Entry("TABLE", "CREATE TABLE ...;", "old owner"), Entry("ACL", kAcl),
                 Entry("POLICY", "CREATE POLICY p ON t TO auditor USING (true);")};
  PgRoleOptions o;
  auto needed = PgRolesNeeded(toc, {0, 1, 2}, o);
  EXPECT_EQ(needed.size(), 8u);  // postgres, old owner, the five of kAcl, auditor
  EXPECT_EQ(needed.at("old owner"), PgRoleUses{PgRoleUse::kOwner});
  EXPECT_EQ(needed.at("reader"), PgRoleUses{PgRoleUse::kGrant});
  EXPECT_EQ(needed.at("auditor"), PgRoleUses{PgRoleUse::kPolicy});
  o.no_owner = true;
  o.no_privileges = true;
  o.role_map = {{"auditor", "staging"}};
  needed = PgRolesNeeded(toc, {0, 1, 2}, o);
  ASSERT_EQ(needed.size(), 1u);
  EXPECT_EQ(needed.begin()->first, "staging");
}

TEST(PgArchiveRolesTest, TheRefusalNamesTheRolesAndTheOptionThatHelps) {
  EXPECT_EQ(MissingRolesLine({{"alice", {PgRoleUse::kOwner}}, {"odd role", {PgRoleUse::kGrant}}}),
            "the target has no role \"alice\" (owner), \"odd role\" (grant) that the dump's "
            "schema names; nothing was restored: load with --no-owner --no-privileges (or "
            "--role-map OLD=NEW to map each to a role the target has)");
  EXPECT_EQ(MissingRolesLine({{"alice", {PgRoleUse::kOwner}}}),
            "the target has no role \"alice\" (owner) that the dump's schema names; nothing was "
            "restored: load with --no-owner (or --role-map OLD=NEW to map each to a role the "
            "target has)");
  // A role a policy names too: only --role-map helps.
  EXPECT_EQ(MissingRolesLine({{"auditor", {PgRoleUse::kOwner, PgRoleUse::kPolicy}}}),
            "the target has no role \"auditor\" (owner, policy) that the dump's schema names; "
            "nothing was restored: load with --role-map OLD=NEW (a policy names them; create "
            "the roles, or map each to one the target has)");
}

TEST(PgArchiveRolesTest, TheRoleMapRewritesExactlyTheRoleTokens) {
  PgArchiveToc toc;
  toc.entries = {Entry("TABLE", "CREATE TABLE shop.reader (reader int);", "reader"),
                 Entry("ACL", kAcl),
                 Entry("POLICY", "CREATE POLICY reader ON t TO reader USING (reader > 0);")};
  PgRoleOptions o;
  o.role_map = {{"reader", "new \"reader\""}, {"odd \"role\"", "app"}};
  const std::vector<PgArchiveEdit> edits = PgRoleMapEdits(toc, {0, 1, 2}, o);
  ASSERT_EQ(edits.size(), 3u);
  EXPECT_EQ(edits[0].owner, "new \"reader\"");
  EXPECT_FALSE(edits[0].definition.has_value());  // a table named like the role stays
  EXPECT_EQ(*edits[1].definition,
            "REVOKE ALL ON TABLE \"odd schema\".\"Odd Name/x\" FROM PUBLIC;\n"
            "GRANT SELECT(\"to\") ON TABLE \"odd schema\".\"Odd Name/x\" TO \"app\";\n"
            "SET SESSION AUTHORIZATION grantor;\n"
            "GRANT ALL ON TABLE shop.\"app\" TO app WITH GRANT OPTION;\n"
            "RESET SESSION AUTHORIZATION;\n"
            "GRANT SELECT ON TABLE shop.\"to\" TO \"Reader Team\", \"new \"\"reader\"\"\";\n");
  EXPECT_EQ(*edits[2].definition,
            "CREATE POLICY reader ON t TO \"new \"\"reader\"\"\" USING (reader > 0);");
}

}  // namespace
}  // namespace lakedump
