// The table of contents of a pg_dump custom-format archive (`pg_dump --format=custom`), read
// in process: the dump lists its schema archive's objects without starting `pg_restore
// --list` (a process start and a second read of the archive per dump; issue 11's cost).
//
// The layout (PostgreSQL's src/bin/pg_dump/pg_backup_archiver.c, ReadHead and ReadToc, and
// pg_backup_custom.c): "PGDMP", the archive version (major, minor, revision bytes), the
// integer and offset sizes, the format (1 = custom), the compression, the creation time, the
// database name, the server's and pg_dump's versions; then the entry count and each entry:
// dump id, whether it has data, catalog and object OIDs, tag, type (desc), section, its SQL,
// DROP and COPY statements, schema, tablespace, table access method, relkind (1.16), owner,
// "with oids", the ids it depends on, and the custom format's data offset. An integer is a
// sign byte and `int size` little-endian bytes; a string an integer length (-1: NULL) and its
// bytes. Archive versions 1.12 to 1.16 (pg_dump 9.0 to 18) are read; a newer one is
// Unimplemented, so that the caller can ask pg_restore instead.
//
// The archive is checked as hostile input: every length against what is left, counts
// against the bytes that could hold them. Stateless functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace lakedump {

struct PgArchiveTocEntry {
  int dump_id = 0;
  bool had_dumper = false;  // the entry has data (TABLE DATA, BLOBS...)
  uint32_t catalog_oid = 0;  // 1259 (pg_class), 1255 (pg_proc), ...; 0 for ACLs, comments
  uint32_t object_oid = 0;
  std::string desc;          // "TABLE", "FK CONSTRAINT", ...
  std::string tag;           // "customers", "orders orders_pkey"
  // pg_dump's section: 1 none (ACLs, comments: they go with the section before them), 2
  // pre-data, 3 data, 4 post-data; 0 when unknown (read from a `pg_restore --list`).
  int section = 0;
  bool has_schema = false;   // false: no schema (NULL), as for extensions' comments
  std::string schema;
  // The tablespace pg_restore sets (default_tablespace) before the entry: has_tablespace
  // false for none (NULL), "" for the database's default.
  bool has_tablespace = false;
  std::string tablespace;
  std::string owner;
  bool has_definition = false;  // a non-empty CREATE/ALTER statement
  bool load_via_root = false;   // the definition is pg_dump's "-- load via partition root" note
  std::string definition;       // the SQL pg_restore runs for it ("" when NULL)
  std::vector<int> dependencies;  // the dump ids it depends on, as pg_dump recorded them
  // Where the owner and definition strings (their length integer included) and the data
  // offset lie in the archive: RewritePgArchive replaces them.
  size_t owner_at = 0, owner_end = 0, definition_at = 0, definition_end = 0, offset_at = 0;
};

struct PgArchiveToc {
  int version_major = 0, version_minor = 0, version_revision = 0;  // of the archive format
  std::string database;
  std::string server_version;   // "15.18 (Debian 15.18-0+deb12u1)", as the archive says
  std::string pg_dump_version;  // likewise, of the pg_dump that wrote it
  std::vector<PgArchiveTocEntry> entries;  // in archive order
  size_t int_size = 4, offset_size = 8;    // of the archive's integers and data offsets
};

// Corruption (naming what is wrong and where) for bytes that are not a custom-format archive
// or end early; Unimplemented for an archive version newer than 1.16 or older than 1.12.
Result<PgArchiveToc> ReadPgArchiveToc(std::string_view archive);

// True for an entry `pg_restore --list` lists (and so --use-list can name).
bool PgArchiveListed(const PgArchiveTocEntry& e);

// A change to one entry of an archive (RewritePgArchive): its owner and/or its definition.
struct PgArchiveEdit {
  size_t entry = 0;  // index into PgArchiveToc::entries
  std::optional<std::string> owner;
  std::optional<std::string> definition;
};

// The archive with the edits applied (the entries' strings re-encoded in place, the data
// offsets after the table of contents moved by what it grew or shrank). REQUIRES: `toc` was
// read from `archive`; edits name entries of it, at most one edit per entry.
Result<std::string> RewritePgArchive(std::string_view archive, const PgArchiveToc& toc,
                                     const std::vector<PgArchiveEdit>& edits);

// What `pg_restore --list` prints for these entries, without its header comment lines: one
// line per entry it would restore with no options ("218; 1259 16402 TABLE shop customers
// postgres"), in archive order. The entries it never lists (ENCODING, STDSTRINGS, SEARCHPATH,
// DATABASE and the database's own comments and grants, entries without a definition) are left
// out as it does; line breaks inside names become spaces as there.
std::string PgArchiveListing(const PgArchiveToc& toc);

// "15.18 (Debian 15.18-0+deb12u1)" -> "15.18"; "" when it does not start with a digit.
std::string PgVersionNumber(std::string_view version_string);

}  // namespace lakedump
