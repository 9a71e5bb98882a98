#include "source/postgres/pg_schema_capture.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "base/subprocess.h"
#include "base/temp_file.h"
#include "source/postgres/pg_archive_toc.h"

namespace lakedump {
namespace {

// The relations to leave out of the archive: tables not selected, their partitions
// (inheritance children), and every view or materialized view that reads one of them,
// directly or through other views (its rewrite rule depends on the relation), since
// restoring it would fail on the missing relation. The recursive term names `ex` once:
// children and dependent views are one LATERAL union.
constexpr const char* kExcludedSql = R"SQL(
WITH RECURSIVE sel(nsp, rel) AS (
  SELECT s->>0, s->>1 FROM pg_catalog.json_array_elements($1::pg_catalog.json) s
), ex(oid) AS (
  SELECT c.oid FROM pg_catalog.pg_class c
  JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
  WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition
    AND n.nspname NOT IN ('pg_catalog', 'information_schema')
    AND n.nspname !~ '^pg_toast' AND n.nspname !~ '^pg_temp_'
    AND NOT EXISTS (SELECT 1 FROM sel WHERE sel.nsp = n.nspname AND sel.rel = c.relname)
  UNION
  SELECT d.oid FROM ex CROSS JOIN LATERAL (
    SELECT i.inhrelid FROM pg_catalog.pg_inherits i WHERE i.inhparent = ex.oid
    UNION ALL
    SELECT r.ev_class FROM pg_catalog.pg_depend dep
    JOIN pg_catalog.pg_rewrite r ON r.oid = dep.objid
    WHERE dep.classid = 'pg_catalog.pg_rewrite'::pg_catalog.regclass
      AND dep.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass
      AND dep.refobjid = ex.oid AND r.ev_class <> ex.oid
  ) d(oid)
)
SELECT DISTINCT n.nspname, c.relname FROM ex
JOIN pg_catalog.pg_class c ON c.oid = ex.oid
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace ORDER BY 1, 2)SQL";

// Foreign keys of user tables with the table each references (an archive's TOC does not
// name it; load leaves out the keys whose referenced table it does not restore). Keys a
// partition inherits from its parent's (conparentid, PostgreSQL 11+) are the parent's.
constexpr const char* kForeignKeysSql = R"SQL(
SELECT n.nspname, t.relname, k.conname, rn.nspname, r.relname
FROM pg_catalog.pg_constraint k
JOIN pg_catalog.pg_class t ON t.oid = k.conrelid
JOIN pg_catalog.pg_namespace n ON n.oid = t.relnamespace
JOIN pg_catalog.pg_class r ON r.oid = k.confrelid
JOIN pg_catalog.pg_namespace rn ON rn.oid = r.relnamespace
WHERE k.contype = 'f' {own} AND n.nspname NOT IN ('pg_catalog', 'information_schema')
  AND n.nspname !~ '^pg_toast' AND n.nspname !~ '^pg_temp_'
ORDER BY 1, 2, 3)SQL";

