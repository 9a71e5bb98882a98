#include "source/postgres/pg_conn.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <utility>

#include "base/hex.h"

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


std::string PercentDecode(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && HexDigitValue(s[i + 1]) >= 0 &&
        HexDigitValue(s[i + 2]) >= 0) {
      out += static_cast<char>(HexDigitValue(s[i + 1]) * 16 + HexDigitValue(s[i + 2]));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

// The password as written in a URI ("scheme://user:PASSWORD@host") or a keyword string
// ("password=PASSWORD", "password='a b'"); "" when there is none. Deliberately lenient: the
// conninfo may be the malformed one libpq just refused.
std::string PasswordIn(std::string_view conninfo) {
  const size_t scheme = conninfo.find("://");
  if (scheme != std::string_view::npos) {
    std::string_view rest = conninfo.substr(scheme + 3);
    const size_t at = rest.rfind('@');
    if (at != std::string_view::npos) {
      const std::string_view userinfo = rest.substr(0, at);
      const size_t colon = userinfo.find(':');
      if (colon != std::string_view::npos) return std::string(userinfo.substr(colon + 1));
    }
    // else perhaps "?password=..." in the query string: the keyword search below
  }
  const size_t key = conninfo.find("password");
  if (key == std::string_view::npos) return "";
  size_t i = conninfo.find('=', key);
  if (i == std::string_view::npos) return "";
  ++i;
  while (i < conninfo.size() && conninfo[i] == ' ') ++i;
  std::string out;
  if (i < conninfo.size() && conninfo[i] == '\'') {
    for (++i; i < conninfo.size() && conninfo[i] != '\''; ++i) {
      if (conninfo[i] == '\\' && i + 1 < conninfo.size()) ++i;
      out += conninfo[i];
    }
  } else {
    for (; i < conninfo.size() && conninfo[i] != ' ' && conninfo[i] != '&'; ++i) {
      out += conninfo[i];
    }
  }
  return out;
}

void ReplaceAll(std::string* text, std::string_view what, std::string_view with) {
  if (what.empty()) return;
  for (size_t at = text->find(what); at != std::string::npos;
       at = text->find(what, at + with.size())) {
    text->replace(at, what.size(), with);
  }
}

}  // namespace

std::string RedactConnSecrets(std::string_view message, std::string_view conninfo) {
  constexpr std::string_view kRedacted = "(redacted)";
  const std::string password = PasswordIn(conninfo);
  const std::string decoded = PercentDecode(password);
  std::string out;
  // Quoted tokens first: one that holds any part of the password (or of the conninfo around
  // it) is dropped whole, so a cut-off password ("Pw%zz...") leaks nothing either.
  size_t i = 0;
  while (i < message.size()) {
    const size_t open = message.find('"', i);
    if (open == std::string_view::npos) break;
    const size_t close = message.find('"', open + 1);
    if (close == std::string_view::npos) break;
    const std::string_view token = message.substr(open + 1, close - open - 1);
    const bool secret =
        (!conninfo.empty() && token == conninfo) ||
        (!password.empty() && !token.empty() &&
         (token.find(password) != std::string_view::npos ||
          (!decoded.empty() && token.find(decoded) != std::string_view::npos) ||
          password.find(token) != std::string::npos ||
          (token.size() >= 3 && token.find(password.substr(0, 3)) != std::string_view::npos)));
    out.append(message.substr(i, open + 1 - i));
    out.append(secret ? kRedacted : token);
    out += '"';
    i = close + 1;
  }
  out.append(message.substr(std::min(i, message.size())));
  ReplaceAll(&out, conninfo, kRedacted);
  ReplaceAll(&out, password, kRedacted);
  ReplaceAll(&out, decoded, kRedacted);
  return out;
}

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
                                                int connect_timeout_s, bool replication) {
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
  if (replication) {
    keys.push_back("replication");
    values.push_back("database");
  }
  keys.push_back(nullptr);
  values.push_back(nullptr);
  PGconn* raw = PQconnectdbParams(keys.data(), values.data(), /*expand_dbname=*/1);
  if (raw == nullptr) return Status::Internal("libpq could not allocate a connection");
  std::unique_ptr<PgConn> conn(new PgConn(raw, conninfo));
  PQsetNoticeProcessor(raw, &PgConn::KeepNotice, conn.get());
  if (PQstatus(raw) != CONNECTION_OK) {
    return ConnectError("cannot connect to PostgreSQL: " +
                        RedactConnSecrets(OneLine(PQerrorMessage(raw)), conninfo));
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
  return PgStatusFromError(state ? state : "", RedactConnSecrets(message, conninfo_), lost);
}

Status PgConn::Exec(const std::string& sql) {
  PgResult r(PQexec(conn_.get(), sql.c_str()));
  if (!r || PQresultStatus(r.get()) != PGRES_COMMAND_OK) return ErrorStatus(r.get());
  return Status::OK();
}

Status PgConn::ExecOne(const std::string& sql, const std::vector<std::string>& params) {
  std::vector<const char*> values;
  values.reserve(params.size());
  for (const auto& p : params) values.push_back(p.c_str());
  PgResult r(PQexecParams(conn_.get(), sql.c_str(), static_cast<int>(params.size()), nullptr,
                          values.data(), nullptr, nullptr, 0));
  if (!r) return ErrorStatus(nullptr);
  const ExecStatusType st = PQresultStatus(r.get());
  if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) return ErrorStatus(r.get());
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
