#include "source/postgres/pg_archive_toc.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>

namespace lakedump {
namespace {

constexpr int Version(int major, int minor, int revision) {
  return (major * 256 + minor) * 256 + revision;
}
constexpr int kVers_1_12 = Version(1, 12, 0);  // the oldest read: pg_dump 9.0
constexpr int kVers_1_14 = Version(1, 14, 0);  // table access method
constexpr int kVers_1_15 = Version(1, 15, 0);  // compression algorithm byte in the header
constexpr int kVers_1_16 = Version(1, 16, 0);  // relkind per entry
constexpr int kNewestKnown = Version(1, 16, 255);
constexpr int kArchiveCustom = 1;

// Reads the archive front to back; every read checks what is left.
class ArchiveReader {
 public:
  explicit ArchiveReader(std::string_view bytes) : bytes_(bytes) {}

  size_t pos() const { return pos_; }
  size_t left() const { return bytes_.size() - pos_; }
  void set_int_size(size_t n) { int_size_ = n; }
  size_t int_size() const { return int_size_; }

  Status Bytes(size_t n, std::string_view* out, std::string_view what) {
    if (n > left()) return Truncated(what);
    *out = bytes_.substr(pos_, n);
    pos_ += n;
    return Status::OK();
  }
  Status Byte(int* out, std::string_view what) {
    std::string_view b;
    LD_RETURN_IF_ERROR(Bytes(1, &b, what));
    *out = static_cast<unsigned char>(b[0]);
    return Status::OK();
  }
  // pg_dump's WriteInt: a sign byte, then int_size bytes, least significant first.
  Status Int(int64_t* out, std::string_view what) {
    int sign = 0;
    LD_RETURN_IF_ERROR(Byte(&sign, what));
    std::string_view b;
    LD_RETURN_IF_ERROR(Bytes(int_size_, &b, what));
    uint64_t v = 0;
    for (size_t i = 0; i < b.size(); ++i) {
      v |= static_cast<uint64_t>(static_cast<unsigned char>(b[i])) << (8 * i);
    }
    if (v > 0x7fffffffu || sign > 1) {
      return Status::Corruption(fmt::format(
          "pg_dump archive: {} at byte {} is not an integer pg_dump writes", what, pos_));
    }
    *out = sign ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
    return Status::OK();
  }
  // pg_dump's WriteStr: a length (-1 for NULL), then the bytes.
  Status Str(std::optional<std::string_view>* out, std::string_view what) {
    int64_t n = 0;
    LD_RETURN_IF_ERROR(Int(&n, what));
    if (n < 0) {
      out->reset();
      return Status::OK();
    }
    std::string_view s;
    LD_RETURN_IF_ERROR(Bytes(static_cast<size_t>(n), &s, what));
    *out = s;
    return Status::OK();
  }
  Status Str(std::string* out, std::string_view what) {
    std::optional<std::string_view> s;
    LD_RETURN_IF_ERROR(Str(&s, what));
    *out = s ? std::string(*s) : std::string();
    return Status::OK();
  }
  Status Skip(std::string_view what) {
    std::optional<std::string_view> s;
    return Str(&s, what);
  }

 private:
  Status Truncated(std::string_view what) const {
    return Status::Corruption(
        fmt::format("pg_dump archive: it ends at byte {} inside {}", bytes_.size(), what));
  }

  std::string_view bytes_;
  size_t pos_ = 0;
  size_t int_size_ = 4;
};

Status ParseOid(std::optional<std::string_view> text, uint32_t* out, int dump_id) {
  if (!text || text->empty()) return Status::OK();
  const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), *out);
  if (ec != std::errc() || end != text->data() + text->size()) {
    return Status::Corruption(
        fmt::format("pg_dump archive: entry {} has an OID that is not a number", dump_id));
  }
  return Status::OK();
}

