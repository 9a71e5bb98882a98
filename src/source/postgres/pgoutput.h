// Decoding of PostgreSQL's logical replication protocol as the pgoutput plugin writes it
// (protocol version 1, https://www.postgresql.org/docs/current/protocol-logicalrep-message-formats.html):
// Begin, Commit, Relation, Type, Origin, Insert, Update, Delete, Truncate. Tuples are kept as
// views into the message bytes (binary mode: each value in its type's send format, the same
// bytes COPY ... (FORMAT binary) carries).
//
// Everything in a message is checked against its length: a short or malformed message is
// Corruption, never a read past the end. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace lakedump {

// A WAL position as "X/Y" (hex, PostgreSQL's pg_lsn text) and back.
std::string FormatLsn(uint64_t lsn);
// InvalidArgument for anything but "X/Y" with 1..8 hex digits each side.
Result<uint64_t> ParseLsn(std::string_view text);

struct PgoutputColumn {
  std::string name;
  uint32_t type_oid = 0;
  int32_t typmod = -1;
  bool key = false;  // part of the replica identity
};

struct PgoutputRelation {
  uint32_t oid = 0;
  std::string schema;
  std::string name;
  char replica_identity = 'd';  // 'd' default, 'n' nothing, 'f' full, 'i' index
  std::vector<PgoutputColumn> columns;
};

// One column of a tuple: 'n' null, 'u' unchanged TOASTed value (not sent), 'b' binary,
// 't' text.
struct PgoutputValue {
  char kind = 'n';
  std::string_view bytes;  // 'b' and 't'
};

struct PgoutputMessage {
  char type = 0;  // 'B', 'C', 'R', 'Y', 'O', 'I', 'U', 'D', 'T' (others: Unimplemented)
  // Begin: the transaction's commit LSN, commit time (microseconds since 2000-01-01) and xid.
  uint64_t final_lsn = 0;
  int64_t commit_ts = 0;
  uint32_t xid = 0;
  // Commit
  uint64_t commit_lsn = 0;
  uint64_t end_lsn = 0;
  // Relation
  PgoutputRelation relation;
  // Insert / Update / Delete: the relation, the new tuple (Insert, Update) and the old one
  // ('K' key columns only, 'O' the whole old row; 0 = none sent).
  uint32_t relid = 0;
  std::vector<PgoutputValue> new_tuple;
  char old_kind = 0;
  std::vector<PgoutputValue> old_tuple;
  // Truncate
  std::vector<uint32_t> truncated;
};

// Decodes one message of `bytes` (views into `bytes` stay valid as long as it does).
Status ParsePgoutputMessage(std::string_view bytes, PgoutputMessage* out);

}  // namespace lakedump
