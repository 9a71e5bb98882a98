#include "load/postgres/increment_apply.h"

#include <fmt/format.h>

#include <map>
#include <memory>
#include <queue>
#include <set>

#include <nlohmann/json.hpp>

#include "lake/increment_signature.h"
#include "lake/manifest.h"
#include "format/parquet/parquet_reader.h"
#include "load/load_service.h"
#include "load/postgres/increment_checks.h"
#include "load/postgres/increment_files.h"
#include "load/postgres/increment_set_apply.h"
#include "load/postgres/pg_copy_encoder.h"
#include "load/postgres/pg_type_grammar.h"
#include "store/prefix_store.h"

namespace lakedump {
namespace {

// A column's type from the closed grammar (pg_type_grammar.h), as SQL built from our own
// strings: never the dump's text.
Result<std::string> TypeSql(int sequence, const Column& c) {
  auto type = ParsePgColumnType(c.source_type);
  if (!type.ok()) {
    return Status::InvalidArgument(fmt::format("increment {}: column {}: {}", sequence,
                                               QuoteIdent(c.name), type.status().message()));
  }
  return PgColumnTypeSql(*type);
}

class Applier {
 public:
  Applier(PgConn& conn, ObjectStore& dest, const IncrementManifest& m,
          const IncrementApplyOptions& options, std::stop_token stop)
      : conn_(conn), m_(m), options_(options), schema_map_(options.schema_map), stop_(stop),
        increment_(&dest, IncrementPrefix(m.sequence)) {}

  Status Run();
  IncrementApplyStats stats;

 private:
  struct Stream {
    const ChangeFile* file = nullptr;
    std::string target;  // "schema"."table"
    std::vector<std::string> key;
    std::unique_ptr<ObjectReader> object;
    std::unique_ptr<ParquetReader> reader;
    RowBatch batch;
    size_t row = 0;
    std::vector<std::string> names;  // the table's columns (after the meta columns)
    int64_t Lsn() const { return batch.column(1).ValueAt<int64_t>(row); }
  };
  Status Redump(const RedumpedTable& t, ObjectStore& redump_store, const DumpManifest& dump);
  Status MatchColumns(const std::string& target, const TableRef& ref, const Schema& schema);
  // CREATE TABLE `target` with the columns (source types) and primary key of `tm`.
  Status CreateTable(const std::string& target, const TableRef& ref, const TableManifest& tm);
  // Sends the rows of the re-dumped table's files into the COPY in progress; ends the COPY
  // when a file is bad.
  Status CopyRedumpedFiles(ObjectStore& redump_store, const TableManifest& tm);
  Status ApplyRow(Stream& s);
  // Dropped and re-dumped tables (the increment's DDL).
  Status ApplyDdl();
  // The set-based tables' changes; `set_based` gets their names.
  Status ApplySetBased(std::set<std::string>* set_based);
  Result<bool> Advance(Stream& s);  // false at the end of the file
  std::string Target(const TableRef& ref) const {
    const TableRef t = MapTargetTable(ref, schema_map_);
    return QuoteQualified(t.schema, t.name);
  }
  Result<int> Exec(const std::string& sql, const std::vector<const char*>& params);

