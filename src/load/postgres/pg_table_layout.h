// How `load` creates one table in PostgreSQL from its TablePlan: each column's type, and the
// defaults, CHECK constraints and keys that come with it. Here the trust rule of
// docs/dump-format.md ("Threat model") is applied for PostgreSQL:
//   - always: column names, nullability, structured primary key / unique column lists, types
//     resolved by the server (pg_source_types.h) or mapped from the logical type;
//   - only with TablePlan::trust_schema: DEFAULT expressions, CHECK constraints, and the
//     UNIQUE clauses of older dumps that record them only as text. Untrusted, they are
//     counted in LoadNotes (one summary line for the whole load).
// Every SQL text this returns is either ours with quoted identifiers, the server's own
// format_type() reply, or (trusted only) the dump's clause, which the caller still sends as
// one statement (PgConn::ExecOne). Stateless; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "load/target_database.h"
#include "source/postgres/pg_conn.h"

namespace lakedump {

inline constexpr size_t kPgMaxIdentifierBytes = 63;  // NAMEDATALEN - 1

// `base` + `suffix`, the base cut (never inside a UTF-8 sequence) so that the whole fits 63
// bytes, as PostgreSQL cuts the names it makes up.
std::string PgIdentifierWithSuffix(std::string_view base, std::string_view suffix);

// A key built on the staging table before the swap.
struct PgKey {
  bool primary = false;
  std::vector<std::string> columns;  // structured: the SQL is ours, the names quoted
  std::string clause;                // or the dump's text clause (trusted old dumps only)
};
// The name PostgreSQL would give the key: table_pkey, table_col1_col2_key.
std::string PgDefaultKeyName(const std::string& table, const PgKey& key);
// The tail of ADD CONSTRAINT: PRIMARY KEY ("a", "b") / UNIQUE (...) / the trusted clause.
std::string PgKeySql(const PgKey& key);

struct PgTableLayout {
  std::vector<std::string> types;     // per column
  std::vector<std::string> defaults;  // per column: "" or " DEFAULT <expr>" (trusted only)
  std::vector<std::string> checks;    // table CHECK clauses (trusted only)
  std::vector<PgKey> keys;
  std::vector<std::string> identity_columns;  // made identity columns in the swap
};

// REQUIRES: plan is not an append into an existing table (that keeps the table's types).
// Warnings (types that fell back to the logical mapping) and skipped items go to `notes`.
Result<PgTableLayout> PlanPgTableLayout(PgConn& conn, const TablePlan& plan, LoadNotes& notes);

}  // namespace lakedump
