#include "source/postgres/pg_large_objects.h"

#include <fmt/format.h>

#include <cstdlib>

#include <nlohmann/json.hpp>

#include "source/postgres/pg_conn.h"

namespace lakedump {
namespace {

// Each large object with its owner, its privileges in the order of its ACL (aclexplode: grantee
// 0 is PUBLIC, ""; restored in this order, the ACL comes back the same), and its comment.
constexpr const char* kPgLargeObjectsSql = R"(
SELECT m.oid, pg_catalog.pg_get_userbyid(m.lomowner), m.lomacl IS NOT NULL,
       COALESCE((SELECT pg_catalog.json_agg(pg_catalog.json_build_array(
                          CASE WHEN a.grantee = 0 THEN ''
                               ELSE pg_catalog.pg_get_userbyid(a.grantee) END,
                          a.privilege_type, a.is_grantable) ORDER BY a.n)
                 FROM pg_catalog.aclexplode(m.lomacl)
                      WITH ORDINALITY a(grantor, grantee, privilege_type, is_grantable, n)),
                '[]'),
       d.description IS NOT NULL, d.description
FROM pg_catalog.pg_largeobject_metadata m
LEFT JOIN pg_catalog.pg_description d
  ON d.classoid = 'pg_catalog.pg_largeobject'::pg_catalog.regclass AND d.objoid = m.oid
 AND d.objsubid = 0
ORDER BY m.oid)";

class PgLargeObjectSource final : public LargeObjectSource {
 public:
  PgLargeObjectSource(std::unique_ptr<PgConn> conn, std::vector<LargeObjectMeta> objects)
      : conn_(std::move(conn)), objects_(std::move(objects)) {}

  const std::vector<LargeObjectMeta>& objects() const override { return objects_; }

  Status Read(uint32_t oid, size_t chunk_bytes, ByteSink* sink) override {
    const std::string oid_text = std::to_string(oid);
    for (uint64_t offset = 0;; offset += chunk_bytes) {
      const std::string offset_text = std::to_string(offset);
      const std::string length_text = std::to_string(chunk_bytes);
      const char* values[3] = {oid_text.c_str(), offset_text.c_str(), length_text.c_str()};
      // Binary result: the chunk's bytes as they are (no hex text twice their size).
      PgResult r(PQexecParams(conn_->raw(),
                              "SELECT pg_catalog.lo_get($1::pg_catalog.oid, $2::pg_catalog.int8, "
                              "$3::pg_catalog.int4)",
                              3, nullptr, values, nullptr, nullptr, /*resultFormat=*/1));
      if (!r || PQresultStatus(r.get()) != PGRES_TUPLES_OK) {
        return conn_->ErrorStatus(r.get()).WithContext(
            fmt::format("reading large object {}", oid));
      }
      const int n = PQgetlength(r.get(), 0, 0);
      if (n > 0) LD_RETURN_IF_ERROR(sink->Append(std::string_view(PQgetvalue(r.get(), 0, 0),
                                                                  static_cast<size_t>(n))));
      if (static_cast<size_t>(n) < chunk_bytes) return Status::OK();
    }
  }

 private:
  std::unique_ptr<PgConn> conn_;
  std::vector<LargeObjectMeta> objects_;
};

Result<std::vector<LargeObjectMeta>> ListPgLargeObjects(PgConn& conn) {
  LD_ASSIGN_OR_RETURN(PgResult r, conn.Query(kPgLargeObjectsSql));
  std::vector<LargeObjectMeta> out;
  for (int i = 0; i < PQntuples(r.get()); ++i) {
    LargeObjectMeta m;
    m.oid = static_cast<uint32_t>(std::strtoul(PQgetvalue(r.get(), i, 0), nullptr, 10));
    m.owner = std::string(PgValue(r.get(), i, 1));
    m.has_acl = PgValue(r.get(), i, 2) == "t";
    const nlohmann::json grants = nlohmann::json::parse(PgValue(r.get(), i, 3), nullptr, false);
    if (m.has_acl && grants.is_array()) {
      for (const nlohmann::json& g : grants) {
        m.acl.push_back({g[0].get<std::string>(), g[1].get<std::string>(), g[2].get<bool>()});
      }
    }
    m.has_comment = PgValue(r.get(), i, 4) == "t";
    m.comment = std::string(PgValue(r.get(), i, 5));
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace

Result<std::unique_ptr<LargeObjectSource>> OpenPgLargeObjects(const std::string& conninfo,
                                                              int connect_timeout_s,
                                                              const std::string& snapshot_id) {
  auto conn = PgConn::Connect(conninfo, connect_timeout_s);
  if (!conn.ok()) return conn.status().WithContext("connecting to read the large objects");
  LD_RETURN_IF_ERROR(
      (*conn)
          ->Exec("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY; SET TRANSACTION SNAPSHOT " +
                 QuoteLiteral(snapshot_id))
          .WithContext("importing the dump's snapshot to read the large objects"));
  auto objects = ListPgLargeObjects(**conn);
  if (!objects.ok()) return objects.status().WithContext("listing the large objects");
  if (objects->empty()) return std::unique_ptr<LargeObjectSource>();
  return std::unique_ptr<LargeObjectSource>(
      new PgLargeObjectSource(std::move(*conn), std::move(*objects)));
}

}  // namespace lakedump
