// SHA-256 and HMAC-SHA256 (OpenSSL), for signed dumps (docs/dump-format.md, "Signed dumps").
// Hex forms are 64 lower-case digits, as `sha256sum` prints them.
// Sha256Hasher is not thread-safe (one owner); the free functions are.
#pragma once

#include <memory>
#include <string>
#include <string_view>

struct evp_md_ctx_st;

namespace lakedump {

class Sha256Hasher {
 public:
  Sha256Hasher();
  ~Sha256Hasher();
  Sha256Hasher(Sha256Hasher&&) noexcept;
  Sha256Hasher& operator=(Sha256Hasher&&) noexcept;
  Sha256Hasher(const Sha256Hasher&) = delete;
  Sha256Hasher& operator=(const Sha256Hasher&) = delete;

  void Update(std::string_view data);
  // The digest of everything so far (hashing may continue).
  std::string HexDigest() const;

 private:
  struct Deleter {
    void operator()(evp_md_ctx_st* ctx) const;
  };
  std::unique_ptr<evp_md_ctx_st, Deleter> ctx_;
};

std::string Sha256Hex(std::string_view data);
std::string HmacSha256Hex(std::string_view key, std::string_view data);
// Equal strings, in time independent of where they differ (for MACs).
bool ConstantTimeEquals(std::string_view a, std::string_view b);

}  // namespace lakedump