// Schemas to dump: those holding a selected table, those holding no table at all, and those
// holding anything a selected table needs (pg_depend, transitively): the functions its
// defaults, generated columns, checks, indexes, triggers and policies call, the types and
// domains of its columns (with what their checks call), the sequences its defaults draw
// from, operators, collations. What belongs to a selected table (deptype 'a'/'i': defaults,
// constraints, indexes, triggers, rules, policies, owned sequences, its row type) is walked;
// what anything walked needs (deptype 'n') is walked too, except another table or view (a
// foreign key's target is the load's business, see `fks`), whose own needs are not the
// selection's. Also whether that is every schema.
constexpr const char* kSchemasSql = R"SQL(
WITH RECURSIVE sel(nsp, rel) AS (
  SELECT s->>0, s->>1 FROM pg_catalog.json_array_elements($1::pg_catalog.json) s
), tabs(oid) AS (
  SELECT c.oid FROM pg_catalog.pg_class c
  JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
  JOIN sel ON sel.nsp = n.nspname AND sel.rel = c.relname
  UNION
  SELECT i.inhrelid FROM tabs JOIN pg_catalog.pg_inherits i ON i.inhparent = tabs.oid
  JOIN pg_catalog.pg_class p ON p.oid = i.inhrelid AND p.relispartition
), need(classid, objid, walk) AS (
  SELECT 'pg_catalog.pg_class'::pg_catalog.regclass::pg_catalog.oid, oid, true FROM tabs
  UNION
  SELECT x.classid, x.objid, x.walk FROM need CROSS JOIN LATERAL (
    SELECT d.classid, d.objid, true FROM pg_catalog.pg_depend d
    WHERE d.refclassid = need.classid AND d.refobjid = need.objid AND d.deptype IN ('a', 'i')
    UNION ALL
    SELECT d.refclassid, d.refobjid,
           d.refclassid <> 'pg_catalog.pg_class'::pg_catalog.regclass OR EXISTS (
             SELECT 1 FROM pg_catalog.pg_class q WHERE q.oid = d.refobjid AND q.relkind = 'S')
    FROM pg_catalog.pg_depend d
    WHERE d.classid = need.classid AND d.objid = need.objid AND d.deptype = 'n'
  ) x(classid, objid, walk) WHERE need.walk
    AND need.classid <> 'pg_catalog.pg_namespace'::pg_catalog.regclass
), s AS (
  SELECT n.nspname,
         n.nspname IN (SELECT nsp FROM sel) OR NOT EXISTS (
           SELECT 1 FROM pg_catalog.pg_class c
           WHERE c.relnamespace = n.oid AND c.relkind IN ('r', 'p') AND NOT c.relispartition)
         OR n.oid IN (SELECT objid FROM need
                      WHERE classid = 'pg_catalog.pg_namespace'::pg_catalog.regclass) AS kept
  FROM pg_catalog.pg_namespace n
  WHERE n.nspname NOT IN ('pg_catalog', 'information_schema')
    AND n.nspname !~ '^pg_toast' AND n.nspname !~ '^pg_temp_'
)
SELECT nspname, every FROM (SELECT nspname, kept, bool_and(kept) OVER () AS every FROM s) x
WHERE kept ORDER BY 1)SQL";

// The extensions in the given schemas (pg_dump --schema dumps none unless named with
// --extension; the built-in ones, plpgsql, exist in every database).
constexpr const char* kExtensionsSql = R"SQL(
SELECT e.extname FROM pg_catalog.pg_extension e
JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace
WHERE e.oid >= 16384
  AND n.nspname IN (SELECT pg_catalog.json_array_elements_text($1::pg_catalog.json))
ORDER BY 1)SQL";

// Every sequence, with the table that owns it (serial: deptype 'a', identity: 'i').
constexpr const char* kSequencesSql = R"SQL(
SELECT n.nspname, c.relname, tn.nspname, t.relname, d.deptype FROM pg_catalog.pg_class c
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
LEFT JOIN pg_catalog.pg_depend d ON d.classid = 'pg_catalog.pg_class'::pg_catalog.regclass
  AND d.objid = c.oid AND d.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass
  AND d.deptype IN ('a', 'i')
LEFT JOIN pg_catalog.pg_class t ON t.oid = d.refobjid
LEFT JOIN pg_catalog.pg_namespace tn ON tn.oid = t.relnamespace
WHERE c.relkind = 'S' AND n.nspname NOT IN ('pg_catalog', 'information_schema')
  AND n.nspname !~ '^pg_toast' AND n.nspname !~ '^pg_temp_'
ORDER BY 1, 2)SQL";

// Every index of user tables (load maps an archive's INDEX entries to their tables
// with it). "columns" is null unless every key column is a plain column of a btree
// index without predicate: only those cross engines.
constexpr const char* kIndexesSql = R"SQL(
SELECT n.nspname, t.relname, i.relname, x.indisunique, x.indisprimary,
  CASE WHEN x.indexprs IS NULL AND x.indpred IS NULL AND am.amname = 'btree'
            AND x.{nkey} = x.indnatts
       THEN (SELECT pg_catalog.json_agg(a.attname ORDER BY k.ord)
             FROM pg_catalog.unnest(x.indkey::pg_catalog.int2[]) WITH ORDINALITY k(attnum, ord)
             JOIN pg_catalog.pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.attnum)
  END::pg_catalog.text,
  EXISTS (SELECT 1 FROM pg_catalog.pg_constraint k WHERE k.conindid = x.indexrelid
          AND k.conrelid = x.indrelid AND k.contype IN ('p', 'u', 'x'))
