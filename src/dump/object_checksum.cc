#include "dump/object_checksum.h"

#include <algorithm>

#include "base/checksum.h"
#include "store/object_store.h"

namespace lakedump {

Result<std::string> HashObject(ObjectReader& reader, uint64_t size) {
  Xxh64Hasher hasher;
  constexpr uint64_t kChunk = 8 << 20;
  std::string buf;
  for (uint64_t off = 0; off < size; off += kChunk) {
    const uint64_t n = std::min(kChunk, size - off);
    LD_RETURN_IF_ERROR(reader.ReadAt(off, n, &buf));
    hasher.Update(buf);
  }
  return hasher.HexDigest();
}

}  // namespace lakedump
