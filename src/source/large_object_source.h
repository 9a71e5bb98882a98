// The large objects of a source (PostgreSQL's pg_largeobject), at the dump's snapshot: what
// each one is (OID, owner, grants, comment) and a stream of its bytes in bounded chunks.
// A LargeObjectSource is used by one thread at a time; it holds its own session in the
// snapshot, so it may outlive the Database that made it.
// LargeObjectProvider is the capability of a Database that has large objects (PostgreSQL):
// the dump finds it with dynamic_cast, so that sources without them implement nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/byte_sink.h"
#include "base/status.h"

namespace lakedump {

// One privilege on a large object (PostgreSQL's aclexplode of lomacl).
struct LargeObjectGrant {
  std::string grantee;    // a role name; "" = PUBLIC
  std::string privilege;  // "SELECT" | "UPDATE"
  bool grantable = false;
  bool operator==(const LargeObjectGrant&) const = default;
};

struct LargeObjectMeta {
  uint32_t oid = 0;
  std::string owner;
  // false: the default privileges (lomacl is NULL: the owner's only); true: exactly `acl`.
  bool has_acl = false;
  std::vector<LargeObjectGrant> acl;
  bool has_comment = false;
  std::string comment;
};

class LargeObjectSource {
 public:
  virtual ~LargeObjectSource() = default;
  // Every large object of the snapshot, by OID.
  virtual const std::vector<LargeObjectMeta>& objects() const = 0;
  // Appends the bytes of large object `oid` to `sink`, read in chunks of at most
  // `chunk_bytes` (never the whole object in memory).
  virtual Status Read(uint32_t oid, size_t chunk_bytes, ByteSink* sink) = 0;
};

// Implemented by the Databases that have large objects (and by wrappers that forward to one).
class LargeObjectProvider {
 public:
  virtual ~LargeObjectProvider() = default;
  // The large objects at the snapshot, read on a session of their own that imported it (open
  // it before the snapshot may be released); nullptr when there are none.
  // REQUIRES: BeginSnapshot() first. Thread-safe.
  virtual Result<std::unique_ptr<LargeObjectSource>> OpenLargeObjects() = 0;
};

}  // namespace lakedump
