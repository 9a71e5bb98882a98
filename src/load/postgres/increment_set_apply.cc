#include "load/postgres/increment_set_apply.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <set>

#include <nlohmann/json.hpp>

#include "load/postgres/increment_files.h"
#include "load/postgres/pg_copy_encoder.h"

namespace lakedump {
namespace {

// Temporary tables of the session, dropped after each table (a failure rolls back the
// transaction, which takes them too). Their meta columns are named so that no column of
// the table is likely to share a name.
constexpr std::string_view kChanges = "pg_temp._lakedump_changes";
constexpr std::string_view kFinal = "pg_temp._lakedump_final";

std::string Join(const std::vector<std::string>& parts, std::string_view prefix,
                 std::string_view separator) {
  std::string out;
  for (const std::string& p : parts) {
    if (!out.empty()) out += separator;
    out += std::string(prefix) + QuoteIdent(p);
  }
  return out;
}

// The name of a table's column in the temporary tables: escaped as in a change file, so that
// it never is one of their bookkeeping columns (_lakedump_lsn, ...).
std::string Temp(const std::string& column) { return EscapeChangeColumnName(column); }

std::vector<std::string> TempNames(const std::vector<std::string>& columns) {
  std::vector<std::string> out;
  for (const std::string& c : columns) out.push_back(Temp(c));
  return out;
}

// "a"."k1" = "b"."k1" AND ... over the key columns, named `a_names` in a, `b_names` in b.
std::string KeyMatch(const std::vector<std::string>& a_names, std::string_view a,
                     const std::vector<std::string>& b_names, std::string_view b) {
  std::string out;
  for (size_t i = 0; i < a_names.size(); ++i) {
    if (!out.empty()) out += " AND ";
    out += fmt::format("{}.{} = {}.{}", a, QuoteIdent(a_names[i]), b, QuoteIdent(b_names[i]));
  }
  return out;
}

Status NotWhereItStarts(int sequence, const std::string& target, std::string_view what) {
  return Status::InvalidArgument(fmt::format(
      "increment {}: {}: {}: the target is not at the state the increment before left "
      "(apply the increments in order, with --from the first one it lacks)",
      sequence, target, what));
}

// Streams the change rows of `changes` into kChanges (COPY text): _lakedump_lsn,
// _lakedump_n (file order), _lakedump_op, _lakedump_unchanged, then the table's columns.
// Collects the columns some update left unchanged into `unchanged`.
class ChangeCopier {
 public:
  ChangeCopier(PgConn& conn, ObjectStore& increment, const TableChangeSet& changes,
               IncrementApplyStats* stats)
      : conn_(conn), increment_(increment), changes_(changes), stats_(stats) {}

  Status Run(const std::vector<std::string>& names, std::set<std::string>* unchanged,
             std::stop_token stop) {
    const std::string copy = fmt::format("COPY {} FROM STDIN", kChanges);
    PgResult start(PQexec(conn_.raw(), copy.c_str()));
    if (!start || PQresultStatus(start.get()) != PGRES_COPY_IN) {
      return conn_.ErrorStatus(start.get());
    }
    Status s = SendFiles(names, unchanged, stop);
    if (!s.ok()) {
      PQputCopyEnd(conn_.raw(), "lakedump: change file not applied");
      while (PgResult(PQgetResult(conn_.raw()))) {
      }
      return s;
    }
    if (PQputCopyEnd(conn_.raw(), nullptr) != 1) return conn_.ErrorStatus(nullptr);
    PgResult end(PQgetResult(conn_.raw()));
    Status done = (!end || PQresultStatus(end.get()) != PGRES_COMMAND_OK)
                      ? conn_.ErrorStatus(end.get())
                      : Status::OK();
    while (PgResult(PQgetResult(conn_.raw()))) {
    }
    return done;
  }

