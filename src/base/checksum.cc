#include "base/checksum.h"

#include <xxhash.h>

#include <cstdlib>
#include <new>

namespace lakedump {

void Xxh64Hasher::StateDeleter::operator()(XXH64_state_s* state) const { XXH64_freeState(state); }

Xxh64Hasher::Xxh64Hasher() : state_(XXH64_createState()) {
  if (state_ == nullptr) throw std::bad_alloc();  // like any allocation
  Reset();
}

Xxh64Hasher::~Xxh64Hasher() = default;
Xxh64Hasher::Xxh64Hasher(Xxh64Hasher&&) noexcept = default;
Xxh64Hasher& Xxh64Hasher::operator=(Xxh64Hasher&&) noexcept = default;

void Xxh64Hasher::Reset() { XXH64_reset(state_.get(), 0); }

void Xxh64Hasher::Update(std::string_view data) {
  XXH64_update(state_.get(), data.data(), data.size());
}

uint64_t Xxh64Hasher::Digest() const { return XXH64_digest(state_.get()); }

std::string Xxh64Hasher::HexDigest() const { return FormatXxh64(Digest()); }

uint64_t Xxh64(std::string_view data) { return XXH64(data.data(), data.size(), 0); }

std::string Xxh64Hex(std::string_view data) { return FormatXxh64(Xxh64(data)); }

std::string FormatXxh64(uint64_t value) {
  static const char kHex[] = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i) {
    out[static_cast<size_t>(i)] = kHex[value & 0xf];
    value >>= 4;
  }
  return out;
}

Status ChecksumSink::Append(std::string_view data) {
  LD_RETURN_IF_ERROR(target_->Append(data));
  hasher_.Update(data);
  if (sha256_) sha256_->Update(data);
  section_hasher_.Update(data);
  bytes_hashed_ += data.size();
  return Status::OK();
}

void ChecksumSink::MarkSectionEnd() {
  closed_sections_.push_back(
      {section_start_, bytes_hashed_ - section_start_, section_hasher_.Digest()});
  section_hasher_ = Xxh64Hasher();
  section_start_ = bytes_hashed_;
  target_->MarkSectionEnd();
}

std::vector<SectionChecksum> ChecksumSink::sections() const {
  std::vector<SectionChecksum> out = closed_sections_;
  out.push_back({section_start_, bytes_hashed_ - section_start_, section_hasher_.Digest()});
  return out;
}

}  // namespace lakedump
