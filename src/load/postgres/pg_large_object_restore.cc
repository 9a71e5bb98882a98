#include "load/postgres/pg_large_object_restore.h"

#include <fmt/format.h>

#include <cstdlib>
#include <map>

#include <nlohmann/json.hpp>

#include "load/postgres/pg_archive_roles.h"

namespace lakedump {
namespace {

std::string MappedLargeObjectRole(const std::string& role, const RestoreRoles& roles) {
  for (const auto& [from, to] : roles.role_map) {
    if (from == role) return to;
  }
  return role;
}

class PgLargeObjectSink final : public LargeObjectSink {
 public:
  PgLargeObjectSink(PgConnectionPool* pool, std::unique_ptr<PgConn> conn, LargeObjectMeta object,
                    RestoreRoles roles)
      : pool_(pool), conn_(std::move(conn)), object_(std::move(object)), roles_(std::move(roles)) {}

  ~PgLargeObjectSink() override {
    if (!conn_) return;
    if (PQtransactionStatus(conn_->raw()) != PQTRANS_IDLE) conn_->Exec("ROLLBACK").IgnoreError();
    pool_->Release(std::move(conn_));
  }

  Status Append(std::string_view bytes) override {
    if (bytes.empty()) return Status::OK();
    const std::string oid = std::to_string(object_.oid);
    const std::string offset = std::to_string(offset_);
    const char* values[3] = {oid.c_str(), offset.c_str(), bytes.data()};
    const int lengths[3] = {0, 0, static_cast<int>(bytes.size())};
    const int formats[3] = {0, 0, 1};  // the bytes as they are (binary bytea)
    PgResult r(PQexecParams(conn_->raw(),
                            "SELECT pg_catalog.lo_put($1::pg_catalog.oid, $2::pg_catalog.int8, "
                            "$3::pg_catalog.bytea)",
                            3, nullptr, values, lengths, formats, 0));
    if (!r || PQresultStatus(r.get()) != PGRES_TUPLES_OK) {
      return conn_->ErrorStatus(r.get()).WithContext(
          fmt::format("writing large object {}", object_.oid));
    }
    offset_ += bytes.size();
    return Status::OK();
  }

  Status Commit() override {
    for (const std::string& sql : PgLargeObjectMetaStatements(object_, roles_)) {
      LD_RETURN_IF_ERROR(
          conn_->ExecOne(sql).WithContext(fmt::format("large object {}", object_.oid)));
    }
    return conn_->Exec("COMMIT").WithContext(fmt::format("large object {}", object_.oid));
  }

