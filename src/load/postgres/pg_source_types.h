// Which PostgreSQL source types a dump records (format_type() text such as
// "character varying(20)" or "numeric(10,2)[]") the target can create its columns with,
// decided without ever pasting the dump's text into SQL:
//   - the name goes to the server only as a parameter of to_regtype(), so it is parsed as a
//     type name and nothing else;
//   - the modifiers, if any, must be plain integers (parsed here), and become a typmod
//     through the resolved type's own typmodin function, called from a fixed list of the
//     built-in ones (varchartypmodin, numerictypmodin, ...);
//   - the type is kept only if format_type(oid, typmod) on the server gives back exactly the
//     recorded text (so "integer --" or "integer) ..." is refused), and the text then used in
//     SQL is that server's reply.
// Untrusted dumps keep base types (and arrays of them) only; trusted ones also enums, domains
// and ranges the target has. Stateless; thread-safe (the connection is the caller's).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "source/postgres/pg_conn.h"

namespace lakedump {

// Per recorded type: the server's format_type() text of the resolved type, or "" when it is
// not usable (empty, unknown, refused by the checks above). Errors only for a lost connection.
Result<std::vector<std::string>> ResolvePgSourceTypes(PgConn& conn,
                                                      const std::vector<std::string>& recorded,
                                                      bool base_types_only);

// The integer modifiers of a type text: "numeric(10,2)" -> {10, 2}, "integer" -> {} (true);
// false when there are parentheses holding anything but integers. Exposed for tests.
bool ParsePgTypeModifiers(std::string_view type_text, std::vector<std::string>* modifiers);

}  // namespace lakedump
