// The checks a dump makes just before it writes _manifest.json (the dump
// commit), so that it never commits a manifest naming objects that are not
// what it recorded: another writer (a second run on the same destination,
// whose lease was not honoured), a sweep by such a run, or a lost write would
// otherwise go unnoticed until load. See docs/dump-format.md, "Commit protocol".
//
// Pure functions over a store; thread-safe when the store is.
#pragma once

#include <stop_token>
#include <string>
#include <vector>

#include "lake/manifest.h"
#include "store/object_store.h"

namespace lakedump {

// A table as the manifest will name it: the key of its _table.json and what
// this run wrote there (or reused).
struct CommittedTable {
  std::string key;
  const TableManifest* manifest = nullptr;
  // Other objects of the table that must be listed (its Iceberg metadata).
  std::vector<std::string> also_present;
  // When this run wrote `key` itself (not for a table it reused): the size and the Md5Etag
  // of the bytes it wrote, so that a listing can confirm them without reading them back.
  uint64_t written_bytes = 0;
  std::string written_etag;  // "" when this run did not write it
};

// One listing of the dump root, taken after every write of the run, confirms the commit:
// - each data file exists with its recorded size, and each key of `also_present` exists;
// - each _table.json this run wrote is listed with the size it wrote (else: replaced or gone)
//   and, where the listing's ETag is the MD5 of the bytes it wrote, is confirmed by that;
// - any other _table.json (a reused one, a store whose listing gives no ETag or another kind
//   of tag) is read back, up to `parallelism` at a time (MetadataIoWidth,
//   dump/metadata_io.h): it must parse and carry the recorded run id, rows, bytes and files.
// Corruption naming the first object that differs, and how many did.
Status CheckBeforeCommit(ObjectStore& store, const std::vector<CommittedTable>& tables,
                         size_t parallelism, std::stop_token stop = {});

// What load and verify compare between a manifest's table entry and the
// _table.json it names: run id (when the entry records one), bytes and file
// count. "" when they agree, else what differs.
std::string TableEntryMismatch(const TableSummary& entry, const TableManifest& table);

}  // namespace lakedump
