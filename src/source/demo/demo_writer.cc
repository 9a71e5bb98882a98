#include "source/demo/demo_writer.h"

#include <fmt/format.h>

#include "table/temporal.h"

namespace lakedump::demo {

Inserter::Inserter(sqlite3* db, std::string_view table, int columns) : db_(db) {
  std::string sql = fmt::format("INSERT INTO {} VALUES (", table);
  for (int i = 0; i < columns; ++i) sql += i ? ",?" : "?";
  sql += ")";
  auto st = Prepare(db, sql, table);
  if (st.ok()) {
    stmt_ = std::move(*st);
  } else {
    status_ = st.status();
  }
}

Inserter& Inserter::Check(int rc) {
  if (rc != SQLITE_OK && status_.ok()) status_ = SqliteStatus(db_, rc, "bind");
  return *this;
}

Status Inserter::Row() {
  LD_RETURN_IF_ERROR(status_);
  const int rc = sqlite3_step(stmt_.get());
  sqlite3_reset(stmt_.get());
  col_ = 0;
  if (rc != SQLITE_DONE) return SqliteStatus(db_, rc, "insert");
  return Status::OK();
}

namespace {
void Put2(char* p, unsigned v) {
  p[0] = static_cast<char>('0' + v / 10);
  p[1] = static_cast<char>('0' + v % 10);
}
void Put4(char* p, int64_t v) {
  Put2(p, static_cast<unsigned>(v / 100));
  Put2(p + 2, static_cast<unsigned>(v % 100));
}
}  // namespace

std::string_view FormatDay(int64_t days, char* buf) {
  const CivilDate c = CivilFromDays(days);
  Put4(buf, c.year);
  buf[4] = '-';
  Put2(buf + 5, c.month);
  buf[7] = '-';
  Put2(buf + 8, c.day);
  return std::string_view(buf, 10);
}

std::string_view FormatClock(int64_t s, char* buf) {
  Put2(buf, static_cast<unsigned>(s / 3600));
  buf[2] = ':';
  Put2(buf + 3, static_cast<unsigned>(s / 60 % 60));
  buf[5] = ':';
  Put2(buf + 6, static_cast<unsigned>(s % 60));
  return std::string_view(buf, 8);
}

std::string_view FormatSeconds(int64_t seconds, bool utc, char* buf) {
  int64_t days = seconds / 86400, rem = seconds % 86400;
  if (rem < 0) {
    rem += 86400;
    --days;
  }
  FormatDay(days, buf);
  buf[10] = utc ? 'T' : ' ';
  FormatClock(rem, buf + 11);
  if (!utc) return std::string_view(buf, 19);
  buf[19] = 'Z';
  return std::string_view(buf, 20);
}

void MakeUuid(Rng& rng, uint8_t out[16]) {
  const uint64_t a = rng.Next(), b = rng.Next();
  for (int i = 0; i < 8; ++i) {
    out[i] = static_cast<uint8_t>(a >> (56 - 8 * i));
    out[8 + i] = static_cast<uint8_t>(b >> (56 - 8 * i));
  }
  out[6] = static_cast<uint8_t>((out[6] & 0x0F) | 0x40);  // version 4
  out[8] = static_cast<uint8_t>((out[8] & 0x3F) | 0x80);  // RFC 4122 variant
}

std::string UuidText(const uint8_t u[16]) {
  std::string s;
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) s.push_back('-');
    s += fmt::format("{:02x}", u[i]);
  }
  return s;
}

}  // namespace lakedump::demo
