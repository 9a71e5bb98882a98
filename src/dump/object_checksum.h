// The checksum of a stored object, read back in bounded chunks (resume, verify).
// Files are hashed while they are written by ChecksumSink (base/checksum.h);
// this re-reads what is already stored. Stateless; thread-safe.
#pragma once

#include <cstdint>
#include <string>

#include "base/status.h"

namespace lakedump {

class ObjectReader;

// XXH64 (seed 0) of the first `size` bytes of the object, as 16 hex digits.
Result<std::string> HashObject(ObjectReader& reader, uint64_t size);

}  // namespace lakedump
