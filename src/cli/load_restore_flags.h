// `load`'s pg_restore options (README "A replica"): -t/--table, -n/--schema,
// -N/--exclude-schema, --no-owner, --no-privileges/--no-acl, --role, --role-map.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "cli/cli11_fwd.h"
#include "load/restore_filter.h"

namespace lakedump::cli {

struct RestoreFlags {
  RestoreFilter filter;
  RestoreRoles roles;
  std::vector<std::string> role_map;  // OLD=NEW, parsed by Apply
};

void AddRestoreFlags(CLI::App* app, RestoreFlags* flags);

// The patterns checked and the role mappings parsed into *filter and *roles (InvalidArgument
// naming the option otherwise).
Status ApplyRestoreFlags(const RestoreFlags& flags, RestoreFilter* filter, RestoreRoles* roles);

}  // namespace lakedump::cli
