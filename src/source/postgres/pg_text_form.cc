#include "source/postgres/pg_text_form.h"

#include <fmt/format.h>

namespace lakedump {

PgTextFormConverter::PgTextFormConverter(const std::vector<std::string>& names,
                                         const std::vector<std::string>& select_exprs,
                                         const std::vector<uint32_t>& type_oids) {
  for (size_t i = 0; i < names.size() && i < select_exprs.size() && i < type_oids.size(); ++i) {
    const std::string quoted = QuoteIdent(names[i]);
    const std::string& expr = select_exprs[i];
    if (expr == quoted) continue;
    // The expressions lakedump builds name their column once (pg_type_map.cc).
    const size_t at = expr.find(quoted);
    if (at == std::string::npos) continue;
    converted_.push_back(Converted{i, expr.substr(0, at) + "$%d" + expr.substr(at + quoted.size()),
                                   type_oids[i]});
  }
}

Status PgTextFormConverter::Convert(std::vector<PgoutputValue>* values) {
  std::string sql;
  std::vector<Oid> types;
  std::vector<const char*> bytes;
  std::vector<int> lengths, formats;
  std::vector<size_t> columns;
  for (const Converted& c : converted_) {
    if (c.column >= values->size() || (*values)[c.column].kind != 'b') continue;
    const std::string_view v = (*values)[c.column].bytes;
    std::string expr = c.expr;
    expr.replace(expr.find("$%d"), 3, fmt::format("${}", types.size() + 1));
    sql += (sql.empty() ? "SELECT " : ", ") + expr;
    types.push_back(c.type_oid);
    bytes.push_back(v.data());
    lengths.push_back(static_cast<int>(v.size()));
    formats.push_back(1);
    columns.push_back(c.column);
  }
  if (columns.empty()) return Status::OK();
  if (conn_ == nullptr) return Status::Internal("no connection to convert text-form values on");
  PgResult r(PQexecParams(conn_->raw(), sql.c_str(), static_cast<int>(types.size()),
                          types.data(), bytes.data(), lengths.data(), formats.data(),
                          /*resultFormat=*/1));
  if (!r || PQresultStatus(r.get()) != PGRES_TUPLES_OK) {
    Status s = conn_->ErrorStatus(r.get());
    if (conn_->broken()) return s;
    return Status::InvalidArgument(fmt::format("the server did not convert a value: {}",
                                               s.message()));
  }
  if (PQntuples(r.get()) != 1 || PQnfields(r.get()) != static_cast<int>(columns.size())) {
    return Status::Internal("unexpected answer converting text-form values");
  }
  out_.assign(columns.size(), std::string());
  for (size_t i = 0; i < columns.size(); ++i) {
    PgoutputValue& v = (*values)[columns[i]];
    const int f = static_cast<int>(i);
    if (PQgetisnull(r.get(), 0, f)) {
      v = PgoutputValue{'n', {}};
      continue;
    }
    out_[i].assign(PQgetvalue(r.get(), 0, f), static_cast<size_t>(PQgetlength(r.get(), 0, f)));
    v.bytes = out_[i];
  }
  return Status::OK();
}

}  // namespace lakedump