FROM pg_catalog.pg_index x
JOIN pg_catalog.pg_class i ON i.oid = x.indexrelid
JOIN pg_catalog.pg_class t ON t.oid = x.indrelid
JOIN pg_catalog.pg_namespace n ON n.oid = t.relnamespace
JOIN pg_catalog.pg_am am ON am.oid = i.relam
WHERE t.relkind IN ('r', 'p', 'm') AND n.nspname NOT IN ('pg_catalog', 'information_schema')
  AND n.nspname !~ '^pg_toast' AND n.nspname !~ '^pg_temp_'
ORDER BY 1, 2, 3)SQL";

// Partitions and their parents (load maps a partition's objects to the dumped parent).
constexpr const char* kPartitionsSql = R"SQL(
SELECT cn.nspname, c.relname, pn.nspname, p.relname
FROM pg_catalog.pg_inherits i
JOIN pg_catalog.pg_class c ON c.oid = i.inhrelid
JOIN pg_catalog.pg_namespace cn ON cn.oid = c.relnamespace
JOIN pg_catalog.pg_class p ON p.oid = i.inhparent
JOIN pg_catalog.pg_namespace pn ON pn.oid = p.relnamespace
WHERE c.relispartition ORDER BY 1, 2)SQL";

// Materialized views created WITH NO DATA (or never refreshed): load leaves them unpopulated
// (an archive of pg_dump --schema-only creates every one unpopulated; load refreshes the rest).
constexpr const char* kUnpopulatedSql = R"SQL(
SELECT n.nspname, c.relname FROM pg_catalog.pg_class c
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind = 'm' AND NOT c.relispopulated ORDER BY 1, 2)SQL";

// Views, materialized views and functions with the user tables they need, directly or
// through other views and functions: pg_depend of a view's rewrite rule, and of a function
// with a SQL-standard body (BEGIN ATOMIC / RETURN, PostgreSQL 14+: the tables and functions
// it uses; other bodies are text, with no dependencies). Load leaves out those needing a
// table it does not restore. Rules on tables are not views and are not followed.
constexpr const char* kDependentsSql = R"SQL(
WITH RECURSIVE edge(classid, objid, refclassid, refobjid) AS (
  SELECT 'pg_catalog.pg_class'::pg_catalog.regclass::pg_catalog.oid, r.ev_class, d.refclassid,
         d.refobjid
  FROM pg_catalog.pg_depend d
  JOIN pg_catalog.pg_rewrite r ON r.oid = d.objid
  JOIN pg_catalog.pg_class v ON v.oid = r.ev_class AND v.relkind IN ('v', 'm')
  WHERE d.classid = 'pg_catalog.pg_rewrite'::pg_catalog.regclass
    AND d.refclassid IN ('pg_catalog.pg_class'::pg_catalog.regclass,
                         'pg_catalog.pg_proc'::pg_catalog.regclass)
    AND NOT (d.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass AND d.refobjid = r.ev_class)
  UNION ALL
  SELECT d.classid, d.objid, d.refclassid, d.refobjid FROM pg_catalog.pg_depend d
  WHERE d.classid = 'pg_catalog.pg_proc'::pg_catalog.regclass AND d.deptype = 'n'
    AND d.refclassid IN ('pg_catalog.pg_class'::pg_catalog.regclass,
                         'pg_catalog.pg_proc'::pg_catalog.regclass)
), reach(classid, objid, refclassid, refobjid) AS (
  SELECT classid, objid, refclassid, refobjid FROM edge
  UNION
  SELECT r.classid, r.objid, e.refclassid, e.refobjid FROM reach r
  JOIN edge e ON e.classid = r.refclassid AND e.objid = r.refobjid
)
SELECT r.classid::pg_catalog.int8, r.objid::pg_catalog.int8, n.nspname, c.relname FROM reach r
JOIN pg_catalog.pg_class c ON c.oid = r.refobjid
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE r.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass AND c.relkind IN ('r', 'p')
  AND n.nspname NOT IN ('pg_catalog', 'information_schema')
  AND n.nspname !~ '^pg_toast' AND n.nspname !~ '^pg_temp_'