  PgConn& conn_;
  const IncrementManifest& m_;
  const IncrementApplyOptions& options_;
  const std::vector<std::pair<std::string, std::string>>& schema_map_;
  std::stop_token stop_;
  PrefixStore increment_;
  std::map<std::string, std::string> prepared_;  // SQL -> statement name
  std::string scratch_;
};

Result<int> Applier::Exec(const std::string& sql, const std::vector<const char*>& params) {
  auto it = prepared_.find(sql);
  if (it == prepared_.end()) {
    const std::string name = fmt::format("ld_inc_{}", prepared_.size());
    PgResult p(PQprepare(conn_.raw(), name.c_str(), sql.c_str(), 0, nullptr));
    if (!p || PQresultStatus(p.get()) != PGRES_COMMAND_OK) return conn_.ErrorStatus(p.get());
    it = prepared_.emplace(sql, name).first;
  }
  PgResult r(PQexecPrepared(conn_.raw(), it->second.c_str(), static_cast<int>(params.size()),
                            params.data(), nullptr, nullptr, 0));
  if (!r || PQresultStatus(r.get()) != PGRES_COMMAND_OK) return conn_.ErrorStatus(r.get());
  return std::atoi(PQcmdTuples(r.get()));
}

Status Applier::MatchColumns(const std::string& target, const TableRef& ref,
                             const Schema& schema) {
  LD_ASSIGN_OR_RETURN(
      PgResult r,
      conn_.Query("SELECT a.attname FROM pg_catalog.pg_attribute a WHERE a.attrelid = "
                  "pg_catalog.to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped",
                  {target}));
  if (PQntuples(r.get()) == 0) {
    return Status::NotFound(fmt::format("table {} (of {}) is not in the target", target,
                                        ref.QualifiedName()));
  }
  std::set<std::string> have;
  for (int i = 0; i < PQntuples(r.get()); ++i) have.insert(std::string(PgValue(r.get(), i, 0)));
  std::set<std::string> want;
  for (const Column& c : schema.columns()) {
    want.insert(c.name);
    LD_ASSIGN_OR_RETURN(std::string type, TypeSql(m_.sequence, c));
    if (!have.contains(c.name)) {
      LD_RETURN_IF_ERROR(conn_.Exec(fmt::format("ALTER TABLE {} ADD COLUMN {} {}", target,
                                                QuoteIdent(c.name), type)));
    } else {
      // Retyped (or not): the rows are loaded again anyway.
      LD_RETURN_IF_ERROR(conn_.Exec(fmt::format(
          "ALTER TABLE {0} ALTER COLUMN {1} TYPE {2} USING NULL::{2}", target, QuoteIdent(c.name),
          type)).WithContext("column " + c.name));
    }
  }
  for (const std::string& name : have) {
    if (!want.contains(name)) {
      LD_RETURN_IF_ERROR(
          conn_.Exec(fmt::format("ALTER TABLE {} DROP COLUMN {}", target, QuoteIdent(name))));
    }
  }
  return Status::OK();
}

Status Applier::CreateTable(const std::string& target, const TableRef& ref,
                            const TableManifest& tm) {
  std::string cols;
  for (const Column& c : tm.schema.columns()) {
    LD_ASSIGN_OR_RETURN(std::string type, TypeSql(m_.sequence, c));
    cols += fmt::format("{}{} {}{}", cols.empty() ? "" : ", ", QuoteIdent(c.name), type,
                        c.nullable ? "" : " NOT NULL");
  }
  if (!tm.primary_key.empty()) {
    std::string key;
    for (const std::string& k : tm.primary_key) key += (key.empty() ? "" : ", ") + QuoteIdent(k);
    cols += ", PRIMARY KEY (" + key + ")";
  }
  const TableRef mapped = MapTargetTable(ref, schema_map_);
  const std::string what = "creating table " + ref.QualifiedName() + ", new since the base";
  LD_ASSIGN_OR_RETURN(PgResult schema,
                      conn_.Query("SELECT pg_catalog.to_regnamespace($1) IS NOT NULL",
                                  {QuoteIdent(mapped.schema)}));
  if (PgValue(schema.get(), 0, 0) != "t") {
    LD_RETURN_IF_ERROR(conn_.Exec("CREATE SCHEMA " + QuoteIdent(mapped.schema)).WithContext(what));
  }
  return conn_.Exec(fmt::format("CREATE TABLE {} ({})", target, cols)).WithContext(what);
}

Status Applier::CopyRedumpedFiles(ObjectStore& redump_store, const TableManifest& tm) {
  std::string line;
  for (const DataFile& f : tm.files) {
    std::unique_ptr<ObjectReader> holder;
    auto reader = OpenCheckedIncrementFile(redump_store, f.key, f.bytes, f.xxh64, &holder, f.sha256);
    if (!reader.ok()) {
      PQputCopyEnd(conn_.raw(), "lakedump: bad file");
      PgResult(PQgetResult(conn_.raw()));
      return reader.status();
    }
    RowBatch batch;
    for (;;) {
      Status s = (*reader)->Next(kIncrementBatchRows, &batch);
      if (!s.ok()) {
        PQputCopyEnd(conn_.raw(), "lakedump: bad file");
        PgResult(PQgetResult(conn_.raw()));
        return s;
      }
      if (batch.empty()) break;
      line.clear();
      for (size_t row = 0; row < batch.num_rows(); ++row) {
        for (size_t c = 0; c < batch.num_columns(); ++c) {
          if (c) line.push_back('\t');
          AppendCopyText(batch.column(c), row, &line, &scratch_);
        }
        line.push_back('\n');
      }
      stats.redumped_rows += batch.num_rows();
      if (PQputCopyData(conn_.raw(), line.data(), static_cast<int>(line.size())) != 1) {
        return conn_.ErrorStatus(nullptr);
      }
    }
  }
  return Status::OK();
}

Status Applier::Redump(const RedumpedTable& t, ObjectStore& redump_store,
                       const DumpManifest& dump) {
  LD_ASSIGN_OR_RETURN(TableManifest tm,
                      ReadRedumpedTable(redump_store, dump, t.table, m_.sequence));
  const std::string target = Target(t.table);
  // Only when the columns differ (names, or types: a widened column): an ALTER ... TYPE
  // rewrites the table. A type the grammar writes otherwise than format_type() only costs
  // that rewrite, of the emptied table.
  LD_ASSIGN_OR_RETURN(
      PgResult r,
      conn_.Query("SELECT pg_catalog.to_regclass($1) IS NOT NULL, "
                  "(SELECT pg_catalog.json_agg(pg_catalog.json_build_array(a.attname, "
                  "pg_catalog.format_type(a.atttypid, a.atttypmod)) ORDER BY a.attnum)::text "
                  "FROM pg_catalog.pg_attribute a WHERE a.attrelid = "
                  "pg_catalog.to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped)",
                  {target}));
  if (PgValue(r.get(), 0, 0) != "t") {
    // A table created after the base: new to the target too.
    LD_RETURN_IF_ERROR(CreateTable(target, t.table, tm));
  } else {
    nlohmann::json names = nlohmann::json::array();
    for (const Column& c : tm.schema.columns()) {
      LD_ASSIGN_OR_RETURN(std::string type, TypeSql(m_.sequence, c));
      names.push_back(nlohmann::json::array({c.name, type}));
    }
    const auto have = nlohmann::json::parse(PgValue(r.get(), 0, 1), nullptr, false);
    LD_RETURN_IF_ERROR(conn_.Exec("TRUNCATE ONLY " + target));
    if (have != names) LD_RETURN_IF_ERROR(MatchColumns(target, t.table, tm.schema));
  }
  std::string cols;
  for (const Column& c : tm.schema.columns()) {
    cols += (cols.empty() ? "" : ", ") + QuoteIdent(c.name);
  }
  {
    const std::string copy = fmt::format("COPY {} ({}) FROM STDIN", target, cols);
    PgResult start(PQexec(conn_.raw(), copy.c_str()));
    if (!start || PQresultStatus(start.get()) != PGRES_COPY_IN) {
      return conn_.ErrorStatus(start.get()).WithContext("loading re-dumped table " +
                                                        t.table.QualifiedName());
    }
  }
  LD_RETURN_IF_ERROR(CopyRedumpedFiles(redump_store, tm));
  if (PQputCopyEnd(conn_.raw(), nullptr) != 1) return conn_.ErrorStatus(nullptr);
  PgResult end(PQgetResult(conn_.raw()));
  if (!end || PQresultStatus(end.get()) != PGRES_COMMAND_OK) {
    return conn_.ErrorStatus(end.get()).WithContext("loading re-dumped table " +
                                                    t.table.QualifiedName());
  }
  while (PgResult(PQgetResult(conn_.raw()))) {
  }
  return Status::OK();
}

Result<bool> Applier::Advance(Stream& s) {
  if (++s.row < s.batch.num_rows()) return true;
  s.row = 0;
  LD_RETURN_IF_ERROR(s.reader->Next(kIncrementBatchRows, &s.batch));
  return !s.batch.empty();
}

Status Applier::ApplyRow(Stream& s) {
  const RowBatch& b = s.batch;
  const size_t row = s.row;
  const std::string_view op = b.column(0).BytesAt(row);
  std::vector<std::string> values(s.names.size());
  std::vector<bool> null(s.names.size());
  for (size_t i = 0; i < s.names.size(); ++i) {
    const ColumnVector& col = b.column(kChangeMetaColumns + i);
    null[i] = col.IsNull(row);
    if (!null[i]) AppendPgText(col, row, &values[i]);
  }
  std::set<std::string> unchanged;
  if (!b.column(4).IsNull(row)) {
    const auto j = nlohmann::json::parse(b.column(4).BytesAt(row), nullptr, false);
    if (!j.is_array()) return Status::Corruption("bad _unchanged value");
    for (const auto& n : j) {
      if (n.is_string()) unchanged.insert(n.get<std::string>());
    }
  }
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < s.names.size(); ++i) index[s.names[i]] = i;
  std::vector<const char*> params;
  auto param = [&](size_t i) {
    params.push_back(null[i] ? nullptr : values[i].c_str());
    return fmt::format("${}", params.size());
  };
  auto where = [&]() -> Result<std::string> {
    std::string w;
    for (const std::string& k : s.key) {
      auto it = index.find(k);
      if (it == index.end()) return Status::Corruption("key column " + k + " not in change file");
      w += (w.empty() ? "" : " AND ") + QuoteIdent(k) + " = " + param(it->second);
    }
    return w;
  };
  std::string sql;
  if (op == "insert") {
    std::string cols, vals;
    for (size_t i = 0; i < s.names.size(); ++i) {
      cols += (i ? ", " : "") + QuoteIdent(s.names[i]);
      vals += (i ? ", " : "") + param(i);
    }
    sql = fmt::format("INSERT INTO {} ({}) VALUES ({})", s.target, cols, vals);
  } else if (op == "update") {
    std::string set;
    for (size_t i = 0; i < s.names.size(); ++i) {
      if (unchanged.contains(s.names[i])) continue;
      set += (set.empty() ? "" : ", ") + QuoteIdent(s.names[i]) + " = " + param(i);
    }
    LD_ASSIGN_OR_RETURN(std::string w, where());
    sql = fmt::format("UPDATE {} SET {} WHERE {}", s.target, set, w);
  } else if (op == "delete") {
    LD_ASSIGN_OR_RETURN(std::string w, where());
    sql = fmt::format("DELETE FROM {} WHERE {}", s.target, w);
  } else {
    return Status::Corruption(fmt::format("{}: unknown _op \"{}\"", s.file->key, op));
  }
  auto n = Exec(sql, params);
  if (!n.ok()) {
    return n.status().WithContext(fmt::format("increment {}, {} of {} at LSN {}", m_.sequence, op,
                                              s.target, b.column(1).ValueAt<int64_t>(row)));
  }
  if (*n != 1) {
    return Status::InvalidArgument(fmt::format(
        "increment {}: the {} of a row of {} (LSN {}) found no row in the target: the target is "
        "not at the state the increment before left (apply the increments in order, with "
        "--from the first one it lacks)",
        m_.sequence, op, s.target, b.column(1).ValueAt<int64_t>(row)));
  }
  if (op == "insert") ++stats.inserted;
  else if (op == "update") ++stats.updated;
  else ++stats.deleted;
  return Status::OK();
}

Status Applier::ApplyDdl() {
  if (IncrementCarriesDdl(m_) && !options_.ddl_allowed) {
    return Status::InvalidArgument(fmt::format(
        "increment {} refused: it carries DDL, which only a trusted load applies (--trust-dump)",
        m_.sequence));
  }
  for (const TableRef& t : m_.dropped) {
    LD_RETURN_IF_ERROR(conn_.Exec("DROP TABLE IF EXISTS " + Target(t)));
  }
  if (m_.redumped.empty()) return Status::OK();
  PrefixStore redump_store(&increment_, std::string(kRedumpFolder));
  LD_ASSIGN_OR_RETURN(DumpManifest dump, ReadIncrementRedumpManifest(redump_store, m_));
  for (const RedumpedTable& t : m_.redumped) {
    if (stop_.stop_requested()) return Status::Cancelled("interrupted");
    LD_RETURN_IF_ERROR(Redump(t, redump_store, dump));
  }
  return Status::OK();
}

Status Applier::ApplySetBased(std::set<std::string>* set_based) {
  std::map<std::string, const IncrementalTable*> state;
  for (const IncrementalTable& t : m_.tables) state[t.ref.QualifiedName()] = &t;
  std::map<std::string, TableChangeSet> by_table;
  for (const ChangeFile& f : m_.change_files) {
    TableChangeSet& set = by_table[f.table.QualifiedName()];
    set.table = f.table;
    set.files.push_back(&f);
    set.escaped_names = m_.escaped_column_names;
  }
  for (auto& [name, set] : by_table) {
    auto st = state.find(name);
    if (set.rows() < kSetBasedMinChanges || st == state.end()) continue;
    set.target = Target(set.table);
    set.key = st->second->key;
    LD_ASSIGN_OR_RETURN(const bool allowed, SetBasedApplyAllowed(conn_, set.target, set.key));
    if (!allowed) continue;
    if (stop_.stop_requested()) return Status::Cancelled("interrupted");
    LD_RETURN_IF_ERROR(ApplyChangesSetBased(conn_, increment_, m_.sequence, set, &stats, stop_)
                           .WithContext("applying the changes of " + name));
    set_based->insert(name);
  }
  return Status::OK();
}

Status Applier::Run() {
  // Statements prepared for an earlier increment on this connection.
  LD_RETURN_IF_ERROR(conn_.Exec("DEALLOCATE ALL; BEGIN"));
  if (options_.record != nullptr) {
    LD_RETURN_IF_ERROR(
        LockAppliedIncrements(conn_, options_.record->dump_id, options_.previous));
  }
  LD_RETURN_IF_ERROR(ApplyDdl());
  // Tables with many changes, set-based when their target allows it (no order across
  // tables or rows to keep).
  std::set<std::string> set_based;
  std::map<std::string, const IncrementalTable*> state;
  for (const IncrementalTable& t : m_.tables) state[t.ref.QualifiedName()] = &t;
  LD_RETURN_IF_ERROR(ApplySetBased(&set_based));
  std::vector<std::unique_ptr<Stream>> streams;
  for (const ChangeFile& f : m_.change_files) {
    if (set_based.contains(f.table.QualifiedName())) continue;
    auto s = std::make_unique<Stream>();
    s->file = &f;
    s->target = Target(f.table);
    auto st = state.find(f.table.QualifiedName());
    if (st == state.end() || st->second->key.empty()) {
      return Status::Corruption(fmt::format("increment {}: changes of {} without its key",
                                            m_.sequence, f.table.QualifiedName()));
    }
    s->key = st->second->key;
    LD_ASSIGN_OR_RETURN(s->reader,
                        OpenCheckedIncrementFile(increment_, f.key, f.bytes, f.xxh64, &s->object,
                                                 f.sha256));
    LD_ASSIGN_OR_RETURN(s->names,
                        ChangeFileColumns(s->reader->schema(), f.key, m_.escaped_column_names));
    LD_RETURN_IF_ERROR(s->reader->Next(kIncrementBatchRows, &s->batch));
    if (!s->batch.empty()) streams.push_back(std::move(s));
  }
  // Commit order across tables: the smallest _lsn first; within a file, file order.
  auto later = [](const Stream* a, const Stream* b) {
    return a->Lsn() != b->Lsn() ? a->Lsn() > b->Lsn() : a->file->key > b->file->key;
  };
  std::priority_queue<Stream*, std::vector<Stream*>, decltype(later)> heads(later);
  for (auto& s : streams) heads.push(s.get());
  while (!heads.empty()) {
    if (stop_.stop_requested()) return Status::Cancelled("interrupted");
    Stream* s = heads.top();
    heads.pop();
    LD_RETURN_IF_ERROR(ApplyRow(*s));
    LD_ASSIGN_OR_RETURN(bool more, Advance(*s));
    if (more) heads.push(s);
  }
  if (options_.record != nullptr) {
    LD_RETURN_IF_ERROR(InsertAppliedIncrement(conn_, *options_.record));
  }
  return conn_.Exec("COMMIT");
}

}  // namespace

Result<IncrementApplyStats> ApplyIncrement(PgConn& target, ObjectStore& dest,
                                           const IncrementManifest& increment,
                                           const IncrementApplyOptions& options,
                                           std::stop_token stop) {
  Applier applier(target, dest, increment, options, stop);
  Status s = applier.Run();
  if (!s.ok()) {
    if (!target.broken()) target.Exec("ROLLBACK").IgnoreError();
    return s;
  }
  return applier.stats;
}

}  // namespace lakedump