Status ReadEntry(ArchiveReader& in, int version, size_t offset_size, PgArchiveTocEntry* e) {
  int64_t id = 0, had_dumper = 0, ignored = 0;
  LD_RETURN_IF_ERROR(in.Int(&id, "an entry's id"));
  if (id <= 0) {
    return Status::Corruption(fmt::format("pg_dump archive: entry id {} out of range", id));
  }
  e->dump_id = static_cast<int>(id);
  const std::string what = fmt::format("entry {}", id);
  LD_RETURN_IF_ERROR(in.Int(&had_dumper, what));
  e->had_dumper = had_dumper != 0;
  std::optional<std::string_view> s;
  LD_RETURN_IF_ERROR(in.Str(&s, what));  // the catalog's OID (1.8+)
  LD_RETURN_IF_ERROR(ParseOid(s, &e->catalog_oid, e->dump_id));
  LD_RETURN_IF_ERROR(in.Str(&s, what));
  LD_RETURN_IF_ERROR(ParseOid(s, &e->object_oid, e->dump_id));
  LD_RETURN_IF_ERROR(in.Str(&e->tag, what));
  LD_RETURN_IF_ERROR(in.Str(&e->desc, what));
  int64_t section = 0;
  LD_RETURN_IF_ERROR(in.Int(&section, what));  // section (1.11+)
  e->section = section >= 1 && section <= 4 ? static_cast<int>(section) : 0;
  e->definition_at = in.pos();
  LD_RETURN_IF_ERROR(in.Str(&s, what));        // the definition
  e->definition_end = in.pos();
  e->has_definition = s && !s->empty();
  e->load_via_root = s && s->starts_with("-- load via partition root ");
  e->definition = s ? std::string(*s) : std::string();
  LD_RETURN_IF_ERROR(in.Skip(what));  // DROP statement
  LD_RETURN_IF_ERROR(in.Skip(what));  // COPY statement (1.3+)
  LD_RETURN_IF_ERROR(in.Str(&s, what));  // schema (1.6+)
  e->has_schema = s.has_value();
  e->schema = s ? std::string(*s) : std::string();
  LD_RETURN_IF_ERROR(in.Str(&s, what));  // tablespace (1.10+)
  e->has_tablespace = s.has_value();
  e->tablespace = s ? std::string(*s) : std::string();
  if (version >= kVers_1_14) LD_RETURN_IF_ERROR(in.Skip(what));  // table access method
  if (version >= kVers_1_16) LD_RETURN_IF_ERROR(in.Int(&ignored, what));  // relkind
  e->owner_at = in.pos();
  LD_RETURN_IF_ERROR(in.Str(&e->owner, what));
  e->owner_end = in.pos();
  LD_RETURN_IF_ERROR(in.Skip(what));  // "with oids" (1.9+)
  // Dependencies: strings up to a NULL one; each at least one integer long, so a hostile
  // list ends with the bytes.
  for (;;) {
    LD_RETURN_IF_ERROR(in.Str(&s, what));
    if (!s) break;
    int dep = 0;
    const auto [end, ec] = std::from_chars(s->data(), s->data() + s->size(), dep);
    if (ec != std::errc() || end != s->data() + s->size() || dep <= 0) {
      return Status::Corruption(
          fmt::format("pg_dump archive: entry {} has a dependency that is not a dump id", id));
    }
    e->dependencies.push_back(dep);
  }
  // The custom format's data position: a flag byte and `offset size` bytes (1.7+).
  e->offset_at = in.pos();
  std::string_view offset;
  return in.Bytes(1 + offset_size, &offset, what);
}

}  // namespace

