#include "source/demo/demo_database.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <memory>

#include "source/demo/demo_tables.h"
#include "source/demo/demo_writer.h"

namespace lakedump {
namespace demo {
namespace {

struct DbCloser {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};

// store_orders_fact, the table of the Vertica EXPORT TO PARQUET experiment:
// VMart's 19 columns; money is NUMERIC(p,2) here where VMart has int.
Status WriteStoreOrdersFact(sqlite3* db, uint64_t seed, const DemoSizes& sizes, uint64_t rows) {
  LD_RETURN_IF_ERROR(ExecSql(db, R"(CREATE TABLE store_orders_fact (
    product_key INTEGER NOT NULL,
    product_version INTEGER NOT NULL,
    store_key INTEGER NOT NULL,
    vendor_key INTEGER NOT NULL,
    employee_key INTEGER NOT NULL,
    order_number INTEGER NOT NULL,
    date_ordered DATE,
    date_shipped DATE,
    expected_delivery_date DATE,
    date_delivered DATE,
    quantity_ordered INTEGER,
    quantity_delivered INTEGER,
    shipper_name VARCHAR(32),
    unit_price NUMERIC(10,2),
    shipping_cost NUMERIC(10,2),
    total_order_cost NUMERIC(12,2),
    quantity_in_stock INTEGER,
    reorder_level INTEGER,
    overstock_ceiling INTEGER))",
                             "create store_orders_fact"));
  static const char* const kShippers[] = {"Amplify Shipping", "Delta Freight",  "Überführung GmbH",
                                          "Société Express",  "東京運輸",         "Speedy Parcel",
                                          "Northwind Traders", "Łódź Logistyka"};
  Rng rng(TableSeed(seed, 8));
  Inserter ins(db, "store_orders_fact", 19);
  char ordered_s[10], shipped_s[10], expected_s[10], delivered_s[10];
  for (uint64_t i = 0; i < rows; ++i) {
    const int64_t ordered = sizes.first_day + rng.Between(0, sizes.dates - 31);
    const bool shipped = !rng.Percent(3);
    const int64_t ship_day = ordered + rng.Between(0, 5);
    const bool delivered = shipped && !rng.Percent(5);
    const int64_t qty = rng.Between(1, 500);
    const int64_t unit = rng.Between(50, 99999);
    const int64_t shipping = rng.Between(0, 20000);
    const int64_t reorder = rng.Between(10, 500);
    ins.Int(rng.Between(1, sizes.products)).Int(rng.Between(1, sizes.product_versions))
        .Int(rng.Between(1, sizes.stores)).Int(rng.Between(1, sizes.vendors))
        .Int(rng.Between(1, sizes.employees)).Int(static_cast<int64_t>(i) + 1)
        .Text(FormatDay(ordered, ordered_s));
    if (shipped) {
      ins.Text(FormatDay(ship_day, shipped_s));
    } else {
      ins.Null();
    }
    ins.Text(FormatDay(ordered + rng.Between(3, 10), expected_s));
    if (delivered) {
      ins.Text(FormatDay(ship_day + rng.Between(1, 10), delivered_s));
    } else {
      ins.Null();
    }
    ins.Int(qty);
    if (delivered) {
      ins.Int(qty - rng.Between(0, qty / 10));
    } else {
      ins.Null();
    }
    if (!ins.MaybeNull(rng, 2)) ins.Text(rng.Pick(kShippers));
    ins.Cents(unit).Cents(shipping).Cents(qty * unit + shipping).Int(rng.Between(0, 10000))
        .Int(reorder).Int(reorder + rng.Between(500, 5000));
    LD_RETURN_IF_ERROR(ins.Row());
  }
  return Status::OK();
}

Status WriteSmallTables(sqlite3* db, uint64_t seed, int count) {
  static const char* const kWords[] = {"alpha", "beta", "gamma", "delta", "épsilon", "ζήτα"};
  Rng rng(TableSeed(seed, 9));
  char day[10];
  for (int t = 0; t < count; ++t) {
    const std::string name = fmt::format("small_table_{:04}", t);
    LD_RETURN_IF_ERROR(ExecSql(db,
                               fmt::format("CREATE TABLE {} (id INTEGER PRIMARY KEY, name "
                                           "VARCHAR(32), amount NUMERIC(10,2), created DATE, "
                                           "active BOOLEAN)",
                                           name)
                                   .c_str(),
                               name));
    Inserter ins(db, name, 5);
    for (int r = 1; r <= 100; ++r) {
      ins.Int(r).Text(rng.Pick(kWords)).Cents(rng.Between(-100000, 100000));
      if (!ins.MaybeNull(rng, 5)) ins.Text(FormatDay(rng.Between(10000, 20000), day));
      ins.Int(rng.Percent(50));
      LD_RETURN_IF_ERROR(ins.Row());
    }
  }
  return Status::OK();
}

// big_table: for the 10M-row benchmark; built for insertion speed.
Status WriteBigTable(sqlite3* db, uint64_t seed, uint64_t rows) {
  LD_RETURN_IF_ERROR(ExecSql(db,
                             "CREATE TABLE big_table (id INTEGER PRIMARY KEY, a BIGINT, b BIGINT, "
                             "x DOUBLE, y DOUBLE, s1 VARCHAR(32), s2 VARCHAR(64), d DATE, "
                             "ts TIMESTAMP)",
                             "create big_table"));
  static const char* const kWords[] = {"lorem", "ipsum", "dolor", "sit", "amet", "consectetur",
                                       "adipiscing", "elit", "sed", "do", "eiusmod", "tempor"};
  Rng rng(TableSeed(seed, 10));
  Inserter ins(db, "big_table", 9);
  char s1[32], s2[64], day[10], ts[20];
  const int64_t base_day = 12000;  // 2002-11-09
  for (uint64_t i = 1; i <= rows; ++i) {
    const uint64_t r = rng.Next();
    // One 64-bit draw feeds the NULL decisions (3 in 64, ~5% each) and small choices.
    auto null_at = [r](int bit) { return ((r >> bit) & 63) < 3; };
    ins.Int(static_cast<int64_t>(i));
    if (null_at(0)) ins.Null(); else ins.Int(static_cast<int64_t>(rng.Next() >> 20));
    if (null_at(6)) ins.Null(); else ins.Int(static_cast<int64_t>(r >> 40) - (1 << 23));
    if (null_at(12)) ins.Null(); else ins.Real(static_cast<double>(rng.Next() >> 11) * 0x1p-40);
    if (null_at(18)) ins.Null(); else ins.Real(static_cast<double>(r >> 44) / 16.0);
    if (null_at(24)) {
      ins.Null();
    } else {
      const int n = std::snprintf(s1, sizeof(s1), "%s-%llu", kWords[(r >> 25) % 12],
                                  static_cast<unsigned long long>(i % 100000));
      ins.Text(std::string_view(s1, static_cast<size_t>(n)));
    }
    if (null_at(30)) {
      ins.Null();
    } else {
      const int n = std::snprintf(s2, sizeof(s2), "%s %s %s %llu", kWords[(r >> 35) % 12],
                                  kWords[(r >> 39) % 12], kWords[(r >> 43) % 12],
                                  static_cast<unsigned long long>(r >> 48));
      ins.Text(std::string_view(s2, static_cast<size_t>(n)));
    }
    if (null_at(36)) ins.Null(); else ins.Text(FormatDay(base_day + static_cast<int64_t>((r >> 8) % 8000), day));
    if (null_at(42)) {
      ins.Null();
    } else {
      ins.Text(FormatSeconds(base_day * 86400LL + static_cast<int64_t>((r >> 16) % (8000LL * 86400)),
                             false, ts));
    }
    LD_RETURN_IF_ERROR(ins.Row());
  }
  return Status::OK();
}

Status Fill(sqlite3* db, const DemoOptions& o) {
  // Built in one transaction without a journal: a failure discards the temp file anyway.
  LD_RETURN_IF_ERROR(ExecSql(db,
                             "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; "
                             "PRAGMA locking_mode=EXCLUSIVE; PRAGMA cache_size=-65536; BEGIN",
                             "set up demo database"));
  const DemoSizes sizes = DefaultSizes();
  LD_RETURN_IF_ERROR(WriteDateDimension(db, o.seed, sizes));
  LD_RETURN_IF_ERROR(WriteProductDimension(db, o.seed, sizes));
  LD_RETURN_IF_ERROR(WriteStoreDimension(db, o.seed, sizes));
  LD_RETURN_IF_ERROR(WriteVendorDimension(db, o.seed, sizes));
  LD_RETURN_IF_ERROR(WriteEmployeeDimension(db, o.seed, sizes));
  LD_RETURN_IF_ERROR(WriteShippingDimension(db, o.seed, sizes));
  LD_RETURN_IF_ERROR(WriteCustomerDimension(db, o.seed, sizes));
  LD_RETURN_IF_ERROR(WriteStoreOrdersFact(db, o.seed, sizes, o.rows));
  LD_RETURN_IF_ERROR(WriteSmallTables(db, o.seed, o.small_tables));
  if (o.big_rows > 0) LD_RETURN_IF_ERROR(WriteBigTable(db, o.seed, o.big_rows));
  return ExecSql(db, "COMMIT", "commit demo database");
}

}  // namespace
}  // namespace demo