ORDER BY 1, 2, 3, 4)SQL";

// Functions and procedures whose body is in quotes (LANGUAGE sql or plpgsql without a
// SQL-standard body): pg_depend records nothing of what they use, so pg_restore creates them
// whatever is restored (check_function_bodies is off) and they fail only when called. Listed
// with the user tables whose name their body mentions as a word, case-insensitively (a hint,
// not a parse: a column or variable of that name counts too), for load's warning. One pass
// over the bodies' words, joined with the table names by hash.
constexpr const char* kMentionsSql = R"SQL(
WITH t AS (
  SELECT pg_catalog.lower(c.relname) AS word, n.nspname, c.relname FROM pg_catalog.pg_class c
  JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
  WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition
    AND n.nspname NOT IN ('pg_catalog', 'information_schema')
    AND n.nspname !~ '^pg_toast' AND n.nspname !~ '^pg_temp_'
), f AS (
  SELECT p.oid, pg_catalog.lower(p.prosrc) AS src FROM pg_catalog.pg_proc p
  JOIN pg_catalog.pg_language l ON l.oid = p.prolang
  JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
  WHERE l.lanname IN ('sql', 'plpgsql') {sqlbody}
    AND n.nspname NOT IN ('pg_catalog', 'information_schema')
    AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_depend e
                    WHERE e.classid = 'pg_catalog.pg_proc'::pg_catalog.regclass
                      AND e.objid = p.oid AND e.deptype = 'e')
)
SELECT DISTINCT f.oid::pg_catalog.int8, t.nspname, t.relname FROM f
CROSS JOIN LATERAL pg_catalog.regexp_split_to_table(f.src, '[^[:alnum:]_$]+') w(word)
JOIN t ON t.word = w.word ORDER BY 1, 2, 3)SQL";

// Sequences per query (each is one SELECT of the UNION ALL).
constexpr size_t kSequencesPerQuery = 500;

