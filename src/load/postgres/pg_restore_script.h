// The SQL pg_restore runs for each entry of a pg_dump archive, taken from one script it writes
// (`pg_restore --verbose --file=- --use-list=...`, with the load's --no-owner/--no-privileges/
// --role, of an archive --role-map rewrote), so that lakedump runs each entry on its own
// connections with pg_restore's exact statements (issue 31: no pg_restore per batch).
//
// pg_restore's script is: the session settings every connection of it gets (statement and
// lock timeouts, client_encoding, standard_conforming_strings, the empty search_path,
// check_function_bodies, xmloption, client_min_messages, row_security, SET ROLE for --role),
// then per entry a header comment whose --verbose line "-- TOC entry <dump id> (class ...)"
// names it, then its SQL (the definition, and ALTER ... OWNER TO for what has an owner). The
// settings pg_restore changes only when they differ from the entry before (default_tablespace,
// default_table_access_method, search_path of archives older than pg_dump 10.3) it writes just
// before the header of the entry that needs them: they go with that entry; as an entry may run
// on any connection after any other, PgRestoreEntrySql also sets its tablespace again.
//
// Pure functions; thread-safe.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "source/postgres/pg_archive_toc.h"

namespace lakedump {

struct PgRestoreScript {
  std::string preamble;               // the session settings, before the first entry
  std::map<int, std::string> entries;  // dump id -> the SQL pg_restore runs for the entry
};

// The script split per entry. An entry of `ids` pg_restore left out (a grant under
// --no-privileges) has none. nullopt when the script cannot be split: a psql command in it
// other than the \restrict pair (PgRestoreScriptAsQuery), an entry marker that is not one of
// `ids` or appears twice, a marker without its header line before it.
std::optional<PgRestoreScript> SplitPgRestoreScript(std::string_view script,
                                                    const std::set<int>& ids);

// What runs for entry `e` on a connection that ran the preamble: its tablespace set as
// pg_restore sets it (nothing for an entry without one), then its SQL from the script.
std::string PgRestoreEntrySql(const PgArchiveTocEntry& e, const std::string& sql);

// "INDEX app.orders_day", "CONSTRAINT app.orders orders_pkey": an entry's kind and name in
// one line, for its error.
std::string PgRestoreEntryName(const PgArchiveTocEntry& e);

}  // namespace lakedump
