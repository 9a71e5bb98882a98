#include "dump/incremental/pg_incremental_tables.h"

#include <fmt/format.h>

#include <map>

#include "dump/planner.h"

namespace lakedump {

std::string ExactTablePattern(const TableRef& ref) {
  std::string out;
  for (char c : ref.QualifiedName()) {
    if (c == '*' || c == '?' || c == '[' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

Status CheckLogicalWal(PgConn& conn) {
  LD_ASSIGN_OR_RETURN(PgResult r, conn.Query("SELECT pg_catalog.current_setting('wal_level')"));
  const std::string level(PgValue(r.get(), 0, 0));
  if (level == "logical") return Status::OK();
  return Status::InvalidArgument(fmt::format(
      "--incremental needs logical decoding, but the server runs with wal_level={}: set "
      "wal_level = logical (and max_replication_slots, max_wal_senders >= 1) in "
      "postgresql.conf or with ALTER SYSTEM, then restart PostgreSQL",
      level));
}

Result<PgDatabaseIdentity> QueryDatabaseIdentity(PgConn& conn) {
  LD_ASSIGN_OR_RETURN(
      PgResult r,
      conn.Query("SELECT d.oid::text, pg_catalog.current_database() FROM pg_catalog.pg_database d "
                 "WHERE d.datname = pg_catalog.current_database()"));
  PgDatabaseIdentity id;
  id.oid = std::string(PgValue(r.get(), 0, 0));
  id.name = std::string(PgValue(r.get(), 0, 1));
  if (auto s = conn.Query("SELECT system_identifier::text FROM pg_catalog.pg_control_system()");
      s.ok()) {
    id.system_identifier = std::string(PgValue(s->get(), 0, 0));
  }
  return id;
}

Result<std::vector<TableRef>> ListSelectedTables(PgConn& conn,
                                                 const std::vector<std::string>& include,
                                                 const std::vector<std::string>& exclude) {
  auto any = [](const std::vector<std::string>& patterns, const TableRef& t) {
    for (const std::string& p : patterns) {
      if (TablePatternMatches(p, t)) return true;
    }
    return false;
  };
  LD_ASSIGN_OR_RETURN(std::vector<TableInfo> all, PgCatalog::ListTables(conn, false));
  std::vector<TableRef> refs;
  for (const TableInfo& t : all) {
    if ((include.empty() || any(include, t.ref)) && !any(exclude, t.ref)) refs.push_back(t.ref);
  }
  return refs;
}

namespace {

// A PostgreSQL array literal of OIDs: {1,2,3}.
std::string OidArray(const std::vector<uint32_t>& oids) {
  std::string array = "{";
  for (size_t i = 0; i < oids.size(); ++i) array += (i ? "," : "") + std::to_string(oids[i]);
  return array + "}";
}

// A PostgreSQL array literal of the tables' quoted qualified names: {"\"s\".\"t\""}.
std::string QualifiedNameArray(const std::vector<TableRef>& refs) {
  std::string names = "{";
  for (size_t i = 0; i < refs.size(); ++i) {
    std::string q = QuoteQualified(refs[i].schema, refs[i].name);
    std::string elem = "\"";
    for (char c : q) {
      if (c == '"' || c == '\\') elem += '\\';
      elem += c;
    }
    names += (i ? "," : "") + elem + "\"";
  }
  return names + "}";
}

// The tables of `refs` that still exist (a table dropped since is left out, not an error).
Result<std::vector<TableRef>> ExistingTables(PgConn& conn, const std::vector<TableRef>& refs) {
  LD_ASSIGN_OR_RETURN(
      PgResult ex,
      conn.Query("SELECT o FROM unnest($1::text[]) WITH ORDINALITY AS n(name, o) "
                 "WHERE pg_catalog.to_regclass(n.name) IS NOT NULL ORDER BY o",
                 {QualifiedNameArray(refs)}));
  std::vector<TableRef> present;
  for (int i = 0; i < PQntuples(ex.get()); ++i) {
    present.push_back(refs[std::stoul(std::string(PgValue(ex.get(), i, 0))) - 1]);
  }
  return present;
}

// Per table of `described`: oid, replica identity, its key columns, the columns as pgoutput
// publishes them (no dropped or generated ones), and whether it has generated columns.
Result<PgResult> QueryReplicaIdentities(PgConn& conn,
                                        const std::vector<PgTablePlan>& described) {
  std::vector<uint32_t> oids;
  for (const PgTablePlan& plan : described) oids.push_back(plan.oid);
  return conn.Query(
      "SELECT c.oid::text, c.relreplident::text, "
      "coalesce((SELECT pg_catalog.json_agg(a.attname ORDER BY k.ord) FROM "
      "pg_catalog.pg_index i, unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord), "
      "pg_catalog.pg_attribute a WHERE i.indrelid = c.oid AND a.attrelid = c.oid AND "
      "a.attnum = k.attnum AND ((c.relreplident = 'd' AND i.indisprimary) OR "
      "(c.relreplident = 'i' AND i.indisreplident))), '[]')::text, "
      "coalesce((SELECT pg_catalog.json_agg(pg_catalog.json_build_object('name', a.attname, "
      "'type_oid', a.atttypid::int8, 'typmod', a.atttypmod) ORDER BY a.attnum) FROM "
      "pg_catalog.pg_attribute a WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT "
      "a.attisdropped), '[]')::text, "
      "EXISTS (SELECT 1 FROM pg_catalog.pg_attribute a WHERE a.attrelid = c.oid AND "
      "a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated <> '') "
      "FROM pg_catalog.pg_class c WHERE c.oid = ANY($1::oid[])",
      {OidArray(oids)});
}

// Row `row` of QueryReplicaIdentities' answer: t's replica identity, key and columns.
Status ParseReplicaIdentity(const PgResult& r, int row, const PgTablePlan& plan,
                            IncrementalTable* t) {
  t->replica_identity = PgValue(r.get(), row, 1).empty() ? 'd' : PgValue(r.get(), row, 1)[0];
  const auto key = nlohmann::json::parse(PgValue(r.get(), row, 2), nullptr, false);
  const auto cols = nlohmann::json::parse(PgValue(r.get(), row, 3), nullptr, false);
  if (key.is_discarded() || cols.is_discarded()) {
    return Status::Internal("unexpected catalog answer describing " + plan.ref.QualifiedName());
  }
  try {
    t->key = key.get<std::vector<std::string>>();
    for (const auto& c : cols) {
      t->columns.push_back(IncrementalColumn{c.at("name").get<std::string>(),
                                             c.at("type_oid").get<uint32_t>(),
                                             c.at("typmod").get<int32_t>()});
    }
  } catch (const std::exception& e) {
    return Status::Internal(fmt::format("unexpected catalog answer describing {}: {}",
                                        plan.ref.QualifiedName(), e.what()));
  }
  return Status::OK();
}

// kChanges when an increment can follow t by its changes; kRedump with the reason otherwise.
// Columns read through their text form (interval, inet...) are followed: the change
// capture has the server print their values as the dump does (PgTextFormConverter). So
// are arrays read as text for their values' shapes: the form the dump gave them is recorded
// (text_arrays) and kept by the increments (PgTypeOptions::known_array_text).
void DecideMode(const PgTablePlan& plan, bool generated, IncrementalTable* t) {
  t->mode = IncrementalMode::kRedump;
  if (plan.relkind != 'r' && plan.relkind != 'p') {
    t->reason = "not a table";
  } else if (t->replica_identity == 'f') {
    t->reason = "replica identity full without a key lakedump applies by";
  } else if (t->replica_identity == 'n' || t->key.empty()) {
    t->reason = "no primary key or replica identity index";
  } else if (generated || t->columns.size() != plan.definition.schema.num_columns()) {
    t->reason = "generated columns";
  } else {
    t->mode = IncrementalMode::kChanges;
    t->text_arrays = plan.shape_text_columns;
  }
  if (t->mode == IncrementalMode::kRedump) t->key.clear();
}

}  // namespace

Result<std::vector<IncrementalTable>> DescribeIncrementalTables(
    PgConn& conn, const std::vector<TableRef>& refs, const PgTypeOptions& types,
    std::vector<PgTablePlan>* plans) {
  LD_ASSIGN_OR_RETURN(std::vector<TableRef> present, ExistingTables(conn, refs));
  std::vector<IncrementalTable> out;
  if (present.empty()) return out;
  PgCatalog catalog;
  LD_ASSIGN_OR_RETURN(std::vector<PgTablePlan> described,
                      catalog.DescribeMany(conn, present, types));
  LD_ASSIGN_OR_RETURN(PgResult r, QueryReplicaIdentities(conn, described));
  std::map<uint32_t, int> row_of;
  for (int i = 0; i < PQntuples(r.get()); ++i) {
    row_of[static_cast<uint32_t>(std::stoul(std::string(PgValue(r.get(), i, 0))))] = i;
  }
  for (PgTablePlan& plan : described) {
    auto it = row_of.find(plan.oid);
    if (it == row_of.end()) continue;  // dropped between the two queries
    IncrementalTable t;
    t.ref = plan.ref;
    t.oid = plan.oid;
    LD_RETURN_IF_ERROR(ParseReplicaIdentity(r, it->second, plan, &t));
    DecideMode(plan, /*generated=*/PgValue(r.get(), it->second, 4) == "t", &t);
    out.push_back(std::move(t));
    if (plans) plans->push_back(std::move(plan));
  }
  return out;
}

Status DropIncrementalPublication(PgConn& conn, const std::string& name) {
  return conn.Exec("DROP PUBLICATION IF EXISTS " + QuoteIdent(name));
}

Status RemoveFromPublication(PgConn& conn, const std::string& name,
                             const std::vector<uint32_t>& oids) {
  if (oids.empty()) return Status::OK();
  const std::string array = OidArray(oids);
  LD_ASSIGN_OR_RETURN(
      PgResult r,
      conn.Query("SELECT pg_catalog.quote_ident(n.nspname) || '.' || "
                 "pg_catalog.quote_ident(c.relname) FROM pg_catalog.pg_publication_rel pr "
                 "JOIN pg_catalog.pg_publication p ON p.oid = pr.prpubid "
                 "JOIN pg_catalog.pg_class c ON c.oid = pr.prrelid "
                 "JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
                 "WHERE p.pubname = $1 AND pr.prrelid = ANY($2::oid[])",
                 {name, array}));
  std::string list;
  for (int i = 0; i < PQntuples(r.get()); ++i) {
    list += (list.empty() ? "" : ", ") + std::string(PgValue(r.get(), i, 0));
  }
  if (list.empty()) return Status::OK();
  return conn.ExecOne("ALTER PUBLICATION " + QuoteIdent(name) + " DROP TABLE " + list);
}

Status CreateIncrementalPublication(PgConn& conn, const std::string& name,
                                    const std::vector<IncrementalTable>& tables,
                                    const std::string& comment) {
  std::string list;
  for (const IncrementalTable& t : tables) {
    if (t.mode != IncrementalMode::kChanges) continue;
    if (!list.empty()) list += ", ";
    list += QuoteQualified(t.ref.schema, t.ref.name);
  }
  // One simple query: one implicit transaction, the publication never without its comment.
  std::string sql = "CREATE PUBLICATION " + QuoteIdent(name);
  if (!list.empty()) {
    sql += " FOR TABLE " + list;
    if (conn.server_version() >= 130000) sql += " WITH (publish_via_partition_root = true)";
  }
  sql += "; COMMENT ON PUBLICATION " + QuoteIdent(name) + " IS " + QuoteLiteral(comment);
  return conn.Exec(sql).WithContext("creating publication " + name);
}

}  // namespace lakedump
