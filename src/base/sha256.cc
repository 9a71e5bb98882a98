#include "base/sha256.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

namespace lakedump {
namespace {

std::string Hex(const unsigned char* data, unsigned int n) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(n * 2);
  for (unsigned int i = 0; i < n; ++i) {
    out.push_back(kHex[data[i] >> 4]);
    out.push_back(kHex[data[i] & 15]);
  }
  return out;
}

}  // namespace

void Sha256Hasher::Deleter::operator()(evp_md_ctx_st* ctx) const { EVP_MD_CTX_free(ctx); }

Sha256Hasher::Sha256Hasher() : ctx_(EVP_MD_CTX_new()) {
  EVP_DigestInit_ex(ctx_.get(), EVP_sha256(), nullptr);
}
Sha256Hasher::~Sha256Hasher() = default;
Sha256Hasher::Sha256Hasher(Sha256Hasher&&) noexcept = default;
Sha256Hasher& Sha256Hasher::operator=(Sha256Hasher&&) noexcept = default;

void Sha256Hasher::Update(std::string_view data) {
  EVP_DigestUpdate(ctx_.get(), data.data(), data.size());
}

std::string Sha256Hasher::HexDigest() const {
  std::unique_ptr<EVP_MD_CTX, Deleter> copy(EVP_MD_CTX_new());
  EVP_MD_CTX_copy_ex(copy.get(), ctx_.get());
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  EVP_DigestFinal_ex(copy.get(), digest, &n);
  return Hex(digest, n);
}

std::string Sha256Hex(std::string_view data) {
  Sha256Hasher h;
  h.Update(data);
  return h.HexDigest();
}

std::string HmacSha256Hex(std::string_view key, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), out, &n);
  return Hex(out, n);
}

bool ConstantTimeEquals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace lakedump
