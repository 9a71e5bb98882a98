#include "source/postgres/pgoutput.h"

#include <fmt/format.h>

#include <cstring>

namespace lakedump {
namespace {

class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  bool ok() const { return ok_; }
  bool at_end() const { return pos_ == in_.size(); }
  uint8_t U8() {
    if (!Need(1)) return 0;
    return static_cast<uint8_t>(in_[pos_++]);
  }
  uint64_t Be(int bytes) {
    if (!Need(static_cast<size_t>(bytes))) return 0;
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v = (v << 8) | static_cast<uint8_t>(in_[pos_++]);
    return v;
  }
  uint16_t U16() { return static_cast<uint16_t>(Be(2)); }
  uint32_t U32() { return static_cast<uint32_t>(Be(4)); }
  uint64_t U64() { return Be(8); }
  std::string CString() {
    if (!ok_) return {};
    const size_t end = in_.find('\0', pos_);
    if (end == std::string_view::npos) {
      ok_ = false;
      return {};
    }
    std::string s(in_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return s;
  }
  std::string_view Bytes(size_t n) {
    if (!Need(n)) return {};
    std::string_view v = in_.substr(pos_, n);
    pos_ += n;
    return v;
  }

 private:
  bool Need(size_t n) {
    if (!ok_ || in_.size() - pos_ < n) {
      ok_ = false;
      return false;
    }
    return true;
  }
  std::string_view in_;
  size_t pos_ = 0;
  bool ok_ = true;
};

Status ReadTuple(Reader& r, std::vector<PgoutputValue>* out) {
  const uint16_t n = r.U16();
  out->clear();
  for (uint16_t i = 0; i < n && r.ok(); ++i) {
    PgoutputValue v;
    v.kind = static_cast<char>(r.U8());
    switch (v.kind) {
      case 'n':
      case 'u':
        break;
      case 'b':
      case 't': {
        const uint32_t len = r.U32();
        v.bytes = r.Bytes(len);
        break;
      }
      default:
        return Status::Corruption(fmt::format("pgoutput: unknown tuple value kind 0x{:02x}",
                                              static_cast<uint8_t>(v.kind)));
    }
    out->push_back(v);
  }
  return Status::OK();
}

// The bodies of the Relation, Insert, Update and Delete messages.
void ReadRelation(Reader& r, PgoutputRelation* rel) {
  rel->oid = r.U32();
  rel->schema = r.CString();
  rel->name = r.CString();
  rel->replica_identity = static_cast<char>(r.U8());
  const uint16_t n = r.U16();
  rel->columns.clear();
  for (uint16_t i = 0; i < n && r.ok(); ++i) {
    PgoutputColumn c;
    c.key = (r.U8() & 1) != 0;
    c.name = r.CString();
    c.type_oid = r.U32();
    c.typmod = static_cast<int32_t>(r.U32());
    rel->columns.push_back(std::move(c));
  }
}

Status ReadInsert(Reader& r, PgoutputMessage* out) {
  out->relid = r.U32();
  if (r.U8() != 'N') return Status::Corruption("pgoutput: Insert without a new tuple");
  LD_RETURN_IF_ERROR(ReadTuple(r, &out->new_tuple));
  out->old_kind = 0;
  return Status::OK();
}

Status ReadUpdate(Reader& r, PgoutputMessage* out) {
  out->relid = r.U32();
  char kind = static_cast<char>(r.U8());
  out->old_kind = 0;
  out->old_tuple.clear();
  if (kind == 'K' || kind == 'O') {
    out->old_kind = kind;
    LD_RETURN_IF_ERROR(ReadTuple(r, &out->old_tuple));
    kind = static_cast<char>(r.U8());
  }
  if (kind != 'N') return Status::Corruption("pgoutput: Update without a new tuple");
  return ReadTuple(r, &out->new_tuple);
}

Status ReadDelete(Reader& r, PgoutputMessage* out) {
  out->relid = r.U32();
  out->old_kind = static_cast<char>(r.U8());
  if (out->old_kind != 'K' && out->old_kind != 'O') {
    return Status::Corruption("pgoutput: Delete without an old tuple");
  }
  LD_RETURN_IF_ERROR(ReadTuple(r, &out->old_tuple));
  out->new_tuple.clear();
  return Status::OK();
}

}  // namespace

std::string FormatLsn(uint64_t lsn) {
  return fmt::format("{:X}/{:X}", static_cast<uint32_t>(lsn >> 32),
                     static_cast<uint32_t>(lsn & 0xffffffffu));
}

Result<uint64_t> ParseLsn(std::string_view text) {
  const size_t slash = text.find('/');
  auto hex = [](std::string_view s, uint64_t* v) {
    if (s.empty() || s.size() > 8) return false;
    *v = 0;
    for (char c : s) {
      int d;
      if (c >= '0' && c <= '9') d = c - '0';
      else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
      else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
      else return false;
      *v = (*v << 4) | static_cast<uint64_t>(d);
    }
    return true;
  };
  uint64_t hi = 0, lo = 0;
  if (slash == std::string_view::npos || !hex(text.substr(0, slash), &hi) ||
      !hex(text.substr(slash + 1), &lo)) {
    return Status::InvalidArgument(fmt::format("\"{}\" is not a WAL position (X/Y)", text));
  }
  return (hi << 32) | lo;
}

Status ParsePgoutputMessage(std::string_view bytes, PgoutputMessage* out) {
  Reader r(bytes);
  out->type = static_cast<char>(r.U8());
  switch (out->type) {
    case 'B':
      out->final_lsn = r.U64();
      out->commit_ts = static_cast<int64_t>(r.U64());
      out->xid = r.U32();
      break;
    case 'C':
      r.U8();  // flags
      out->commit_lsn = r.U64();
      out->end_lsn = r.U64();
      out->commit_ts = static_cast<int64_t>(r.U64());
      break;
    case 'O':  // origin: LSN and name
      r.U64();
      r.CString();
      break;
    case 'Y':  // type: oid, namespace, name
      r.U32();
      r.CString();
      r.CString();
      break;
    case 'R': ReadRelation(r, &out->relation); break;
    case 'I': LD_RETURN_IF_ERROR(ReadInsert(r, out)); break;
    case 'U': LD_RETURN_IF_ERROR(ReadUpdate(r, out)); break;
    case 'D': LD_RETURN_IF_ERROR(ReadDelete(r, out)); break;
    case 'T': {
      const uint32_t n = r.U32();
      r.U8();  // options (CASCADE, RESTART IDENTITY)
      out->truncated.clear();
      for (uint32_t i = 0; i < n && r.ok(); ++i) out->truncated.push_back(r.U32());
      break;
    }
    default:
      return Status::Unimplemented(fmt::format(
          "pgoutput message type 0x{:02x} is not supported", static_cast<uint8_t>(out->type)));
  }
  if (!r.ok()) {
    return Status::Corruption(
        fmt::format("pgoutput: message '{}' of {} bytes is cut short", out->type, bytes.size()));
  }
  return Status::OK();
}

}  // namespace lakedump