 private:
  Status SendFiles(const std::vector<std::string>& names, std::set<std::string>* unchanged,
                   std::stop_token stop) {
    const std::set<std::string> key(changes_.key.begin(), changes_.key.end());
    const std::set<std::string> columns(names.begin(), names.end());
    int64_t n = 0;
    RowBatch batch;
    std::string line, scratch;
    for (const ChangeFile* f : changes_.files) {
      std::unique_ptr<ObjectReader> holder;
      LD_ASSIGN_OR_RETURN(
          std::unique_ptr<ParquetReader> reader,
          OpenCheckedIncrementFile(increment_, f->key, f->bytes, f->xxh64, &holder, f->sha256));
      LD_ASSIGN_OR_RETURN(std::vector<std::string> file_names,
                          ChangeFileColumns(reader->schema(), f->key, changes_.escaped_names));
      if (file_names != names) {
        return Status::Corruption(f->key +
                                  ": its columns differ from the table's other change files");
      }
      for (;;) {
        if (stop.stop_requested()) return Status::Cancelled("interrupted");
        LD_RETURN_IF_ERROR(reader->Next(kIncrementBatchRows, &batch));
        if (batch.empty()) break;
        line.clear();
        for (size_t row = 0; row < batch.num_rows(); ++row) {
          const std::string_view op = batch.column(0).BytesAt(row);
          if (op == "insert") ++stats_->inserted;
          else if (op == "update") ++stats_->updated;
          else if (op == "delete") ++stats_->deleted;
          else return Status::Corruption(fmt::format("{}: unknown _op \"{}\"", f->key, op));
          line += fmt::format("{}\t{}\t", batch.column(1).ValueAt<int64_t>(row), n++);
          AppendCopyEscaped(op, &line);
          line.push_back('\t');
          if (batch.column(4).IsNull(row)) {
            line.append("\\N");
          } else {
            const std::string_view text = batch.column(4).BytesAt(row);
            const auto j = nlohmann::json::parse(text, nullptr, false);
            if (!j.is_array()) return Status::Corruption(f->key + ": bad _unchanged value");
            for (const auto& name : j) {
              if (!name.is_string() || !columns.contains(name.get<std::string>()) ||
                  key.contains(name.get<std::string>()) || op != "update") {
                return Status::Corruption(f->key + ": bad _unchanged value");
              }
              unchanged->insert(name.get<std::string>());
            }
            AppendCopyEscaped(text, &line);
          }
          for (size_t c = kChangeMetaColumns; c < batch.num_columns(); ++c) {
            line.push_back('\t');
            AppendCopyText(batch.column(c), row, &line, &scratch);
          }
          line.push_back('\n');
        }
        if (PQputCopyData(conn_.raw(), line.data(), static_cast<int>(line.size())) != 1) {
          return conn_.ErrorStatus(nullptr);
        }
      }
    }
    return Status::OK();
  }

