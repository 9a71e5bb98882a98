// Restoring a dump's large objects into PostgreSQL (docs/dump-format.md, "Large objects"),
// as pg_restore does: each with its own OID (lo_create(oid), so that oid columns still name
// it), its bytes written with lo_put a chunk at a time, then ALTER LARGE OBJECT ... OWNER TO
// (unless --no-owner; --role-map applied), its grants (unless --no-privileges: REVOKE ALL
// from the owner, then a GRANT each) and COMMENT, all in one transaction of its own. Every
// statement is built from the entry's structured fields (identifiers and text quoted), never
// from SQL of the dump.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "load/large_object_load.h"
#include "load/restore_filter.h"
#include "source/large_object_source.h"
#include "source/postgres/pg_connection_pool.h"

namespace lakedump {

// Before anything is created: InvalidArgument naming the first OID of `objects` that the
// target has already (and how many more), or the roles they need that it lacks (the same
// line as the archive's missing roles).
Status PgCheckLargeObjects(PgConn& conn, const std::vector<LargeObjectMeta>& objects,
                           const RestoreRoles& roles);

// The statements after the bytes: owner, grants, comment. Exposed for tests.
std::vector<std::string> PgLargeObjectMetaStatements(const LargeObjectMeta& object,
                                                     const RestoreRoles& roles);

// BEGIN (SET LOCAL ROLE with --role), lo_create(oid); the sink's Append is lo_put at the next
// offset, Commit the statements above and COMMIT. The connection goes back to `pool` (after a
// ROLLBACK when not committed).
Result<std::unique_ptr<LargeObjectSink>> PgOpenLargeObject(PgConnectionPool* pool,
                                                           const LargeObjectMeta& object,
                                                           const RestoreRoles& roles);

}  // namespace lakedump
