#include "source/postgres/pg_archive_toc.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace lakedump {
namespace {

// Writes archives as pg_dump does (pg_backup_archiver.c WriteHead/WriteToc, the custom
// format's offsets), for the archive versions the reader takes.
class ArchiveWriter {
 public:
  explicit ArchiveWriter(int minor) : minor_(minor) {
    out_ = "PGDMP";
    out_ += {'\x01', static_cast<char>(minor), '\x00', '\x04', '\x08', '\x01'};
    if (minor >= 15) {
      out_ += '\x00';  // no compression
    } else {
      Int(0);
    }
    for (int v : {5, 4, 3, 2, 1, 126, 0}) Int(v);  // the creation time
    Str("shopdb");
    Str("15.18 (Debian 15.18-0+deb12u1)");
    Str("15.18 (Debian 15.18-0+deb12u1)");
  }
  void Int(int64_t v) {
    out_ += v < 0 ? '\x01' : '\x00';
    const uint64_t a = static_cast<uint64_t>(v < 0 ? -v : v);
    for (int i = 0; i < 4; ++i) out_ += static_cast<char>((a >> (8 * i)) & 0xff);
  }
  void Str(std::optional<std::string> s) {
    if (!s) return Int(-1);
    Int(static_cast<int64_t>(s->size()));
    out_ += *s;
  }
  struct Entry {
    int id = 0;
    std::string desc;
    std::string tag;
    std::optional<std::string> schema;
    std::optional<std::string> defn = "CREATE ...;";
    std::string owner = "postgres";
    int had_dumper = 0;
    std::string catalog = "1259";
    std::string oid = "16402";
  };
  void AddEntry(const Entry& e) {
    Int(e.id);
    Int(e.had_dumper);
    Str(e.catalog);
    Str(e.oid);
    Str(e.tag);
    Str(e.desc);
    Int(2);  // section
    Str(e.defn);
    Str("DROP ...;");
    Str(std::nullopt);  // COPY
    Str(e.schema);
    Str("");  // tablespace
    if (minor_ >= 14) Str("heap");
    if (minor_ >= 16) Int('r');
    Str(e.owner);
    Str("false");
    Str("1");  // dependencies
    Str("2");
    Str(std::nullopt);
    out_ += '\x03';  // K_OFFSET_NO_DATA
    out_ += std::string(8, '\0');
  }
  std::string Finish(const std::vector<Entry>& entries) {
    Int(static_cast<int64_t>(entries.size()));
    for (const auto& e : entries) AddEntry(e);
    return out_;
  }

