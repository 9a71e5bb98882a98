// The change stream's values of columns a dump reads through an expression (their text form:
// interval, inet, cidr, macaddr, xml, money, ranges... and one-dimensional arrays of them;
// PgTablePlan::select_exprs), turned into the bytes that expression gives, so that a change
// row holds exactly what a dump of the row would (docs/incremental.md, "Change files").
// pgoutput sends every value in its type's binary send format; the server itself turns it
// back into the value (the type's receive function, as for a binary parameter) and prints it
// with the dump's own expression, on a connection with the dump's session settings
// (DateStyle, IntervalStyle, extra_float_digits...: PgConn::Connect). Exact by construction,
// for every type with a receive function; one round trip per change row that has such
// a value.
// Ownership: borrows the connection, which must outlive the converter.
// Not thread-safe (one connection).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "source/postgres/pg_conn.h"
#include "source/postgres/pgoutput.h"

namespace lakedump {

class PgTextFormConverter {
 public:
  // Per column of the table, in the stream's order: its name, the dump's select expression
  // for it (PgTablePlan::select_exprs) and its type's OID (as pgoutput names it). Columns
  // whose expression is their quoted name pass through.
  PgTextFormConverter(const std::vector<std::string>& names,
                      const std::vector<std::string>& select_exprs,
                      const std::vector<uint32_t>& type_oids);

  // True when some column is read through an expression (a connection is then needed).
  bool needed() const { return !converted_.empty(); }
  // The connection the server conversions run on; borrowed.
  void set_connection(PgConn* conn) { conn_ = conn; }

  // Replaces each converted column's binary value in `values` with the bytes its expression
  // gives (binary); NULL and unchanged (TOASTed) values stay. The new bytes live in this
  // converter until the next call. InvalidArgument when the server refuses a value (the
  // type changed since, or the value is not of it); the connection's errors otherwise.
  Status Convert(std::vector<PgoutputValue>* values);

 private:
  struct Converted {
    size_t column;
    std::string expr;  // the select expression with the column's name replaced by "$1"
    uint32_t type_oid;
  };
  std::vector<Converted> converted_;
  PgConn* conn_ = nullptr;
  std::vector<std::string> out_;  // the converted bytes of the last call
};

}  // namespace lakedump