// A pg_dump pattern matching exactly this name: double-quoted, quotes doubled (inside
// quotes, pg_dump takes * ? . literally).
std::string PgPatternQuote(std::string_view name) {
  std::string out = "\"";
  for (char c : name) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string PgDumpPattern(const TableRef& t) {
  return PgPatternQuote(t.schema) + "." + PgPatternQuote(t.name);
}

std::string SelectedJson(const std::vector<TableRef>& selected) {
  nlohmann::json j = nlohmann::json::array();
  for (const TableRef& t : selected) j.push_back({t.schema, t.name});
  return j.dump();
}

// Rows ordered by object, as [{catalog, oid, tables: [{schema, name}]}]: with `catalog` 0
// the rows are (catalog, oid, schema, name), otherwise (oid, schema, name) of that catalog.
nlohmann::json GroupByObject(PGresult* rows, int64_t catalog) {
  nlohmann::json out = nlohmann::json::array();
  const int first = catalog == 0 ? 1 : 0;
  for (int i = 0; i < PQntuples(rows); ++i) {
    const int64_t cat = catalog != 0 ? catalog : std::strtoll(PQgetvalue(rows, i, 0), nullptr, 10);
    const int64_t oid = std::strtoll(PQgetvalue(rows, i, first), nullptr, 10);
    if (out.empty() || out.back()["catalog"] != cat || out.back()["oid"] != oid) {
      out.push_back({{"catalog", cat}, {"oid", oid}, {"tables", nlohmann::json::array()}});
    }
    out.back()["tables"].push_back({{"schema", std::string(PgValue(rows, i, first + 1))},
                                    {"name", std::string(PgValue(rows, i, first + 2))}});
  }
  return out;
}

// `pg_restore --list` of an archive (the pg_restore beside `pg_dump_path`).
Result<std::string> ListWithPgRestore(const std::string& pg_dump_path,
                                      const std::string& archive) {
  const std::filesystem::path restore =
      std::filesystem::path(pg_dump_path).parent_path() / "pg_restore";
  TempFile file;
  LD_RETURN_IF_ERROR(file.Write(archive));
  StringSink listing;
  LD_ASSIGN_OR_RETURN(
      SubprocessOutcome list,
      RunSubprocess({{pg_dump_path.find('/') == std::string::npos ? std::string("pg_restore")
                                                                  : restore.string(),
                      "--list", file.path()},
                     {},
                     ""},
                    &listing));
  if (list.exit_code != 0) {
    return Status::IOError(fmt::format("pg_restore --list of the schema archive failed: {}",
                                       FirstErrorLine(list.stderr_tail)));
  }
  return std::move(listing.mutable_str());
}

// The steps of QueryPgSchemaFacts.

// A selection of some tables: the tables left out, the schemas dumped (none: every one)
// and their extensions.
Status QuerySelectionScope(PgConn& conn, const SchemaSelection& selected,
                           PgSchemaFacts* facts) {
  const std::string sel = SelectedJson(selected.tables);
  LD_ASSIGN_OR_RETURN(PgResult ex, conn.Query(kExcludedSql, {sel}));
  for (int i = 0; i < PQntuples(ex.get()); ++i) {
    facts->excluded.push_back(
        TableRef{std::string(PgValue(ex.get(), i, 0)), std::string(PgValue(ex.get(), i, 1))});
  }
  LD_ASSIGN_OR_RETURN(PgResult schemas, conn.Query(kSchemasSql, {sel}));
  const bool every_schema = PQntuples(schemas.get()) == 0 || PgValue(schemas.get(), 0, 1) == "t";
  for (int i = 0; i < PQntuples(schemas.get()) && !every_schema; ++i) {
    facts->schemas.push_back(std::string(PgValue(schemas.get(), i, 0)));
  }
  if (!facts->schemas.empty()) {
    LD_ASSIGN_OR_RETURN(PgResult ext,
                        conn.Query(kExtensionsSql, {nlohmann::json(facts->schemas).dump()}));
    for (int i = 0; i < PQntuples(ext.get()); ++i) {
      facts->extensions.push_back(std::string(PgValue(ext.get(), i, 0)));
    }
  }
  return Status::OK();
}

Status QueryIndexes(PgConn& conn, PgSchemaFacts* facts) {
  const std::string nkey = conn.server_version() >= 110000 ? "indnkeyatts" : "indnatts";
  LD_ASSIGN_OR_RETURN(PgResult ix, conn.Query(fmt::format(fmt::runtime(kIndexesSql),
                                                          fmt::arg("nkey", nkey))));
  for (int i = 0; i < PQntuples(ix.get()); ++i) {
    nlohmann::json index = {{"schema", std::string(PgValue(ix.get(), i, 0))},
                            {"table", std::string(PgValue(ix.get(), i, 1))},
                            {"name", std::string(PgValue(ix.get(), i, 2))},
                            {"unique", PgValue(ix.get(), i, 3) == "t"},
                            {"primary", PgValue(ix.get(), i, 4) == "t"},
                            {"columns", nullptr},
                            {"constraint", PgValue(ix.get(), i, 6) == "t"}};
    if (!PQgetisnull(ix.get(), i, 5)) {
      index["columns"] = nlohmann::json::parse(std::string(PgValue(ix.get(), i, 5)), nullptr, false);
    }
    facts->indexes.push_back(std::move(index));
  }
  return Status::OK();
}

// The rows of `seqs` (kSequencesSql) whose sequences the archive holds: in a schema dumped,
// and not the identity sequence of a table left out (pg_dump leaves it out with its table;
// a serial's sequence stays, another table's default may draw from it). Reading the others
// would reach into objects the dump does not cover, and one dropped meanwhile by someone
// else would fail the read (and with it the dump).
std::vector<int> SequencesInArchive(const PGresult* seqs, const PgSchemaFacts& facts) {
  auto in_archive = [&](int row) {
    const std::string_view schema = PgValue(seqs, row, 0);
    if (!facts.schemas.empty() &&
        std::find(facts.schemas.begin(), facts.schemas.end(), schema) == facts.schemas.end()) {
      return false;
    }
    if (PQgetisnull(seqs, row, 3) || PgValue(seqs, row, 4) != "i") return true;
    const TableRef owner{std::string(PgValue(seqs, row, 2)), std::string(PgValue(seqs, row, 3))};
    return std::none_of(facts.excluded.begin(), facts.excluded.end(), [&](const TableRef& t) {
      return t.schema == owner.schema && t.name == owner.name;
    });
  };
  std::vector<int> kept;
  for (int i = 0; i < PQntuples(seqs); ++i) {
    if (in_archive(i)) kept.push_back(i);
  }
  return kept;
}

// The sequences the archive holds, with their values (kSequencesPerQuery per query).
Status QuerySequences(PgConn& conn, PgSchemaFacts* facts) {
  LD_ASSIGN_OR_RETURN(PgResult seqs, conn.Query(kSequencesSql));
  const std::vector<int> kept = SequencesInArchive(seqs.get(), *facts);
  const size_t n = kept.size();
  for (size_t first = 0; first < n; first += kSequencesPerQuery) {
    std::string sql;
    const size_t last = std::min(n, first + kSequencesPerQuery);
    for (size_t k = first; k < last; ++k) {
      const int i = kept[k];
      if (!sql.empty()) sql += " UNION ALL ";
      sql += fmt::format("SELECT {}, last_value::pg_catalog.text, is_called FROM {}", i,
                         QuoteQualified(PgValue(seqs.get(), i, 0), PgValue(seqs.get(), i, 1)));
    }
    auto queried = conn.Query(sql);
    if (!queried.ok()) return queried.status().WithContext("reading the sequences' values");
    PgResult values = std::move(queried).value();
    for (int r = 0; r < PQntuples(values.get()); ++r) {
      const int i = std::atoi(PQgetvalue(values.get(), r, 0));
      facts->sequences.push_back({{"schema", std::string(PgValue(seqs.get(), i, 0))},
                                  {"name", std::string(PgValue(seqs.get(), i, 1))},
                                  {"table_schema", std::string(PgValue(seqs.get(), i, 2))},
                                  {"table", std::string(PgValue(seqs.get(), i, 3))},
                                  {"last_value", std::strtoll(PQgetvalue(values.get(), r, 1),
                                                              nullptr, 10)},
                                  {"is_called", PgValue(values.get(), r, 2) == "t"}});
    }
  }
  return Status::OK();
}

}  // namespace