 private:
  PgConnectionPool* pool_;
  std::unique_ptr<PgConn> conn_;
  LargeObjectMeta object_;
  RestoreRoles roles_;
  uint64_t offset_ = 0;
};

// The roles restoring `objects` needs, after --role-map: owners unless --no-owner, grantees
// (not PUBLIC) unless --no-privileges.
std::map<std::string, PgRoleUses> LargeObjectRolesNeeded(
    const std::vector<LargeObjectMeta>& objects, const RestoreRoles& roles) {
  std::map<std::string, PgRoleUses> needed;
  for (const LargeObjectMeta& m : objects) {
    if (!roles.no_owner) needed[MappedLargeObjectRole(m.owner, roles)].insert(PgRoleUse::kOwner);
    if (roles.no_privileges || !m.has_acl) continue;
    for (const LargeObjectGrant& g : m.acl) {
      if (!g.grantee.empty()) {
        needed[MappedLargeObjectRole(g.grantee, roles)].insert(PgRoleUse::kGrant);
      }
    }
  }
  return needed;
}

}  // namespace

Status PgCheckLargeObjects(PgConn& conn, const std::vector<LargeObjectMeta>& objects,
                           const RestoreRoles& roles) {
  nlohmann::json oids = nlohmann::json::array();
  for (const LargeObjectMeta& m : objects) oids.push_back(std::to_string(m.oid));
  LD_ASSIGN_OR_RETURN(
      PgResult present,
      conn.Query("SELECT m.oid, count(*) OVER () FROM pg_catalog.pg_largeobject_metadata m "
                 "WHERE m.oid IN (SELECT o::pg_catalog.oid FROM "
                 "pg_catalog.json_array_elements_text($1::pg_catalog.json) o) "
                 "ORDER BY m.oid LIMIT 1",
                 {oids.dump()}));
  if (PQntuples(present.get()) > 0) {
    const long more = std::atol(PQgetvalue(present.get(), 0, 1)) - 1;
    return Status::InvalidArgument(fmt::format(
        "large object {} already exists in the target{}; nothing was restored: load into a "
        "database without them (lo_unlink them first), or with --schema-only or -t",
        PgValue(present.get(), 0, 0),
        more > 0 ? fmt::format(" (and {} more of the dump's)", more) : std::string()));
  }
  const std::map<std::string, PgRoleUses> needed = LargeObjectRolesNeeded(objects, roles);
  LD_ASSIGN_OR_RETURN(const auto missing, PgMissingRoles(conn, needed));
  if (!missing.empty()) {
    return Status::InvalidArgument(MissingRolesLine(missing) + " (for the dump's large objects)");
  }
  return Status::OK();
}

std::vector<std::string> PgLargeObjectMetaStatements(const LargeObjectMeta& m,
                                                     const RestoreRoles& roles) {
  std::vector<std::string> out;
  const std::string lo = fmt::format("LARGE OBJECT {}", m.oid);
  const std::string owner = MappedLargeObjectRole(m.owner, roles);
  if (!roles.no_owner) out.push_back(fmt::format("ALTER {} OWNER TO {}", lo, QuoteIdent(owner)));
  if (!roles.no_privileges && m.has_acl) {
    // Exactly the recorded privileges: the owner's defaults go first (pg_dump does the same).
    out.push_back(fmt::format("REVOKE ALL ON {} FROM {}", lo,
                              roles.no_owner ? std::string("CURRENT_USER") : QuoteIdent(owner)));
    for (const LargeObjectGrant& g : m.acl) {
      const std::string grantee =
          g.grantee.empty() ? "PUBLIC" : QuoteIdent(MappedLargeObjectRole(g.grantee, roles));
      out.push_back(fmt::format("GRANT {} ON {} TO {}{}", g.privilege, lo, grantee,
                                g.grantable && !g.grantee.empty() ? " WITH GRANT OPTION" : ""));
    }
  }
  if (m.has_comment) out.push_back(fmt::format("COMMENT ON {} IS {}", lo, QuoteLiteral(m.comment)));
  return out;
}

Result<std::unique_ptr<LargeObjectSink>> PgOpenLargeObject(PgConnectionPool* pool,
                                                           const LargeObjectMeta& object,
                                                           const RestoreRoles& roles) {
  LD_ASSIGN_OR_RETURN(std::unique_ptr<PgConn> conn, pool->Acquire());
  std::string begin = "BEGIN";
  if (!roles.role.empty()) begin += "; SET LOCAL ROLE " + QuoteIdent(roles.role);
  PgConn& c = *conn;
  auto fail = [&](Status s) {
    if (PQtransactionStatus(c.raw()) != PQTRANS_IDLE) c.Exec("ROLLBACK").IgnoreError();
    pool->Release(std::move(conn));
    return s.WithContext(fmt::format("large object {}", object.oid));
  };
  if (Status s = c.Exec(begin); !s.ok()) return fail(s);
  if (Status s = c.Query("SELECT pg_catalog.lo_create($1::pg_catalog.oid)",
                         {std::to_string(object.oid)})
                     .status();
      !s.ok()) {
    return fail(s);
  }
  return std::unique_ptr<LargeObjectSink>(
      new PgLargeObjectSink(pool, std::move(conn), object, roles));
}

}  // namespace lakedump