Result<PgArchiveToc> ReadPgArchiveToc(std::string_view archive) {
  ArchiveReader in(archive);
  std::string_view magic;
  LD_RETURN_IF_ERROR(in.Bytes(5, &magic, "the header"));
  if (magic != "PGDMP") {
    return Status::Corruption("pg_dump archive: it does not start with PGDMP (not a custom-format "
                              "archive)");
  }
  PgArchiveToc toc;
  LD_RETURN_IF_ERROR(in.Byte(&toc.version_major, "the header"));
  LD_RETURN_IF_ERROR(in.Byte(&toc.version_minor, "the header"));
  LD_RETURN_IF_ERROR(in.Byte(&toc.version_revision, "the header"));
  const int version = Version(toc.version_major, toc.version_minor, toc.version_revision);
  if (version < kVers_1_12 || version > kNewestKnown) {
    return Status::Unimplemented(fmt::format(
        "pg_dump archive version {}.{}: this lakedump reads 1.12 to 1.16", toc.version_major,
        toc.version_minor));
  }
  int int_size = 0, offset_size = 0, format = 0;
  LD_RETURN_IF_ERROR(in.Byte(&int_size, "the header"));
  LD_RETURN_IF_ERROR(in.Byte(&offset_size, "the header"));
  if (int_size < 1 || int_size > 8 || offset_size < 1 || offset_size > 8) {
    return Status::Corruption(fmt::format(
        "pg_dump archive: integer size {} or offset size {} out of range", int_size, offset_size));
  }
  in.set_int_size(static_cast<size_t>(int_size));
  toc.int_size = static_cast<size_t>(int_size);
  toc.offset_size = static_cast<size_t>(offset_size);
  LD_RETURN_IF_ERROR(in.Byte(&format, "the header"));
  if (format != kArchiveCustom) {
    return Status::Corruption(
        fmt::format("pg_dump archive: format {} is not the custom format (1)", format));
  }
  int64_t ignored = 0;
  if (version >= kVers_1_15) {
    int algorithm = 0;
    LD_RETURN_IF_ERROR(in.Byte(&algorithm, "the header"));
  } else {
    LD_RETURN_IF_ERROR(in.Int(&ignored, "the header"));  // compression level
  }
  for (int i = 0; i < 7; ++i) LD_RETURN_IF_ERROR(in.Int(&ignored, "the header"));  // struct tm
  LD_RETURN_IF_ERROR(in.Str(&toc.database, "the header"));
  LD_RETURN_IF_ERROR(in.Str(&toc.server_version, "the header"));
  LD_RETURN_IF_ERROR(in.Str(&toc.pg_dump_version, "the header"));
  int64_t count = 0;
  LD_RETURN_IF_ERROR(in.Int(&count, "the entry count"));
  // An entry takes at least a dozen integers: a count the bytes cannot hold is a lie.
  const size_t smallest_entry = 12 * (1 + static_cast<size_t>(int_size));
  if (count < 0 || static_cast<uint64_t>(count) > in.left() / smallest_entry) {
    return Status::Corruption(fmt::format(
        "pg_dump archive: {} entries cannot fit in the {} bytes left", count, in.left()));
  }
  toc.entries.resize(static_cast<size_t>(count));
  for (PgArchiveTocEntry& e : toc.entries) {
    LD_RETURN_IF_ERROR(ReadEntry(in, version, static_cast<size_t>(offset_size), &e));
  }
  return toc;
}

bool PgArchiveListed(const PgArchiveTocEntry& e) {
  // pg_restore's _tocEntryRequired without options: what it would restore is listed.
  const std::string_view d = e.desc;
  if (d == "ENCODING" || d == "STDSTRINGS" || d == "SEARCHPATH" || d == "DATABASE" ||
      d == "DATABASE PROPERTIES") {
    return false;
  }
  const bool about_object = d == "ACL" || d == "COMMENT" || d == "SECURITY LABEL";
  if (about_object && e.tag.starts_with("DATABASE ")) return false;
  if (d == "<Init>" && e.tag == "Max OID") return false;
  const bool large_object = about_object && e.tag.starts_with("LARGE OBJECT");
  const bool data = e.had_dumper || d == "SEQUENCE SET" || d == "BLOB" ||
                    d == "BLOB METADATA" || large_object;
  // Data entries are listed; the others only with a definition to run.
  return data || (e.has_definition && !e.load_via_root);
}

