// What the restore of a dump's schema archive leaves out or as it was (issue 31).
//
// lakedump's own publications in a dump's schema archive: an incremental base
// creates, before its snapshot, a publication named "lakedump_" + its dump id (or, for bases
// older than dump-id names, "lakedump_" + 16 hex digits; src/dump/incremental/
// slot_ownership.h), so pg_dump archives it with the rest of the source's schema. It serves
// the source's increments only: a replica restored from the dump must not get it (nor its
// tables, schemas or comment). Its slot is not in the archive (pg_dump never dumps slots).
// Pure functions; thread-safe.
#pragma once

#include <string_view>

#include <nlohmann/json.hpp>

#include "source/postgres/pg_schema_capture.h"

namespace lakedump {

// True for a name lakedump gives an incremental base's publication.
bool IsLakedumpPublicationName(std::string_view name);

// True for an archive entry of such a publication: PUBLICATION, PUBLICATION TABLE ("pub
// table"), PUBLICATION TABLES IN SCHEMA ("pub schema"), and the COMMENT or SECURITY LABEL
// on it ("PUBLICATION pub").
bool IsLakedumpPublicationEntry(const PgTocEntry& entry);

// True when the manifest's schema (`schema`, its "unpopulated_matviews": docs/dump-format.md)
// records the materialized view schema.name as not populated at the dump (WITH NO DATA):
// load creates it (unpopulated, as pg_dump --schema-only does) and does not refresh it.
// Dumps before that record refresh every materialized view.
bool IsUnpopulatedMatview(const nlohmann::json& schema, std::string_view schema_name,
                          std::string_view name);

}  // namespace lakedump
