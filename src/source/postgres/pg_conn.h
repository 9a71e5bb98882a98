// PgConn: one libpq connection (owned PGconn*) plus the few helpers every
// PostgreSQL session of lakedump needs: session setup, statements that must
// succeed, and the translation of libpq errors into Status (the one place
// where libpq codes become lakedump codes). Also identifier/literal quoting.
//
// Thread-safety: a PgConn is used by one thread at a time (libpq connections
// are not thread-safe); distinct PgConns are independent.
#pragma once

#include <libpq-fe.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace lakedump {

struct PgResultDeleter {
  void operator()(PGresult* r) const { PQclear(r); }
};
using PgResult = std::unique_ptr<PGresult, PgResultDeleter>;

struct PgConnDeleter {
  void operator()(PGconn* c) const { PQfinish(c); }
};

// quote_ident semantics, but always quoted: "a""b".
std::string QuoteIdent(std::string_view name);
// 'it''s' (standard_conforming_strings is on in every lakedump session).
std::string QuoteLiteral(std::string_view text);
// "schema"."table"
std::string QuoteQualified(std::string_view schema, std::string_view table);

class PgConn {
 public:
  PgConn(const PgConn&) = delete;  // libpq holds `this` (the notice processor's argument)
  PgConn& operator=(const PgConn&) = delete;
  // Connects with `conninfo` (URI or keyword string; PG* variables and
  // .pgpass apply through libpq). Adds connect_timeout=`connect_timeout_s`
  // unless the conninfo or PGCONNECT_TIMEOUT gives one, then runs the session
  // setup (jit off, UTF8, ISO dates, UTC, no statement/idle-in-transaction
  // timeouts, empty search_path). TCP keepalives are on (idle 30 s, interval
  // 10 s, 3 probes) unless the conninfo sets them. Errors never contain the password.
  // `replication`: a logical replication connection (replication=database), which takes
  // replication commands (CREATE_REPLICATION_SLOT) as well as SQL.
  static Result<std::unique_ptr<PgConn>> Connect(const std::string& conninfo,
                                                 int connect_timeout_s, bool replication = false);

  PGconn* raw() { return conn_.get(); }
  bool broken() const { return PQstatus(conn_.get()) != CONNECTION_OK; }
  int server_version() const { return PQserverVersion(conn_.get()); }
  int backend_pid() const { return PQbackendPID(conn_.get()); }

  // Runs `sql` (one or several statements) that return no rows.
  Status Exec(const std::string& sql);
  // Runs exactly one statement (PQexecParams: the server refuses several `;`-separated
  // ones, so nothing can be chained onto it), with optional text parameters; any result
  // status but an error is fine. For every statement built with parts we did not write.
  Status ExecOne(const std::string& sql, const std::vector<std::string>& params = {});
  // Runs one statement returning rows, with optional text parameters.
  Result<PgResult> Query(const std::string& sql, const std::vector<std::string>& params = {});

  // Status for a failed result (or nullptr = connection-level failure).
  Status ErrorStatus(const PGresult* result) const;

  // The exported snapshot that this connection's open REPEATABLE READ transaction
  // imported, kept open between tables so that a worker imports it once (as pg_dump's
  // workers do); "" when no such transaction is open. Set and cleared by its user.
  const std::string& open_snapshot() const { return open_snapshot_; }
  void set_open_snapshot(std::string id) { open_snapshot_ = std::move(id); }

 private:
  PgConn(PGconn* conn, std::string conninfo) : conn_(conn), conninfo_(std::move(conninfo)) {}
  // libpq's notice processor: server notices (NOTICE, WARNING) never go to stderr, where
  // they would break the one-line error contract; the last one is kept and named in
  // the error when the server drops the connection ("terminating connection due to...").
  static void KeepNotice(void* self, const char* message);

  std::unique_ptr<PGconn, PgConnDeleter> conn_;
  std::string conninfo_;  // only to redact its secrets from messages (RedactConnSecrets)
  std::string last_notice_;
  std::string open_snapshot_;
};

// Removes the secrets of `conninfo` from a libpq message: the whole conninfo wherever it
// appears, the password (as written and percent-decoded) wherever it appears, and every
// double-quoted token that holds part of the password (libpq's URI parser quotes the text it
// failed on: `invalid percent-encoded token: "Pw%zz..."`, or the whole URI for a bad IPv6
// host). The one filter every libpq message passes through (Connect, ErrorStatus).
// Pure; thread-safe. Exposed for tests.
std::string RedactConnSecrets(std::string_view message, std::string_view conninfo);

// Maps a libpq message/SQLSTATE to a Status code. Exposed for tests.
Status PgStatusFromError(std::string_view sqlstate, std::string message, bool connection_bad);

// Text of one result cell ("" for NULL).
inline std::string_view PgValue(const PGresult* r, int row, int col) {
  return std::string_view(PQgetvalue(r, row, col), PQgetlength(r, row, col));
}

}  // namespace lakedump
