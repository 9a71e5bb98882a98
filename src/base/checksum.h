// File checksums for the dump layer: XXH64 (classic xxHash64, seed 0).
//
// The text form is 16 lowercase hex digits of the 64-bit value, most significant
// first: exactly what `xxhsum` (Debian package xxhash, whose default algorithm is
// XXH64, same as `xxhsum -H1` / `-H64`) prints, so users can check a dump file
// by hand:   xxhsum part-0.parquet   ->   "<16 hex digits>  part-0.parquet".
//
// Xxh64Hasher and ChecksumSink are not thread-safe (one owner each); the free
// functions are.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/byte_sink.h"
#include "base/sha256.h"

struct XXH64_state_s;

namespace lakedump {

// The name recorded next to checksums in metadata.
inline constexpr std::string_view kChecksumAlgorithm = "xxh64";

// Streaming XXH64. Digest() may be called at any point and hashing continues.
class Xxh64Hasher {
 public:
  Xxh64Hasher();
  ~Xxh64Hasher();
  Xxh64Hasher(Xxh64Hasher&&) noexcept;
  Xxh64Hasher& operator=(Xxh64Hasher&&) noexcept;
  Xxh64Hasher(const Xxh64Hasher&) = delete;
  Xxh64Hasher& operator=(const Xxh64Hasher&) = delete;

  void Update(std::string_view data);
  uint64_t Digest() const;
  std::string HexDigest() const;  // 16 lowercase hex digits
  void Reset();

 private:
  struct StateDeleter {
    void operator()(XXH64_state_s* state) const;
  };
  std::unique_ptr<XXH64_state_s, StateDeleter> state_;
};

uint64_t Xxh64(std::string_view data);
std::string Xxh64Hex(std::string_view data);
// 16 lowercase hex digits, most significant first.
std::string FormatXxh64(uint64_t value);

// The checksum of one byte range of a file.
struct SectionChecksum {
  uint64_t offset = 0;
  uint64_t bytes = 0;
  uint64_t xxh64 = 0;
};

// A ByteSink that forwards to another sink and hashes every byte that sink
// accepted, so a file's checksum is known when it is closed without reading it
// back. It also hashes each section the producer marks (MarkSectionEnd: a
// Parquet row group), so that a reader of one section can check it alone.
// The target is borrowed and must outlive this sink; closing the target
// (e.g. ObjectWriter::Close) stays the caller's job.
class ChecksumSink final : public ByteSink {
 public:
  explicit ChecksumSink(ByteSink* target) : target_(target) {}

  Status Append(std::string_view data) override;
  // Closes the section that began at the previous mark (or at 0) and ends here.
  void MarkSectionEnd() override;
  // The closed sections, then the open one (from the last mark to the end, even when
  // empty): they tile the bytes hashed. For a Parquet file, its row groups (the first one
  // with the leading magic) and then its footer.
  std::vector<SectionChecksum> sections() const;
  // What this sink passed on (stays valid after the target is closed or gone).
  uint64_t bytes_written() const override { return bytes_hashed_; }

  uint64_t digest() const { return hasher_.Digest(); }
  std::string hex_digest() const { return hasher_.HexDigest(); }
  // Bytes hashed: those the target accepted through this sink.
  uint64_t bytes_hashed() const { return bytes_hashed_; }
  // Also computes SHA-256 (signed dumps). REQUIRES: before the first Append.
  void EnableSha256() { sha256_ = std::make_unique<Sha256Hasher>(); }
  // 64 hex digits, or "" without EnableSha256().
  std::string sha256_hex() const { return sha256_ ? sha256_->HexDigest() : std::string(); }

 private:
  ByteSink* const target_;
  Xxh64Hasher hasher_;
  std::unique_ptr<Sha256Hasher> sha256_;
  uint64_t bytes_hashed_ = 0;
  Xxh64Hasher section_hasher_;  // the open section, from section_start_
  uint64_t section_start_ = 0;
  std::vector<SectionChecksum> closed_sections_;
};

}  // namespace lakedump