Result<std::string> RewritePgArchive(std::string_view archive, const PgArchiveToc& toc,
                                     const std::vector<PgArchiveEdit>& edits) {
  // pg_dump's WriteInt and WriteStr, in the archive's integer size.
  const auto encode = [&](std::string_view s) {
    std::string out(1, '\0');
    for (size_t i = 0; i < toc.int_size; ++i) {
      out += static_cast<char>(i < sizeof(size_t) ? (s.size() >> (8 * i)) & 0xff : 0);
    }
    return out += s;
  };
  struct Span {
    size_t at, end;
    std::string bytes;
  };
  std::vector<Span> spans;
  for (const PgArchiveEdit& edit : edits) {
    if (edit.entry >= toc.entries.size()) {
      return Status::InvalidArgument("pg_dump archive rewrite: no such entry");
    }
    const PgArchiveTocEntry& e = toc.entries[edit.entry];
    if (edit.definition) spans.push_back({e.definition_at, e.definition_end, encode(*edit.definition)});
    if (edit.owner) spans.push_back({e.owner_at, e.owner_end, encode(*edit.owner)});
  }
  std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) { return a.at < b.at; });
  std::string out;
  size_t copied = 0;
  int64_t growth = 0;
  for (const Span& s : spans) {
    if (s.at < copied || s.end > archive.size()) {
      return Status::InvalidArgument("pg_dump archive rewrite: overlapping edits");
    }
    out.append(archive.substr(copied, s.at - copied));
    out += s.bytes;
    growth += static_cast<int64_t>(s.bytes.size()) - static_cast<int64_t>(s.end - s.at);
    copied = s.end;
  }
  out.append(archive.substr(copied));
  if (growth == 0) return out;
  // The data blocks follow the table of contents: every offset set (K_OFFSET_POS_SET) moves.
  for (const PgArchiveTocEntry& e : toc.entries) {
    int64_t shift = 0;
    for (const Span& s : spans) {
      if (s.at < e.offset_at) shift += static_cast<int64_t>(s.bytes.size()) - static_cast<int64_t>(s.end - s.at);
    }
    const size_t at = static_cast<size_t>(static_cast<int64_t>(e.offset_at) + shift);
    if (at + 1 + toc.offset_size > out.size() || out[at] != '\x02') continue;
    uint64_t offset = 0;
    for (size_t i = 0; i < toc.offset_size && i < 8; ++i) {
      offset |= static_cast<uint64_t>(static_cast<unsigned char>(out[at + 1 + i])) << (8 * i);
    }
    offset = static_cast<uint64_t>(static_cast<int64_t>(offset) + growth);
    for (size_t i = 0; i < toc.offset_size; ++i) {
      out[at + 1 + i] = static_cast<char>(i < 8 ? (offset >> (8 * i)) & 0xff : 0);
    }
  }
  return out;
}

std::string PgArchiveListing(const PgArchiveToc& toc) {
  const auto sanitized = [](std::string s) {
    for (char& c : s) {
      if (c == '\n' || c == '\r') c = ' ';
    }
    return s;
  };
  std::string out;
  for (const PgArchiveTocEntry& e : toc.entries) {
    if (!PgArchiveListed(e)) continue;
    out += fmt::format("{}; {} {} {} {} {} {}\n", e.dump_id, e.catalog_oid, e.object_oid, e.desc,
                       e.has_schema ? sanitized(e.schema) : std::string("-"), sanitized(e.tag),
                       sanitized(e.owner));
  }
  return out;
}

std::string PgVersionNumber(std::string_view version_string) {
  size_t end = 0;
  while (end < version_string.size() &&
         (std::isdigit(static_cast<unsigned char>(version_string[end])) ||
          version_string[end] == '.')) {
    ++end;
  }
  if (end == 0) return "";
  return std::string(version_string.substr(0, end));
}

}  // namespace lakedump
