#include "source/postgres/pg_conn.h"

#include <fmt/format.h>

#include <cstdlib>
#include <utility>

namespace lakedump {
namespace {

// libpq messages end with a newline and may span lines ("\n\tIs the server
// running..."); a lakedump error is one line.
std::string OneLine(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '\n') {
      out += ' ';
    } else if (c != '\t' && c != '\r') {
      out += c;
    }
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  // "ERROR:  msg" -> "msg"; "FATAL:  msg" -> "msg".
  for (std::string_view prefix : {"ERROR:  ", "FATAL:  "}) {
    if (out.starts_with(prefix)) out.erase(0, prefix.size());
  }
  return out;
}

bool Contains(std::string_view haystack, std::string_view needle) {
  return haystack.find(needle) != std::string_view::npos;
}

Status ConnectError(std::string message) {
  if (Contains(message, "database \"") && Contains(message, "does not exist")) {
    return Status::NotFound(message + " (check the database name in the connection string)");
  }
  if (Contains(message, "password authentication failed") ||
      Contains(message, "authentication failed") || Contains(message, "no password supplied") ||
      (Contains(message, "role \"") && Contains(message, "does not exist")) ||
      Contains(message, "no pg_hba.conf entry")) {
    return Status::PermissionDenied(message + " (check user, password, .pgpass or PGPASSWORD)");
  }
  if (Contains(message, "timeout expired") || Contains(message, "Connection refused") ||
      Contains(message, "could not connect") || Contains(message, "could not translate host") ||
      Contains(message, "the database system is starting up") ||
      Contains(message, "the database system is shutting down") ||
      Contains(message, "too many clients")) {
    return Status::Unavailable(message);
  }
  return Status::IOError(message);
}

}  // namespace

std::string QuoteIdent(std::string_view name) {
  std::string out;
  out.reserve(name.size() + 2);
  out += '"';
  for (char c : name) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

std::string QuoteLiteral(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  out += '\'';
  for (char c : text) {
    if (c == '\'') out += '\'';
    out += c;
  }
  out += '\'';
  return out;
}

std::string QuoteQualified(std::string_view schema, std::string_view table) {
  return QuoteIdent(schema) + "." + QuoteIdent(table);
}

Status PgStatusFromError(std::string_view sqlstate, std::string message, bool connection_bad) {
  if (connection_bad || sqlstate.starts_with("08") || sqlstate == "57P01" ||
      sqlstate == "57P02" || sqlstate == "57P03") {
    return Status::Unavailable("connection to PostgreSQL lost: " + message);
  }
  if (sqlstate == "55P03" || sqlstate == "40001" || sqlstate == "40P01" ||
      sqlstate == "53300") {
    return Status::Unavailable(message);
  }
  if (sqlstate == "42P01" || sqlstate == "3D000" || sqlstate == "42704") {
    return Status::NotFound(message);
  }
  if (sqlstate == "42501" || sqlstate.starts_with("28")) {
    return Status::PermissionDenied(message);
  }
  if (sqlstate.starts_with("22")) return Status::InvalidArgument(message);
  return Status::IOError(message);
}

Result<std::unique_ptr<PgConn>> PgConn::Connect(const std::string& conninfo,
                                                int connect_timeout_s) {
  // Keywords before "dbname" are defaults the conninfo may override; those after
  // it are forced (libpq processes the arrays in order, last value wins).
  std::vector<const char*> keys, values;
  const std::string timeout = std::to_string(connect_timeout_s);
  if (std::getenv("PGCONNECT_TIMEOUT") == nullptr && connect_timeout_s > 0) {
    keys.push_back("connect_timeout");
    values.push_back(timeout.c_str());
  }
  keys.push_back("fallback_application_name");
  values.push_back("lakedump");
  // TCP keepalives (defaults the conninfo may override): a session that sits
  // idle in its snapshot transaction for a long dump must not be dropped by a
  // NAT or firewall, and a dead peer is noticed within about a minute.
  static constexpr std::pair<const char*, const char*> kKeepalives[] = {
      {"keepalives", "1"},
      {"keepalives_idle", "30"},
      {"keepalives_interval", "10"},
      {"keepalives_count", "3"},
  };
  for (const auto& [key, value] : kKeepalives) {
    keys.push_back(key);
    values.push_back(value);
  }
  keys.push_back("dbname");
  values.push_back(conninfo.c_str());
  keys.push_back("client_encoding");
  values.push_back("UTF8");
  keys.push_back(nullptr);
  values.push_back(nullptr);
  PGconn* raw = PQconnectdbParams(keys.data(), values.data(), /*expand_dbname=*/1);
  if (raw == nullptr) return Status::Internal("libpq could not allocate a connection");
  std::unique_ptr<PgConn> conn(new PgConn(raw));
  PQsetNoticeProcessor(raw, &PgConn::KeepNotice, conn.get());
  if (PQstatus(raw) != CONNECTION_OK) {
    return ConnectError("cannot connect to PostgreSQL: " + OneLine(PQerrorMessage(raw)));
  }
  std::string setup =
      "SET client_encoding = 'UTF8'; SET statement_timeout = 0; SET lock_timeout = 0; "
      "SET extra_float_digits = 3; SET DateStyle = 'ISO, YMD'; SET IntervalStyle = 'postgres'; "
      "SET TimeZone = 'UTC'; SET search_path = ''; SET standard_conforming_strings = on; "
      "SET bytea_output = 'hex'";
  if (conn->server_version() >= 90600) setup += "; SET idle_in_transaction_session_timeout = 0";
  if (conn->server_version() >= 110000) setup += "; SET jit = off";
  LD_RETURN_IF_ERROR(conn->Exec(setup).WithContext("PostgreSQL session setup"));
  return conn;
}

void PgConn::KeepNotice(void* self, const char* message) {
  static_cast<PgConn*>(self)->last_notice_ = OneLine(message ? message : "");
}

Status PgConn::ErrorStatus(const PGresult* result) const {
  const char* state = result ? PQresultErrorField(result, PG_DIAG_SQLSTATE) : nullptr;
  std::string message =
      OneLine(result ? PQresultErrorMessage(result) : PQerrorMessage(conn_.get()));
  if (message.empty()) message = OneLine(PQerrorMessage(conn_.get()));
  if (message.empty()) message = "unknown libpq error";
  const bool lost = PQstatus(conn_.get()) != CONNECTION_OK;
  if (lost && !last_notice_.empty()) message += " (the server said: " + last_notice_ + ")";
  return PgStatusFromError(state ? state : "", std::move(message), lost);
}

Status PgConn::Exec(const std::string& sql) {
  PgResult r(PQexec(conn_.get(), sql.c_str()));
  if (!r || PQresultStatus(r.get()) != PGRES_COMMAND_OK) return ErrorStatus(r.get());
  return Status::OK();
}

Result<PgResult> PgConn::Query(const std::string& sql, const std::vector<std::string>& params) {
  std::vector<const char*> values;
  values.reserve(params.size());
  for (const auto& p : params) values.push_back(p.c_str());
  PgResult r(PQexecParams(conn_.get(), sql.c_str(), static_cast<int>(params.size()), nullptr,
                          values.data(), nullptr, nullptr, 0));
  if (!r || PQresultStatus(r.get()) != PGRES_TUPLES_OK) return ErrorStatus(r.get());
  return r;
}

}  // namespace lakedump
