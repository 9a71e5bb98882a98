// Building blocks of the demo database generator: a deterministic PRNG
// (splitmix64), an INSERT statement wrapper that binds values positionally,
// and allocation-free formatting of dates and timestamps. Not thread-safe.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"
#include "source/sqlite/sqlite_connection.h"

namespace lakedump::demo {

// splitmix64: tiny, fast, identical everywhere.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  // 0..n-1 (n > 0).
  uint64_t Below(uint64_t n) { return Next() % n; }
  int64_t Between(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(Below(static_cast<uint64_t>(hi - lo + 1)));
  }
  bool Percent(int p) { return Below(100) < static_cast<uint64_t>(p); }
  template <typename T, size_t N>
  const T& Pick(const T (&items)[N]) {
    return items[Below(N)];
  }

 private:
  uint64_t state_;
};

// One prepared INSERT; Bind* take 1-based positions in order via a cursor.
class Inserter {
 public:
  Inserter(sqlite3* db, std::string_view table, int columns);
  Status status() const { return status_; }

  Inserter& Int(int64_t v) { return Check(sqlite3_bind_int64(stmt_.get(), ++col_, v)); }
  Inserter& Real(double v) { return Check(sqlite3_bind_double(stmt_.get(), ++col_, v)); }
  // The bytes must stay alive until Row() returns.
  Inserter& Text(std::string_view v) {
    return Check(sqlite3_bind_text(stmt_.get(), ++col_, v.data(), static_cast<int>(v.size()),
                                   SQLITE_STATIC));
  }
  Inserter& Blob(const void* p, size_t n) {
    return Check(sqlite3_bind_blob(stmt_.get(), ++col_, p, static_cast<int>(n), SQLITE_STATIC));
  }
  Inserter& Null() { return Check(sqlite3_bind_null(stmt_.get(), ++col_)); }
  // Money: cents as a REAL with two decimals (what NUMERIC affinity stores).
  Inserter& Cents(int64_t cents) { return Real(static_cast<double>(cents) / 100.0); }
  // NULL with probability pct, else nothing bound yet: returns true when NULL was bound.
  bool MaybeNull(Rng& rng, int pct) {
    if (!rng.Percent(pct)) return false;
    Null();
    return true;
  }
  // Executes the bound row and resets the cursor.
  Status Row();

 private:
  Inserter& Check(int rc);

  sqlite3* db_;
  SqliteStmt stmt_;
  int col_ = 0;
  Status status_;
};

// Days since 1970-01-01 -> "YYYY-MM-DD" in buf[10] (years 0..9999).
std::string_view FormatDay(int64_t days, char* buf);
// Seconds since 1970 -> "YYYY-MM-DD HH:MM:SS" (sep ' ') or with 'T' and a
// trailing 'Z' when utc; buf needs 20 bytes.
std::string_view FormatSeconds(int64_t seconds, bool utc, char* buf);
// Seconds since midnight -> "HH:MM:SS" in buf[8].
std::string_view FormatClock(int64_t seconds, char* buf);
// Random-looking but deterministic UUID (version 4 bits set) from the rng.
void MakeUuid(Rng& rng, uint8_t out[16]);
std::string UuidText(const uint8_t u[16]);

}  // namespace lakedump::demo
