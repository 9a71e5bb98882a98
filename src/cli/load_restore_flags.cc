#include "cli/load_restore_flags.h"

#include <CLI/CLI.hpp>

namespace lakedump::cli {

void AddRestoreFlags(CLI::App* app, RestoreFlags* f) {
  app->add_option("-t,--table", f->filter.tables,
                  "pg_restore's -t: only the tables (views, sequences) matching this psql "
                  "pattern, with what they need (repeatable; schema.name, \"Quoted\" exactly, "
                  "unquoted folded to lower case, * and ? wildcards)")
      ->type_name("PATTERN");
  app->add_option("-n,--schema", f->filter.schemas,
                  "pg_restore's -n: only the objects of schemas matching this pattern, with "
                  "what they need (repeatable)")
      ->type_name("PATTERN");
  app->add_option("-N,--exclude-schema", f->filter.exclude_schemas,
                  "pg_restore's -N: not the objects of schemas matching this pattern "
                  "(repeatable)")
      ->type_name("PATTERN");
  app->add_flag("--no-owner", f->roles.no_owner,
                "PostgreSQL: do not restore the owners of objects (they belong to the "
                "connecting role, or --role)");
  app->add_flag("--no-privileges,--no-acl", f->roles.no_privileges,
                "PostgreSQL: do not restore privileges (GRANT/REVOKE)");
  app->add_option("--role", f->roles.role,
                  "PostgreSQL: SET ROLE to this role before restoring the schema");
  app->add_option("--role-map", f->role_map,
                  "PostgreSQL: restore the dump's role OLD as NEW in owners, grants and policies "
                  "(repeatable; \"quote\" a name holding =). A role the schema names that the "
                  "target lacks stops the load before anything is created, naming it")
      ->type_name("OLD=NEW");
}

Status ApplyRestoreFlags(const RestoreFlags& flags, RestoreFilter* filter, RestoreRoles* roles) {
  LD_RETURN_IF_ERROR(flags.filter.Check());
  *filter = flags.filter;
  *roles = flags.roles;
  for (const std::string& m : flags.role_map) {
    LD_ASSIGN_OR_RETURN(auto mapping, ParseRoleMapping(m));
    roles->role_map.push_back(std::move(mapping));
  }
  return Status::OK();
}

}  // namespace lakedump::cli