Status CreateDemoDatabase(const std::string& path, const DemoOptions& options) {
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && !options.overwrite) {
    return Status::AlreadyExists(
        fmt::format("{} already exists; remove it or pass --overwrite to replace it", path));
  }
  if (options.small_tables < 0 || options.small_tables > 100000) {
    return Status::InvalidArgument("small_tables must be between 0 and 100000");
  }
  const std::string tmp = fmt::format("{}.tmp-{}", path, ::getpid());
  std::remove(tmp.c_str());
  sqlite3* raw = nullptr;
  int rc = sqlite3_open_v2(tmp.c_str(), &raw,
                           SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  std::unique_ptr<sqlite3, demo::DbCloser> db(raw);
  if (rc != SQLITE_OK) {
    Status s = Status::IOError(fmt::format("cannot create {}: {}", tmp,
                                           raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc)));
    db.reset();
    std::remove(tmp.c_str());
    return s;
  }
  Status s = demo::Fill(db.get(), options).WithContext(path);
  db.reset();
  if (!s.ok()) {
    std::remove(tmp.c_str());
    return s;
  }
  // A stale WAL or journal next to the old file would be replayed into the new one.
  for (const char* suffix : {"-wal", "-shm", "-journal"}) std::remove((path + suffix).c_str());
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return Status::IOError(fmt::format("cannot rename {} to {}", tmp, path));
  }
  return Status::OK();
}

}  // namespace lakedump
