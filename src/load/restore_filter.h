// pg_restore's selection and role options for `load` (README "A replica"):
//   -t/--table PATTERN, -n/--schema PATTERN, -N/--exclude-schema PATTERN: psql's name
//     patterns (pg_dump's and pg_restore's): a dot outside double quotes separates the
//     schema from the name, unquoted letters fold to lower case, "double quotes" keep
//     everything exactly ("" is one quote), and outside quotes * matches any characters and
//     ? one; -t and -n both given: tables matching a -t in a -n schema (as pg_restore);
//   --no-owner, --no-privileges (--no-acl), --role ROLE, --role-map OLD=NEW.
// Values; thread-safe to read.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "source/table_source.h"

namespace lakedump {

struct RestoreFilter {
  std::vector<std::string> tables;           // -t/--table
  std::vector<std::string> schemas;          // -n/--schema
  std::vector<std::string> exclude_schemas;  // -N/--exclude-schema
  // A subset: --tables, -t or -n was given (the schema restores what the kept tables need,
  // not every object of the dump). Set by the load.
  bool subset = false;

  // InvalidArgument naming the option and the pattern that does not parse.
  Status Check() const;
  // The table passes -t, -n and -N. REQUIRES: Check() passed.
  bool Keeps(const TableRef& table) const;
  // An object named by -t (a view, sequence... at the archive level).
  bool NamedByTable(const TableRef& object) const;
  bool SchemaIncluded(std::string_view schema) const;  // some -n matches (true without -n)
  bool SchemaExcluded(std::string_view schema) const;  // some -N matches
  bool Empty() const { return tables.empty() && schemas.empty() && exclude_schemas.empty(); }
};

struct RestoreRoles {
  bool no_owner = false;       // --no-owner: no ALTER ... OWNER TO
  bool no_privileges = false;  // --no-privileges/--no-acl: no GRANT/REVOKE
  std::string role;            // --role: SET ROLE before restoring; empty = none
  std::vector<std::pair<std::string, std::string>> role_map;  // --role-map OLD=NEW
};

struct DumpManifest;

// filter.Check(), and each -t/-n naming something of the dump (a table, or an object of the
// schema archive: a view, sequence... for -t, a schema for -n): InvalidArgument otherwise.
Status CheckRestoreFilter(const RestoreFilter& filter, const DumpManifest& manifest);

// One psql name pattern matched against one name (one part of a pattern). Exposed for tests.
// `pattern` is the parsed part: see ParsePgNamePattern.
struct PgNamePart {
  std::string chars;          // the characters, case already folded where unquoted
  std::vector<bool> literal;  // per character: false for an unquoted * or ? (wildcards)
};
// The pattern's parts (split at unquoted dots): 1 (a name) or 2 (schema.name); more than
// `max_parts` is InvalidArgument.
Result<std::vector<PgNamePart>> ParsePgNamePattern(std::string_view pattern, size_t max_parts);
bool PgNamePartMatches(const PgNamePart& part, std::string_view name);

// "OLD=NEW" (each side a role name as it is, or "double quoted" when it holds '=') ->
// {old, new}; InvalidArgument naming --role-map otherwise.
Result<std::pair<std::string, std::string>> ParseRoleMapping(std::string_view text);

}  // namespace lakedump
