#include "base/crc32c.h"

#include <array>
#include <cstring>

namespace lakedump {
namespace {

constexpr uint32_t kPoly = 0x82F63B78;  // reflected Castagnoli polynomial

constexpr std::array<std::array<uint32_t, 256>, 8> MakeTables() {
  std::array<std::array<uint32_t, 256>, 8> t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ kPoly : c >> 1;
    t[0][i] = c;
  }
  for (uint32_t i = 0; i < 256; ++i) {
    for (size_t k = 1; k < 8; ++k) t[k][i] = (t[k - 1][i] >> 8) ^ t[0][t[k - 1][i] & 0xFF];
  }
  return t;
}

constexpr auto kTables = MakeTables();

// Slicing-by-8 over the raw (pre-inverted) register.
uint32_t RawPortable(const unsigned char* p, size_t n, uint32_t c) {
  while (n >= 8) {
    uint32_t lo, hi;
    std::memcpy(&lo, p, 4);
    std::memcpy(&hi, p + 4, 4);
    lo ^= c;  // little-endian hosts only (x86-64, aarch64): the bytes in memory order
    c = kTables[7][lo & 0xFF] ^ kTables[6][(lo >> 8) & 0xFF] ^ kTables[5][(lo >> 16) & 0xFF] ^
        kTables[4][lo >> 24] ^ kTables[3][hi & 0xFF] ^ kTables[2][(hi >> 8) & 0xFF] ^
        kTables[1][(hi >> 16) & 0xFF] ^ kTables[0][hi >> 24];
    p += 8;
    n -= 8;
  }
  while (n-- > 0) c = (c >> 8) ^ kTables[0][(c ^ *p++) & 0xFF];
  return c;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define LAKEDUMP_CRC32C_SSE42 1
__attribute__((target("sse4.2"))) uint32_t RawHardware(const unsigned char* p, size_t n,
                                                       uint32_t c) {
  uint64_t c64 = c;
  while (n >= 8) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    c64 = __builtin_ia32_crc32di(c64, v);
    p += 8;
    n -= 8;
  }
  c = static_cast<uint32_t>(c64);
  while (n-- > 0) c = __builtin_ia32_crc32qi(c, *p++);
  return c;
}

bool DetectHardware() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("sse4.2");
}
#endif

}  // namespace

bool Crc32cHardware() {
#ifdef LAKEDUMP_CRC32C_SSE42
  static const bool has = DetectHardware();
  return has;
#else
  return false;
#endif
}

uint32_t Crc32cPortable(std::string_view data, uint32_t crc) {
  return ~RawPortable(reinterpret_cast<const unsigned char*>(data.data()), data.size(), ~crc);
}

uint32_t Crc32c(std::string_view data, uint32_t crc) {
#ifdef LAKEDUMP_CRC32C_SSE42
  if (Crc32cHardware()) {
    return ~RawHardware(reinterpret_cast<const unsigned char*>(data.data()), data.size(), ~crc);
  }
#endif
  return Crc32cPortable(data, crc);
}

std::string Crc32cBase64(std::string_view data) {
  const uint32_t c = Crc32c(data);
  const unsigned char b[4] = {static_cast<unsigned char>(c >> 24),
                              static_cast<unsigned char>(c >> 16),
                              static_cast<unsigned char>(c >> 8), static_cast<unsigned char>(c)};
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out += kAlphabet[b[0] >> 2];
  out += kAlphabet[((b[0] & 3) << 4) | (b[1] >> 4)];
  out += kAlphabet[((b[1] & 15) << 2) | (b[2] >> 6)];
  out += kAlphabet[b[2] & 63];
  out += kAlphabet[b[3] >> 2];
  out += kAlphabet[(b[3] & 3) << 4];
  out += "==";
  return out;
}

}  // namespace lakedump
