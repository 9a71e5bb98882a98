// Internal to the demo generator: table sizes shared by the fact and dimension
// writers, and the writers themselves. Each writer creates and fills one table
// inside the caller's transaction. Not thread-safe (one sqlite3 connection).
#pragma once

#include <sqlite3.h>

#include <cstdint>

#include "base/status.h"

namespace lakedump::demo {

struct DemoSizes {
  int64_t first_day;        // days since 1970 of date_key 1 (2003-01-01)
  int dates = 1826;         // 2003-01-01 .. 2007-12-31
  int products = 1000;      // each with product_versions versions
  int product_versions = 2;
  int stores = 250;
  int vendors = 100;
  int employees = 1000;
  int shipping = 100;
  int customers = 5000;
};

DemoSizes DefaultSizes();

// A seed for table number `table` derived from the user's seed.
inline uint64_t TableSeed(uint64_t seed, uint64_t table) {
  return seed * 0x9E3779B97F4A7C15ULL + table * 0xD1B54A32D192ED03ULL;
}

Status WriteDateDimension(sqlite3* db, uint64_t seed, const DemoSizes& sizes);
Status WriteProductDimension(sqlite3* db, uint64_t seed, const DemoSizes& sizes);
Status WriteStoreDimension(sqlite3* db, uint64_t seed, const DemoSizes& sizes);
Status WriteVendorDimension(sqlite3* db, uint64_t seed, const DemoSizes& sizes);
Status WriteEmployeeDimension(sqlite3* db, uint64_t seed, const DemoSizes& sizes);
Status WriteShippingDimension(sqlite3* db, uint64_t seed, const DemoSizes& sizes);
Status WriteCustomerDimension(sqlite3* db, uint64_t seed, const DemoSizes& sizes);

// Shared word lists (unicode on purpose).
extern const char* const kFirstNames[24];
extern const char* const kLastNames[24];
struct Place {
  const char* city;
  const char* state;
  const char* region;
};
extern const Place kPlaces[16];

}  // namespace lakedump::demo
