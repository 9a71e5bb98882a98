// Which replication slot and publication belong to an incremental dump, and the proof on the
// server that lakedump created them for it (docs/incremental.md, "Slots and publications";
// docs/security.md). A base names both "lakedump_" + its dump id and, in the transaction that
// creates the publication, writes on it the comment OwnershipMarker(dump id, slot). The names
// a manifest gives are data read from DEST: before an increment reads, moves or alters them,
// and before `gc --drop-slot` drops them, the names must be the ones lakedump gives that dump
// id and the marker must be on the server. Connections come from the user's settings only.
// Functions on the caller's connection (one thread at a time).
#pragma once

#include <string>
#include <string_view>

#include "lake/incremental_state.h"
#include "lake/manifest.h"
#include "source/postgres/pg_conn.h"

namespace lakedump {

// The slot's and publication's name for a base whose dump id is `dump_id` (a run id,
// "20261205T043000Z-1a2b3c4d"): "lakedump_20261205t043000z_1a2b3c4d" (a slot name allows
// lower-case letters, digits and '_' only).
std::string IncrementalSlotName(std::string_view dump_id);

// The comment on the publication of the base `dump_id`, naming its slot.
std::string OwnershipMarker(std::string_view dump_id, std::string_view slot);

enum class SlotOwnership : uint8_t {
  kOwned,  // the names are this dump id's and the publication carries its marker
  kGone,   // the names are this dump id's, and no publication of that name exists
};

// Checks, before anything is read, moved or dropped: the base's slot and publication are the
// names lakedump gives `dump_id` (else InvalidArgument, one line; a base made before dump-id
// names, "lakedump_" + 16 hex digits, is told apart), and the publication's comment is the
// marker (else InvalidArgument). Nothing is changed on the server.
Result<SlotOwnership> CheckSlotOwnership(PgConn& conn, std::string_view dump_id,
                                         const IncrementalBase& base);

// CheckSlotOwnership for an increment, before it reads, alters or moves anything: a
// publication that is gone is NotFound (the chain is over: take a new base).
Status CheckIncrementSlotOwned(PgConn& conn, std::string_view dump_id,
                               const IncrementalBase& base);

// The database `conn` reaches is the one the base at DEST was dumped from: the same system
// identifier, database OID and name as recorded (InvalidArgument otherwise).
Status CheckBaseDatabase(PgConn& conn, const DumpManifest& base, const IncrementalBase& inc);

}  // namespace lakedump
