// The roles a pg_dump archive names, found by their place in the archive, never by searching
// SQL text for a name (docs/dump-format.md "Schema", README "A replica"):
//   owner     each entry's owner field (pg_restore turns it into ALTER ... OWNER TO);
//   grant     ACL and DEFAULT ACL entries, statements pg_dump generates itself: the grantees
//             after GRANT ... TO / REVOKE ... FROM, the grantor of SET SESSION AUTHORIZATION
//             and GRANTED BY, the role of ALTER DEFAULT PRIVILEGES FOR ROLE;
//   policy    the roles after CREATE POLICY ... TO.
// The statements are read token by token (quoted identifiers, string and dollar-quoted
// literals, parentheses): a role is the identifier in one of those places, so a name with a
// space, a quote, a dot or a newline is one token, and a table named like a role is not one.
// --role-map renames by rewriting exactly those tokens (and owner fields) in the archive.
// Pure functions but PgMissingRoles; thread-safe.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "base/status.h"
#include "source/postgres/pg_archive_toc.h"
#include "source/postgres/pg_conn.h"

namespace lakedump {

enum class PgRoleUse { kOwner, kGrant, kPolicy };

struct PgRoleRef {
  std::string role;  // the role's name (identifier unquoted)
  PgRoleUse use = PgRoleUse::kGrant;
  size_t at = 0, end = 0;  // the token's bytes in the entry's definition (not for kOwner)
};

// The roles of one entry's definition (ACL, DEFAULT ACL, POLICY; none for other entries), in
// order. PUBLIC is not a role and is not listed.
std::vector<PgRoleRef> PgDefinitionRoles(const PgArchiveTocEntry& e);

// What the restore's role options are (pg_restore's, plus --role-map).
struct PgRoleOptions {
  bool no_owner = false;
  bool no_privileges = false;
  std::map<std::string, std::string> role_map;  // old -> new
};

// The roles restoring `entries` (indices into toc.entries) needs, after the map, each with
// its uses: owners unless no_owner, grants unless no_privileges, policies always.
using PgRoleUses = std::set<PgRoleUse>;
std::map<std::string, PgRoleUses> PgRolesNeeded(const PgArchiveToc& toc,
                                               const std::vector<size_t>& entries,
                                               const PgRoleOptions& options);

// The roles of `needed` that the target (`conn`'s pg_roles) does not have, with their uses.
// (The one function here that queries.)
Result<std::map<std::string, PgRoleUses>> PgMissingRoles(
    PgConn& conn, const std::map<std::string, PgRoleUses>& needed);

// The one line refusing a restore into a target without `missing` (role -> uses), naming the
// option that fixes it (--role-map when a policy names one: no option leaves policies out).
std::string MissingRolesLine(const std::map<std::string, PgRoleUses>& missing);

// The edits renaming the mapped roles in `entries` (owner fields, grant and policy tokens).
std::vector<PgArchiveEdit> PgRoleMapEdits(const PgArchiveToc& toc,
                                          const std::vector<size_t>& entries,
                                          const PgRoleOptions& options);

}  // namespace lakedump