  PgConn& conn_;
  ObjectStore& increment_;
  const TableChangeSet& changes_;
  IncrementApplyStats* stats_;
};

// The table's column names, from its first change file.
Result<std::vector<std::string>> ColumnsOf(ObjectStore& increment, const ChangeFile& f,
                                           bool escaped) {
  std::unique_ptr<ObjectReader> holder;
  LD_ASSIGN_OR_RETURN(std::unique_ptr<ParquetReader> reader,
                      OpenCheckedIncrementFile(increment, f.key, f.bytes, f.xxh64, &holder,
                                               f.sha256));
  return ChangeFileColumns(reader->schema(), f.key, escaped);
}

// The steps of ApplyChangesSetBased, and what their statements share.
struct SetApply {
  PgConn& conn;
  int sequence;
  const TableChangeSet& changes;
  const std::vector<std::string>& names;  // the change files' columns (the source's names)
  std::vector<std::string> temp;          // their names in the temporary tables (Temp)
  std::vector<std::string> temp_key;      // the key's columns there
  std::string cols;                       // names, comma-separated
  std::string keys;                       // temp_key, comma-separated
};

constexpr std::string_view kOrder = "_lakedump_lsn, _lakedump_n";
constexpr std::string_view kOrderDesc = "_lakedump_lsn DESC, _lakedump_n DESC";

// 2. The last change of each key, with its first change's op and whether the target has
// the key now (a join, not a subquery per key: the target may lack an index on the key).
Status FinalChanges(const SetApply& a) {
  LD_RETURN_IF_ERROR(a.conn.Exec(fmt::format(
      "CREATE TEMP TABLE _lakedump_final AS SELECT l.*, f._lakedump_op AS _lakedump_first, "
      "false AS _lakedump_exists "
      "FROM (SELECT DISTINCT ON ({0}) * FROM {1} ORDER BY {0}, {2}) l "
      "JOIN (SELECT DISTINCT ON ({0}) {0}, _lakedump_op FROM {1} ORDER BY {0}, {3}) f ON {4}",
      a.keys, kChanges, kOrderDesc, kOrder, KeyMatch(a.temp_key, "f", a.temp_key, "l"))));
  return a.conn.Exec(fmt::format(
      "ANALYZE {0}; UPDATE {0} f SET _lakedump_exists = true FROM {1} t WHERE {2}", kFinal,
      a.changes.target, KeyMatch(a.changes.key, "t", a.temp_key, "f")));
}

// 3. Where the increment starts: as row by row, an insert must not collide and an update
// or delete must find its row.
Status CheckWhereItStarts(const SetApply& a) {
  LD_ASSIGN_OR_RETURN(
      PgResult check,
      a.conn.Query(fmt::format("SELECT count(*) FILTER (WHERE _lakedump_first = 'insert' AND "
                               "_lakedump_exists), count(*) FILTER (WHERE _lakedump_first <> "
                               "'insert' AND NOT _lakedump_exists) FROM {}",
                               kFinal)));
  if (PgValue(check.get(), 0, 0) != "0") {
    return NotWhereItStarts(a.sequence, a.changes.target,
                            fmt::format("{} inserted rows are in the target already",
                                        PgValue(check.get(), 0, 0)));
  }
  if (PgValue(check.get(), 0, 1) != "0") {
    return NotWhereItStarts(a.sequence, a.changes.target,
                            fmt::format("{} updated or deleted rows are not in the target",
                                        PgValue(check.get(), 0, 1)));
  }
  return Status::OK();
}

// The columns the last update of a key left unchanged: from the latest change that set
// them (an insert sets every column, so a key inserted in this increment always has one);
// those still unchanged keep the target's value.
Status FillUnchanged(const SetApply& a, const std::set<std::string>& unchanged) {
  for (const std::string& c : unchanged) {
    LD_RETURN_IF_ERROR(a.conn.ExecOne(
        fmt::format("UPDATE {0} f SET {1} = s.{1}, _lakedump_unchanged = f._lakedump_unchanged "
                    "- $1::text FROM (SELECT DISTINCT ON ({2}) {2}, {1} FROM {3} WHERE "
                    "_lakedump_op <> 'delete' AND NOT coalesce(_lakedump_unchanged ? $1::text, "
                    "false) ORDER BY {2}, {4}) s WHERE {5} AND f._lakedump_op <> 'delete' AND "
                    "f._lakedump_unchanged ? $1::text",
                    kFinal, QuoteIdent(Temp(c)), a.keys, kChanges, kOrderDesc,
                    KeyMatch(a.temp_key, "f", a.temp_key, "s")),
        {c}));
  }
  return Status::OK();
}

// 4. The target: rows whose last change is a delete go; the others are updated in place
// when the target has the key, inserted otherwise.
Status ApplyFinalChanges(const SetApply& a, const std::set<std::string>& unchanged) {
  const std::vector<std::string>& key = a.changes.key;
  const std::string& target = a.changes.target;
  LD_RETURN_IF_ERROR(a.conn.Exec(fmt::format(
      "DELETE FROM {0} t USING {1} f WHERE {2} AND f._lakedump_op = 'delete' AND "
      "f._lakedump_exists",
      target, kFinal, KeyMatch(key, "t", a.temp_key, "f"))));
  std::string set;
  for (size_t i = 0; i < a.names.size(); ++i) {
    const std::string& c = a.names[i];
    if (std::find(key.begin(), key.end(), c) != key.end()) continue;
    const std::string q = QuoteIdent(c);
    const std::string f = "f." + QuoteIdent(a.temp[i]);
    set += set.empty() ? "" : ", ";
    if (unchanged.contains(c)) {
      set += fmt::format("{0} = CASE WHEN f._lakedump_unchanged ? {1} THEN t.{0} ELSE {2} END",
                         q, QuoteLiteral(c), f);
    } else {
      set += fmt::format("{} = {}", q, f);
    }
  }
  if (!set.empty()) {
    LD_RETURN_IF_ERROR(a.conn.Exec(fmt::format(
        "UPDATE {0} t SET {1} FROM {2} f WHERE {3} AND f._lakedump_op <> 'delete' AND "
        "f._lakedump_exists",
        target, set, kFinal, KeyMatch(key, "t", a.temp_key, "f"))));
  }
  return a.conn.Exec(fmt::format(
      "INSERT INTO {0} ({1}) SELECT {2} FROM {3} f WHERE f._lakedump_op <> 'delete' AND NOT "
      "f._lakedump_exists",
      target, a.cols, Join(a.temp, "f.", ", "), kFinal));
}

}  // namespace

Result<bool> SetBasedApplyAllowed(PgConn& conn, const std::string& target,
                                  const std::vector<std::string>& key) {
  std::vector<std::string> sorted = key;
  std::sort(sorted.begin(), sorted.end());
  LD_ASSIGN_OR_RETURN(
      PgResult r,
      conn.Query(
          "SELECT c.relkind = 'r' "
          "AND pg_catalog.has_database_privilege(pg_catalog.current_database(), 'TEMP') "
          "AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_constraint k WHERE k.contype IN ('f', "
          "'x') AND (k.conrelid = c.oid OR k.confrelid = c.oid)) "
          "AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_trigger t WHERE t.tgrelid = c.oid AND "
          "NOT t.tgisinternal) "
          "AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_rewrite w WHERE w.ev_class = c.oid) "
          "AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_index i WHERE i.indrelid = c.oid AND "
          "i.indisunique AND (i.indpred IS NOT NULL OR i.indexprs IS NOT NULL OR "
          "(SELECT pg_catalog.jsonb_agg(a.attname::text ORDER BY a.attname) FROM "
          "unnest(i.indkey::int2[]) AS u(attnum) JOIN pg_catalog.pg_attribute a ON "
          "a.attrelid = c.oid AND a.attnum = u.attnum) IS DISTINCT FROM $2::jsonb)) "
          "FROM pg_catalog.pg_class c WHERE c.oid = pg_catalog.to_regclass($1)",
          {target, nlohmann::json(sorted).dump()}));
  return PQntuples(r.get()) == 1 && PgValue(r.get(), 0, 0) == "t";
}

Status ApplyChangesSetBased(PgConn& conn, ObjectStore& increment, int sequence,
                            const TableChangeSet& changes, IncrementApplyStats* stats,
                            std::stop_token stop) {
  if (changes.files.empty()) return Status::OK();
  if (changes.key.empty()) {
    return Status::Corruption(fmt::format("increment {}: changes of {} without its key", sequence,
                                          changes.table.QualifiedName()));
  }
  LD_ASSIGN_OR_RETURN(std::vector<std::string> names,
                      ColumnsOf(increment, *changes.files[0], changes.escaped_names));
  for (const std::string& k : changes.key) {
    if (std::find(names.begin(), names.end(), k) == names.end()) {
      return Status::Corruption(fmt::format("increment {}: key column {} not in the change file",
                                            sequence, k));
    }
  }
  const SetApply a{conn,      sequence,           changes,
                   names,     TempNames(names),   TempNames(changes.key),
                   Join(names, "", ", "), Join(TempNames(changes.key), "", ", ")};

  // 1. The changes, in a temporary table typed as the target's columns.
  std::string typed;
  for (size_t i = 0; i < names.size(); ++i) {
    typed += fmt::format(", t.{} AS {}", QuoteIdent(names[i]), QuoteIdent(a.temp[i]));
  }
  LD_RETURN_IF_ERROR(conn.Exec(fmt::format(
      "CREATE TEMP TABLE _lakedump_changes AS SELECT 0::int8 AS _lakedump_lsn, "
      "0::int8 AS _lakedump_n, ''::text AS _lakedump_op, NULL::jsonb AS _lakedump_unchanged"
      "{} FROM {} t WITH NO DATA",
      typed, changes.target)));
  std::set<std::string> unchanged;
  ChangeCopier copier(conn, increment, changes, stats);
  LD_RETURN_IF_ERROR(copier.Run(names, &unchanged, stop));
  LD_RETURN_IF_ERROR(conn.Exec(fmt::format("ANALYZE {}", kChanges)));
  // 2. and 3.
  LD_RETURN_IF_ERROR(FinalChanges(a));
  LD_RETURN_IF_ERROR(CheckWhereItStarts(a));
  LD_RETURN_IF_ERROR(FillUnchanged(a, unchanged));
  // 4.
  LD_RETURN_IF_ERROR(ApplyFinalChanges(a, unchanged));
  ++stats->set_based_tables;
  return conn.Exec(fmt::format("DROP TABLE {}, {}", kChanges, kFinal));
}

}  // namespace lakedump
