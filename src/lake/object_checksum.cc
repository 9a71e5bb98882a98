#include "lake/object_checksum.h"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>

namespace lakedump {

Result<std::string> HashObject(ObjectReader& reader, uint64_t size) {
  LD_ASSIGN_OR_RETURN(ObjectDigests d, HashObjectDigests(reader, size, /*sha256=*/false));
  return d.xxh64;
}

Result<ObjectDigests> HashObjectDigests(ObjectReader& reader, uint64_t size, bool sha256) {
  Xxh64Hasher hasher;
  std::unique_ptr<Sha256Hasher> sha;
  if (sha256) sha = std::make_unique<Sha256Hasher>();
  constexpr uint64_t kChunk = 8 << 20;
  std::string buf;
  for (uint64_t off = 0; off < size; off += kChunk) {
    const uint64_t n = std::min(kChunk, size - off);
    LD_RETURN_IF_ERROR(reader.ReadAt(off, n, &buf));
    hasher.Update(buf);
    if (sha) sha->Update(buf);
  }
  return ObjectDigests{hasher.HexDigest(), sha ? sha->HexDigest() : std::string()};
}

namespace {
// A forward gap up to this size is read at once to keep hashing in order (the
// four magic bytes before the first column chunk, skipped padding).
constexpr uint64_t kMaxGapRead = 1 << 20;
}  // namespace

Status HashingReader::HashUpTo(uint64_t end) {
  constexpr uint64_t kChunk = 8 << 20;
  while (hashed_ < end) {
    const uint64_t n = std::min(kChunk, end - hashed_);
    LD_RETURN_IF_ERROR(target()->ReadAt(hashed_, n, &gap_));
    hasher_.Update(gap_);
    if (sha_) sha_->Update(gap_);
    hashed_ += n;
  }
  return Status::OK();
}

Status HashingReader::ReadAt(uint64_t offset, uint64_t length, std::string* out) {
  if (offset > hashed_ && offset - hashed_ <= kMaxGapRead) {
    LD_RETURN_IF_ERROR(HashUpTo(std::min(offset, end_)));
  }
  LD_RETURN_IF_ERROR(target()->ReadAt(offset, length, out));
  const uint64_t end = std::min(offset + out->size(), end_);
  if (offset <= hashed_ && end > hashed_) {
    const std::string_view fresh = std::string_view(*out).substr(hashed_ - offset, end - hashed_);
    hasher_.Update(fresh);
    if (sha_) sha_->Update(fresh);
    hashed_ = end;
  }
  return Status::OK();
}

void HashingReader::StartSection(uint64_t offset, uint64_t bytes) {
  // A whole-object SHA-256 cannot be computed section by section: the caller keeps
  // signed dumps on the whole-file path (see the header).
  assert(!sha_);
  hasher_ = Xxh64Hasher();
  hashed_ = offset;
  end_ = offset + bytes;
}

Status HashingReader::Verify(std::string_view expected_hex, std::string_view name) {
  LD_RETURN_IF_ERROR(HashUpTo(end_));
  const std::string found = hasher_.HexDigest();
  if (found == expected_hex) return Status::OK();
  return Status::Corruption(fmt::format(
      "data file {} does not match its recorded checksum (expected xxh64 {}, found {}): it "
      "changed after the dump; run lakedump verify on the dump",
      name, expected_hex, found));
}

}  // namespace lakedump
