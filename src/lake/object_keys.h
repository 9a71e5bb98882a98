// Object keys of a dump: how table names, partition values and file names map
// to '/'-separated keys, such that no name can leave its folder. Pure
// functions; thread-safe. The rules are documented in docs/dump-format.md.
#pragma once

#include "base/utf8.h"

#include <cstdint>
#include <string>
#include <string_view>

#include "source/table_source.h"

namespace lakedump {

inline constexpr std::string_view kManifestKey = "_manifest.json";
inline constexpr std::string_view kTableFileName = "_table.json";
// The lease of the run writing the destination (dump/dump_lease.h); no part of a dump.
inline constexpr std::string_view kLeaseKey = "_lease.json";
inline constexpr std::string_view kHiveNullPartition = "__HIVE_DEFAULT_PARTITION__";

// Escapes one path component (schema or table name): percent-encodes (%XX, upper-case hex)
// control characters, '/', '\\', '%', the characters Hive escapes in paths
// ("#'*:=?[]^{}), bytes that are not valid UTF-8, and a leading '.' (so "." and ".." and
// hidden names cannot occur). Other characters, spaces and unicode included, are kept.
// An empty name is encoded as "%" followed by nothing else: "%" alone, which no
// non-empty name can produce.
// Components longer than 200 bytes are cut at a character boundary and suffixed with
// "~" and 16 hex digits of the xxHash64 of the full escaped component.
std::string EscapeKeyComponent(std::string_view name);

// Inverse of EscapeKeyComponent for components that were not shortened.
std::string UnescapeKeyComponent(std::string_view component);

// Hive-style partition value escaping (FileUtils.escapePathName); a null is
// __HIVE_DEFAULT_PARTITION__, an empty string too (as Hive does).
std::string EscapeHivePartitionValue(std::string_view value);

// "<schema>/<table>/" with both components escaped.
std::string TablePrefix(const TableRef& table);
// "<schema>/<table>/_table.json"
std::string TableManifestKey(const TableRef& table);
// "<schema>/<table>/[<partition>/]part-<unit>-<seq>-<run>.parquet"; partition is
// "col=value" already escaped, or empty. A partition segment over 200 bytes is shortened as
// EscapeKeyComponent does (the file's "partition" entry in _table.json keeps the whole value).
std::string DataFileKey(const TableRef& table, std::string_view partition, int unit, int seq,
                        std::string_view run_id);

// "20261129T235959Z-1a2b3c4d": UTC time of the call plus 32 random bits.
std::string NewRunId();
// True for a run id of NewRunId's form ("YYYYMMDDTHHMMSSZ-xxxxxxxx"), as read back from
// metadata that is not trusted (an empty or short one would match other objects' names).
bool IsRunId(std::string_view text);


}  // namespace lakedump
