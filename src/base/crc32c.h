// CRC32C (Castagnoli, the iSCSI CRC of RFC 3720): the checksum S3 accepts as
// x-amz-checksum-crc32c. Computed with the SSE4.2 crc32 instruction when the
// CPU has it (checked at run time), else with a table. Stateless; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace lakedump {

// CRC32C of data, continuing from `crc` (the value of the bytes before; 0 to start).
uint32_t Crc32c(std::string_view data, uint32_t crc = 0);
// The portable table version (exposed so tests compare both paths).
uint32_t Crc32cPortable(std::string_view data, uint32_t crc = 0);
// True when Crc32c uses the SSE4.2 instruction on this CPU.
bool Crc32cHardware();

// Base64 of the 4 big-endian bytes: the value of the x-amz-checksum-crc32c header.
std::string Crc32cBase64(std::string_view data);

}  // namespace lakedump