Result<PgSchemaFacts> QueryPgSchemaFacts(PgConn& conn, const SchemaSelection& selected,
                                         bool for_archive) {
  PgSchemaFacts facts;
  if (for_archive && !selected.every_table) {
    LD_RETURN_IF_ERROR(QuerySelectionScope(conn, selected, &facts));
  }
  // Exclusions outside the schemas dumped are moot (and would make the command long).
  if (!facts.schemas.empty()) {
    std::erase_if(facts.excluded, [&](const TableRef& t) {
      return std::find(facts.schemas.begin(), facts.schemas.end(), t.schema) ==
             facts.schemas.end();
    });
  }
  LD_RETURN_IF_ERROR(QueryIndexes(conn, &facts));
  LD_ASSIGN_OR_RETURN(PgResult parts, conn.Query(kPartitionsSql));
  for (int i = 0; i < PQntuples(parts.get()); ++i) {
    facts.partitions.push_back({{"schema", std::string(PgValue(parts.get(), i, 0))},
                                {"name", std::string(PgValue(parts.get(), i, 1))},
                                {"parent_schema", std::string(PgValue(parts.get(), i, 2))},
                                {"parent", std::string(PgValue(parts.get(), i, 3))}});
  }
  if (!for_archive) return facts;
  LD_ASSIGN_OR_RETURN(
      PgResult fks,
      conn.Query(fmt::format(fmt::runtime(kForeignKeysSql),
                             fmt::arg("own", conn.server_version() >= 110000
                                                 ? "AND k.conparentid = 0"
                                                 : ""))));
  for (int i = 0; i < PQntuples(fks.get()); ++i) {
    facts.fks.push_back({{"schema", std::string(PgValue(fks.get(), i, 0))},
                         {"table", std::string(PgValue(fks.get(), i, 1))},
                         {"name", std::string(PgValue(fks.get(), i, 2))},
                         {"ref_schema", std::string(PgValue(fks.get(), i, 3))},
                         {"ref_table", std::string(PgValue(fks.get(), i, 4))}});
  }
  LD_ASSIGN_OR_RETURN(PgResult deps, conn.Query(kDependentsSql));
  facts.dependents = GroupByObject(deps.get(), 0);
  LD_ASSIGN_OR_RETURN(
      PgResult mentions,
      conn.Query(fmt::format(fmt::runtime(kMentionsSql),
                             fmt::arg("sqlbody", conn.server_version() >= 140000
                                                     ? "AND p.prosqlbody IS NULL"
                                                     : ""))));
  facts.mentions = GroupByObject(mentions.get(), 1255);
  LD_ASSIGN_OR_RETURN(PgResult unpopulated, conn.Query(kUnpopulatedSql));
  for (int i = 0; i < PQntuples(unpopulated.get()); ++i) {
    facts.unpopulated_matviews.push_back({{"schema", std::string(PgValue(unpopulated.get(), i, 0))},
                                          {"name", std::string(PgValue(unpopulated.get(), i, 1))}});
  }
  LD_RETURN_IF_ERROR(QuerySequences(conn, &facts));
  return facts;
}

