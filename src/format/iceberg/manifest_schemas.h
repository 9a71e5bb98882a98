// The Avro schemas of Iceberg v2 manifests and manifest lists, field for field
// as Iceberg's Java implementation writes them (record names, field ids,
// element ids, map-as-array records with logicalType "map"; table spec,
// "Manifests" and "Manifest Lists"). Pure functions; thread-safe.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "table/schema.h"

namespace lakedump::iceberg {

// The manifest_entry schema; the partition record r102 holds one optional field
// (id 1000) per identity partition column, or none.
nlohmann::ordered_json ManifestEntrySchema(const Schema& schema,
                                           std::optional<size_t> partition_column);

// The manifest_file schema of a v2 manifest list.
nlohmann::ordered_json ManifestFileSchema();

}  // namespace lakedump::iceberg
