#include "dump/incremental/slot_ownership.h"

#include <fmt/format.h>

#include <algorithm>

#include "dump/incremental/pg_incremental_tables.h"
#include "lake/object_keys.h"

namespace lakedump {
namespace {

constexpr std::string_view kPrefix = "lakedump_";

// "lakedump_" + 16 hex digits: the name a base got from its destination before dump-id names.
bool IsDestinationNamed(std::string_view name) {
  if (!name.starts_with(kPrefix) || name.size() != kPrefix.size() + 16) return false;
  const std::string_view hex = name.substr(kPrefix.size());
  return std::all_of(hex.begin(), hex.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
  });
}

// The names of the base against the ones lakedump gives `dump_id`; nothing read from the
// server. The manifest's own names are never printed (they come from DEST).
Status CheckNames(std::string_view dump_id, const IncrementalBase& base) {
  if (!IsRunId(dump_id)) {
    return Status::InvalidArgument(
        "the base dump at DEST has no dump id of the form lakedump writes: its replication slot "
        "and publication are left alone");
  }
  const std::string expected = IncrementalSlotName(dump_id);
  if (base.slot == expected && base.publication == expected) return Status::OK();
  if (IsDestinationNamed(base.slot) && base.publication == base.slot) {
    return Status::InvalidArgument(fmt::format(
        "the base dump at DEST was made before lakedump named its slot and publication after "
        "the dump id, and nothing on the server shows that {} is lakedump's: it is neither "
        "moved nor dropped; take a new base (dump --incremental --if-exists overwrite), then "
        "drop the old ones by hand once checked: SELECT pg_drop_replication_slot('{}'); DROP "
        "PUBLICATION {}",
        base.slot, base.slot, base.slot));
  }
  return Status::InvalidArgument(fmt::format(
      "the base dump at DEST names a replication slot or publication other than {}, the name "
      "lakedump gives dump {}: refused, nothing read, moved or dropped",
      expected, dump_id));
}

}  // namespace

std::string IncrementalSlotName(std::string_view dump_id) {
  std::string name(kPrefix);
  for (char c : dump_id) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    name += (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ? c : '_';
  }
  return name;
}

std::string OwnershipMarker(std::string_view dump_id, std::string_view slot) {
  return fmt::format("lakedump incremental base: dump_id={} slot={}", dump_id, slot);
}

Result<SlotOwnership> CheckSlotOwnership(PgConn& conn, std::string_view dump_id,
                                         const IncrementalBase& base) {
  LD_RETURN_IF_ERROR(CheckNames(dump_id, base));
  LD_ASSIGN_OR_RETURN(
      PgResult r,
      conn.Query("SELECT coalesce(pg_catalog.obj_description(p.oid, 'pg_publication'), '') "
                 "FROM pg_catalog.pg_publication p WHERE p.pubname = $1",
                 {base.publication}));
  if (PQntuples(r.get()) == 0) return SlotOwnership::kGone;
  if (PgValue(r.get(), 0, 0) != OwnershipMarker(dump_id, base.slot)) {
    return Status::InvalidArgument(fmt::format(
        "publication {} does not carry the comment lakedump writes on the publication it "
        "creates for dump {} (\"{}\"): it is not lakedump's, and neither it nor slot {} is "
        "read, moved or dropped",
        base.publication, dump_id, OwnershipMarker(dump_id, base.slot), base.slot));
  }
  return SlotOwnership::kOwned;
}

Status CheckIncrementSlotOwned(PgConn& conn, std::string_view dump_id,
                               const IncrementalBase& base) {
  LD_ASSIGN_OR_RETURN(const SlotOwnership owned, CheckSlotOwnership(conn, dump_id, base));
  if (owned == SlotOwnership::kOwned) return Status::OK();
  return Status::NotFound(fmt::format(
      "publication {} of the base dump is gone (dropped, or lakedump gc --drop-slot): no more "
      "increments can be made; make a new base with dump --incremental --if-exists overwrite",
      base.publication));
}

Status CheckBaseDatabase(PgConn& conn, const DumpManifest& base, const IncrementalBase& inc) {
  LD_ASSIGN_OR_RETURN(const PgDatabaseIdentity id, QueryDatabaseIdentity(conn));
  const bool named = base.source.is_object() && base.source.contains("database") &&
                     base.source["database"].is_string();
  const std::string recorded_name = named ? base.source["database"].get<std::string>() : "";
  if (id.system_identifier == inc.system_identifier && id.oid == inc.database_oid &&
      id.name == recorded_name) {
    return Status::OK();
  }
  return Status::InvalidArgument(fmt::format(
      "--source reaches database {} (OID {}) of the server with system identifier {}, not the "
      "database the base dump at DEST was made from: nothing dropped",
      id.name, id.oid, id.system_identifier.empty() ? "?" : id.system_identifier));
}

}  // namespace lakedump