std::vector<PgTocEntry> ParsePgTocListing(std::string_view listing) {
  // pg_dump's object descriptions; the longest match wins ("TABLE DATA" over "TABLE").
  static const std::vector<std::string> kTypes = [] {
    std::vector<std::string> t = {
        "ACCESS METHOD", "ACL", "AGGREGATE", "BLOB", "BLOB DATA", "BLOBS", "CAST",
        "CHECK CONSTRAINT", "COLLATION", "COMMENT", "CONSTRAINT", "CONVERSION", "DATABASE",
        "DATABASE PROPERTIES", "DEFAULT", "DEFAULT ACL", "DOMAIN", "ENCODING", "EVENT TRIGGER",
        "EXTENSION", "FK CONSTRAINT", "FOREIGN DATA WRAPPER", "FOREIGN SERVER", "FOREIGN TABLE",
        "FUNCTION", "INDEX", "INDEX ATTACH", "LARGE OBJECT", "MATERIALIZED VIEW",
        "MATERIALIZED VIEW DATA", "OPERATOR", "OPERATOR CLASS", "OPERATOR FAMILY", "POLICY",
        "PROCEDURAL LANGUAGE", "PROCEDURE", "PUBLICATION", "PUBLICATION TABLE",
        "PUBLICATION TABLES IN SCHEMA", "ROW SECURITY", "RULE", "SCHEMA", "SEARCHPATH",
        "SECURITY LABEL", "SEQUENCE", "SEQUENCE OWNED BY", "SEQUENCE SET", "SERVER",
        "SHELL TYPE", "STATISTICS", "STDSTRINGS", "SUBSCRIPTION", "TABLE", "TABLE ATTACH",
        "TABLE DATA", "TEXT SEARCH CONFIGURATION", "TEXT SEARCH DICTIONARY",
        "TEXT SEARCH PARSER", "TEXT SEARCH TEMPLATE", "TRANSFORM", "TRIGGER", "TYPE",
        "USER MAPPING", "VIEW"};
    std::sort(t.begin(), t.end(),
              [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
    return t;
  }();
  std::vector<PgTocEntry> out;
  size_t pos = 0;
  while (pos < listing.size()) {
    size_t nl = listing.find('\n', pos);
    if (nl == std::string_view::npos) nl = listing.size();
    std::string_view line = listing.substr(pos, nl - pos);
    pos = nl + 1;
    if (line.empty() || line[0] == ';') continue;
    const size_t semi = line.find("; ");
    if (semi == std::string_view::npos) continue;
    std::string_view rest = line.substr(semi + 2);
    PgTocEntry e;
    for (uint32_t* oid : {&e.catalog_oid, &e.object_oid}) {
      const size_t sp = rest.find(' ');
      const std::string_view digits = rest.substr(0, sp);
      std::from_chars(digits.data(), digits.data() + digits.size(), *oid);
      rest = sp == std::string_view::npos ? std::string_view() : rest.substr(sp + 1);
    }
    e.line = std::string(line);
    for (const std::string& t : kTypes) {
      if (rest.starts_with(t) && rest.size() > t.size() && rest[t.size()] == ' ') {
        e.type = t;
        rest.remove_prefix(t.size() + 1);
        break;
      }
    }
    if (e.type.empty()) continue;
    const size_t sp = rest.find(' ');
    e.schema = std::string(rest.substr(0, sp));
    rest = sp == std::string_view::npos ? std::string_view() : rest.substr(sp + 1);
    const size_t owner = rest.rfind(' ');
    e.name = std::string(owner == std::string_view::npos ? rest : rest.substr(0, owner));
    out.push_back(std::move(e));
  }
  return out;
}

Status RunPgDumpSchema(const PgDumpRequest& request, SchemaCapture* capture) {
  LD_ASSIGN_OR_RETURN(
      PgTool pg_dump,
      FindPgTool("pg_dump", request.server_major, request.tool_dir,
                 "or dump with --schema-from lakedump (tables only: no views, functions, types, "
                 "sequences or secondary indexes)"));
  SubprocessSpec spec;
  spec.argv = {pg_dump.path, "--schema-only", "--format=custom", "--no-password",
               "--snapshot=" + request.snapshot_id, "--dbname=" + request.connection.conninfo};
  if (request.lock_timeout_ms >= 0) {
    spec.argv.push_back("--lock-wait-timeout=" +
                        std::to_string(std::max(1, request.lock_timeout_ms)));
  }
  for (const std::string& schema : request.schemas) {
    spec.argv.push_back("--schema=" + PgPatternQuote(schema));
  }
  for (const std::string& extension : request.extensions) {
    spec.argv.push_back("--extension=" + PgPatternQuote(extension));
  }
  for (const TableRef& t : request.excluded) spec.argv.push_back("--exclude-table=" + PgDumpPattern(t));
  spec.env = request.connection.env;
  StringSink archive;
  LD_ASSIGN_OR_RETURN(SubprocessOutcome run, RunSubprocess(spec, &archive));
  if (run.exit_code != 0) {
    return Status::IOError(fmt::format("pg_dump --schema-only failed (exit {}): {}", run.exit_code,
                                       FirstErrorLine(run.stderr_tail)));
  }
  // The table of contents, for `ls --ddl`, load's selection and its messages: read from the
  // archive in process (no pg_restore to start, issue 11's cost); an archive the reader does
  // not take (a newer pg_dump's format version) is listed by pg_restore --list instead.
  std::string version = pg_dump.version;
  nlohmann::json objects = nlohmann::json::array();
  if (auto toc = ReadPgArchiveToc(archive.str()); toc.ok()) {
    // The entries' exact names (a listing line joins them with spaces).
    for (const PgArchiveTocEntry& e : toc->entries) {
      if (!PgArchiveListed(e)) continue;
      objects.push_back({{"type", e.desc}, {"schema", e.has_schema ? e.schema : "-"},
                         {"name", e.tag}});
    }
    if (std::string v = PgVersionNumber(toc->pg_dump_version); !v.empty()) version = std::move(v);
  } else {
    LD_ASSIGN_OR_RETURN(const std::string listing, ListWithPgRestore(pg_dump.path, archive.str()));
    for (const PgTocEntry& e : ParsePgTocListing(listing)) {
      objects.push_back({{"type", e.type}, {"schema", e.schema}, {"name", e.name}});
    }
  }
  capture->info["archive"] = {{"format", "pg_dump custom"},
                              {"pg_dump_version", version}};
  capture->info["objects"] = std::move(objects);
  capture->archive = std::move(archive.mutable_str());
  return Status::OK();
}

}  // namespace lakedump
