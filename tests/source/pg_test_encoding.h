// Test helpers: hand-made PostgreSQL binary values and COPY streams.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace lakedump::testing_pg {

inline void PutBe(std::string* out, uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

// numeric_send of a decimal literal like "-123.4500" (dscale = digits after the point).
inline std::string EncodeNumeric(std::string_view text) {
  std::string out;
  if (text == "NaN" || text == "Infinity" || text == "-Infinity") {
    PutBe(&out, 0, 2);
    PutBe(&out, 0, 2);
    PutBe(&out, text == "NaN" ? 0xC000 : text == "Infinity" ? 0xD000 : 0xF000, 2);
    PutBe(&out, 0, 2);
    return out;
  }
  bool neg = false;
  if (!text.empty() && text[0] == '-') {
    neg = true;
    text.remove_prefix(1);
  }
  const size_t dot = text.find('.');
  std::string ip(text.substr(0, dot));
  std::string fp(dot == std::string_view::npos ? "" : text.substr(dot + 1));
  const int dscale = static_cast<int>(fp.size());
  while (ip.size() % 4) ip.insert(ip.begin(), '0');
  while (fp.size() % 4) fp.push_back('0');
  std::vector<int> digits;
  for (size_t i = 0; i < ip.size(); i += 4) digits.push_back(std::stoi(ip.substr(i, 4)));
  for (size_t i = 0; i < fp.size(); i += 4) digits.push_back(std::stoi(fp.substr(i, 4)));
  int weight = static_cast<int>(ip.size() / 4) - 1;
  size_t first = 0;
  while (first < digits.size() && digits[first] == 0) {
    ++first;
    --weight;
  }
  digits.erase(digits.begin(), digits.begin() + first);
  while (!digits.empty() && digits.back() == 0) digits.pop_back();
  if (digits.empty()) {
    weight = 0;
    neg = false;
  }
  PutBe(&out, digits.size(), 2);
  PutBe(&out, static_cast<uint16_t>(weight), 2);
  PutBe(&out, neg ? 0x4000 : 0, 2);
  PutBe(&out, dscale, 2);
  for (int d : digits) PutBe(&out, d, 2);
  return out;
}

// A binary COPY stream builder.
class CopyStream {
 public:
  CopyStream() {
    bytes_.append("PGCOPY\n\377\r\n\0", 11);
    PutBe(&bytes_, 0, 4);  // flags
    PutBe(&bytes_, 0, 4);  // extension length
  }
  CopyStream& Row(int fields) {
    PutBe(&bytes_, static_cast<uint16_t>(fields), 2);
    return *this;
  }
  CopyStream& Null() {
    PutBe(&bytes_, 0xffffffffu, 4);
    return *this;
  }
  CopyStream& Field(std::string_view value) {
    PutBe(&bytes_, value.size(), 4);
    bytes_.append(value);
    return *this;
  }
  CopyStream& Int(uint64_t v, int bytes) {
    PutBe(&bytes_, bytes, 4);
    PutBe(&bytes_, v, bytes);
    return *this;
  }
  std::string Finish() {
    PutBe(&bytes_, 0xffff, 2);
    return bytes_;
  }

 private:
  std::string bytes_;
};

}  // namespace lakedump::testing_pg