 private:
  int minor_;
  std::string out_;
};

ArchiveWriter::Entry E(int id, std::string desc, std::string tag,
                       std::optional<std::string> schema,
                       std::optional<std::string> defn = "CREATE ...;",
                       std::string owner = "postgres", std::string catalog = "1259",
                       std::string oid = "16402") {
  ArchiveWriter::Entry e;
  e.id = id;
  e.desc = std::move(desc);
  e.tag = std::move(tag);
  e.schema = std::move(schema);
  e.defn = std::move(defn);
  e.owner = std::move(owner);
  e.catalog = std::move(catalog);
  e.oid = std::move(oid);
  return e;
}

std::vector<ArchiveWriter::Entry> RichEntries() {
  const auto none = std::nullopt;
  return {
      E(1, "ENCODING", "ENCODING", none, "SET client_encoding = 'UTF8';", "", "0", "0"),
      E(2, "SCHEMA", "shop\nnew", "", "CREATE SCHEMA ...;", "postgres", "2615", "16390"),
      E(3, "TABLE", "customers", "shop\r"),
      E(4, "COMMENT", "DATABASE shopdb", none, "COMMENT ...;", "postgres", "0", "0"),
      E(5, "COMMENT", "EXTENSION plpgsql", none, "COMMENT ...;", "", "0", "0"),
      E(6, "SCHEMA", "public", none, ""),
      E(7, "SEQUENCE SET", "orders_id_seq", "shop", ""),
      E(8, "CONSTRAINT", "orders orders_pkey", "shop", "ALTER ...;", "postgres", "2606", "16420"),
      E(9, "DATABASE", "shopdb", none),
      E(10, "TABLE ATTACH", "orders_2024", "shop", "-- load via partition root shop.orders"),
  };
}

TEST(PgArchiveTocTest, ListsWhatPgRestoreListsForEachArchiveVersion) {
  for (int minor : {12, 13, 14, 15, 16}) {
    SCOPED_TRACE(minor);
    auto toc = ReadPgArchiveToc(ArchiveWriter(minor).Finish(RichEntries()));
    ASSERT_TRUE(toc.ok()) << toc.status().ToString();
    EXPECT_EQ(toc->version_minor, minor);
    EXPECT_EQ(toc->database, "shopdb");
    EXPECT_EQ(PgVersionNumber(toc->pg_dump_version), "15.18");
    ASSERT_EQ(toc->entries.size(), 10u);
    EXPECT_EQ(toc->entries[7].tag, "orders orders_pkey");
    EXPECT_EQ(toc->entries[7].catalog_oid, 2606u);
    EXPECT_EQ(toc->entries[7].object_oid, 16420u);
    // As pg_restore --list: the encoding, the database and its comment, an entry without a
    // definition and a partition-root note are not listed; a sequence's value (data) is; a
    // missing schema is "-", an empty one empty; line breaks become spaces.
    EXPECT_EQ(PgArchiveListing(*toc),
              "2; 2615 16390 SCHEMA  shop new postgres\n"
              "3; 1259 16402 TABLE shop  customers postgres\n"
              "5; 0 0 COMMENT - EXTENSION plpgsql \n"
              "7; 1259 16402 SEQUENCE SET shop orders_id_seq postgres\n"
              "8; 2606 16420 CONSTRAINT shop orders orders_pkey postgres\n");
  }
}

TEST(PgArchiveTocTest, ANewerOrOlderArchiveVersionIsUnimplemented) {
  std::string archive = ArchiveWriter(16).Finish(RichEntries());
  archive[6] = 17;
  EXPECT_EQ(ReadPgArchiveToc(archive).status().code(), Code::kUnimplemented);
  archive[6] = 11;
  EXPECT_EQ(ReadPgArchiveToc(archive).status().code(), Code::kUnimplemented);
  archive[5] = 2;
  archive[6] = 0;
  EXPECT_EQ(ReadPgArchiveToc(archive).status().code(), Code::kUnimplemented);
}

TEST(PgArchiveTocTest, EveryTruncationIsCorruptionNeverACrash) {
  const std::string archive = ArchiveWriter(14).Finish(RichEntries());
  for (size_t n = 0; n < archive.size(); ++n) {
    auto toc = ReadPgArchiveToc(std::string_view(archive).substr(0, n));
    ASSERT_FALSE(toc.ok()) << n;
    EXPECT_EQ(toc.status().code(), Code::kCorruption) << n << ": " << toc.status().ToString();
  }
  EXPECT_TRUE(ReadPgArchiveToc(archive).ok());
}

TEST(PgArchiveTocTest, HostileHeadersAndCountsAreRefused) {
  const std::string good = ArchiveWriter(14).Finish(RichEntries());
  std::string bad = good;
  bad[0] = 'X';  // not PGDMP
  EXPECT_EQ(ReadPgArchiveToc(bad).status().code(), Code::kCorruption);
  bad = good;
  bad[10] = 5;  // the directory format
  EXPECT_EQ(ReadPgArchiveToc(bad).status().code(), Code::kCorruption);
  bad = good;
  bad[8] = 0;  // integer size 0
  EXPECT_EQ(ReadPgArchiveToc(bad).status().code(), Code::kCorruption);
  bad = good;
  bad[8] = 99;
  EXPECT_EQ(ReadPgArchiveToc(bad).status().code(), Code::kCorruption);

  // An entry count far beyond what the bytes hold, and a string longer than the archive.
  std::string lie = ArchiveWriter(14).Finish({});
  lie.replace(lie.size() - 4, 4, std::string("\xff\xff\xff\x7f", 4));
  EXPECT_EQ(ReadPgArchiveToc(lie).status().code(), Code::kCorruption);

  const std::vector<ArchiveWriter::Entry> one = {E(3, "TABLE", "t", "s")};
  const std::string archive = ArchiveWriter(14).Finish(one);
  std::string long_tag = archive;
  const size_t tag = long_tag.find(std::string("\x00\x01\x00\x00\x00t", 6));
  ASSERT_NE(tag, std::string::npos);
  long_tag[tag + 2] = '\x7f';
  EXPECT_EQ(ReadPgArchiveToc(long_tag).status().code(), Code::kCorruption);

  // An entry id of 0 and a negative one, as pg_restore refuses them: the entry starts with
  // its id (3) and whether it has data (0).
  const size_t at = archive.find(std::string("\x00\x03\x00\x00\x00\x00\x00\x00\x00\x00", 10));
  ASSERT_NE(at, std::string::npos);
  std::string zero = archive;
  zero[at + 1] = '\x00';
  EXPECT_EQ(ReadPgArchiveToc(zero).status().code(), Code::kCorruption);
  std::string negative = archive;
  negative[at] = '\x01';
  EXPECT_EQ(ReadPgArchiveToc(negative).status().code(), Code::kCorruption);
}

TEST(PgArchiveTocTest, VersionNumbers) {
  EXPECT_EQ(PgVersionNumber("15.18 (Debian 15.18-0+deb12u1)"), "15.18");
  EXPECT_EQ(PgVersionNumber("17devel"), "17");
  EXPECT_EQ(PgVersionNumber("(none)"), "");
}

// Dependencies and definitions are read; a rewrite of owners and definitions re-encodes
// exactly those strings and moves the data offsets past the table of contents by the growth.
TEST(PgArchiveTocTest, RewritesOwnersAndDefinitionsInPlace) {
  for (int minor : {12, 14, 16}) {
    SCOPED_TRACE(minor);
    std::string archive = ArchiveWriter(minor).Finish(RichEntries());
    auto toc = ReadPgArchiveToc(archive);
    ASSERT_TRUE(toc.ok()) << toc.status().ToString();
    EXPECT_EQ(toc->entries[2].dependencies, (std::vector<int>{1, 2}));
    EXPECT_EQ(toc->entries[7].definition, "ALTER ...;");
    // A data block at 5000 (K_OFFSET_POS_SET).
    const size_t at = toc->entries[9].offset_at;
    archive[at] = '\x02';
    archive[at + 1] = static_cast<char>(5000 & 0xff);
    archive[at + 2] = static_cast<char>(5000 >> 8);
    archive += std::string(5100 - archive.size() % 5100, 'd');
    toc = ReadPgArchiveToc(archive);
    ASSERT_TRUE(toc.ok());
    PgArchiveEdit owner{2, std::string("a \"longer\" owner"), std::nullopt};
    PgArchiveEdit definition{7, std::nullopt, std::string("ALTER TABLE x OWNER TO y;")};
    auto rewritten = RewritePgArchive(archive, *toc, {definition, owner});
    ASSERT_TRUE(rewritten.ok()) << rewritten.status().ToString();
    auto again = ReadPgArchiveToc(*rewritten);
    ASSERT_TRUE(again.ok()) << again.status().ToString();
    ASSERT_EQ(again->entries.size(), toc->entries.size());
    EXPECT_EQ(again->entries[2].owner, "a \"longer\" owner");
    EXPECT_EQ(again->entries[2].definition, toc->entries[2].definition);
    EXPECT_EQ(again->entries[7].definition, "ALTER TABLE x OWNER TO y;");
    EXPECT_EQ(again->entries[7].owner, "postgres");
    EXPECT_EQ(again->entries[8].tag, toc->entries[8].tag);
    const int64_t growth = static_cast<int64_t>(rewritten->size() - archive.size());
    EXPECT_EQ(growth, 8 + 15);  // "postgres" -> 16 bytes, "ALTER ...;" -> 25 bytes
    const size_t moved = again->entries[9].offset_at;
    uint64_t offset = 0;
    for (int i = 0; i < 8; ++i) {
      offset |= static_cast<uint64_t>(static_cast<unsigned char>((*rewritten)[moved + 1 + i]))
                << (8 * i);
    }
    EXPECT_EQ(offset, 5000u + static_cast<uint64_t>(growth));
    EXPECT_EQ(rewritten->substr(rewritten->size() - 50), archive.substr(archive.size() - 50));
  }
}

}  // namespace
}  // namespace lakedump
