// The checksum of a stored object, read back in bounded chunks (resume, verify),
// or hashed on the way while a reader consumes it (load).
// Files are hashed while they are written by ChecksumSink (base/checksum.h);
// HashObject re-reads what is already stored (stateless; thread-safe).
// HashingReader is not thread-safe: one owner, like the reader it wraps.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "base/checksum.h"
#include "base/status.h"
#include "store/forwarding_store.h"
#include "store/object_store.h"

namespace lakedump {

// XXH64 (seed 0) of the first `size` bytes of the object, as 16 hex digits.
Result<std::string> HashObject(ObjectReader& reader, uint64_t size);

struct ObjectDigests {
  std::string xxh64;
  std::string sha256;  // "" unless asked for
};
// Both digests in one read of the first `size` bytes.
Result<ObjectDigests> HashObjectDigests(ObjectReader& reader, uint64_t size, bool sha256);

// An ObjectReader that passes reads through to `inner` (borrowed; must outlive it)
// and hashes one section of the object -- the whole object unless StartSection()
// says otherwise -- as its bytes go by. Reads in file order (a Parquet reader
// after its footer) are hashed without a second read; small gaps are read to fill
// them; whatever of the section was not hashed on the way is read at Verify()
// time. So a consumer that reads a whole file (or a row group) in order checks it
// for the cost of the hash. Reads outside the section pass through unhashed.
class HashingReader final : public ForwardingReader {
 public:
  // With `sha256`, the bytes also go through SHA-256 (signed dumps): the reader then
  // hashes the whole object and StartSection() must not be called.
  explicit HashingReader(ObjectReader* inner, bool sha256 = false)
      : ForwardingReader(inner), end_(inner->size()) {
    if (sha256) sha_ = std::make_unique<Sha256Hasher>();
  }

  Status ReadAt(uint64_t offset, uint64_t length, std::string* out) override;

  // Starts hashing the section [offset, offset + bytes) afresh (what was hashed so far is
  // dropped). REQUIRES: offset + bytes <= size(), and no `sha256` (a signed dump's
  // file is hashed whole).
  void StartSection(uint64_t offset, uint64_t bytes);

  // Hashes the rest of the section and compares with `expected_hex` (16 hex
  // digits): Corruption naming `name`, both digests and what to do, if different.
  Status Verify(std::string_view expected_hex, std::string_view name);
  // After Verify(): the object's SHA-256 (64 hex digits), "" without `sha256`.
  std::string sha256_hex() const { return sha_ ? sha_->HexDigest() : std::string(); }

 private:
  Status HashUpTo(uint64_t end);  // reads and hashes [hashed_, end)

  Xxh64Hasher hasher_;
  std::unique_ptr<Sha256Hasher> sha_;  // whole object only (no sections)
  uint64_t hashed_ = 0;  // bytes [section start, hashed_) are in hasher_
  uint64_t end_;         // the section's end
  std::string gap_;
};

}  // namespace lakedump
