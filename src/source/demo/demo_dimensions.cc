// The VMart dimension tables. Column lists follow Vertica's VMart example
// schema, with declared types chosen so that, across the demo, every lakedump
// type appears (see the type notes at each table).
#include <fmt/format.h>

#include <cstring>
#include <limits>

#include "source/demo/demo_tables.h"
#include "source/demo/demo_writer.h"
#include "table/temporal.h"

namespace lakedump::demo {

const char* const kFirstNames[24] = {
    "James", "Mary",  "José",   "Zoë",   "Björn",  "Łukasz", "Ngọc",  "明",
    "Søren", "Aisha", "Olga",   "Chen",  "Fatima", "Liam",   "Emma",  "Noah",
    "Amélie", "Ravi", "Sakura", "Ömer",  "Inès",   "Dmitri", "Maya",  "Kwame"};
const char* const kLastNames[24] = {
    "Smith",  "Müller",   "García", "O'Brien", "Nguyễn", "Иванов", "李",      "Kowalski",
    "Jones",  "Brown",    "Rossi",  "Dubois",  "Tanaka", "Silva",  "Novák",  "Johansson",
    "Okafor", "Petrović", "Kim",    "Levi",    "Schmidt", "Patel", "Ferreira", "Walker"};
const Place kPlaces[16] = {
    {"Boston", "MA", "East"},       {"New York", "NY", "East"},
    {"Philadelphia", "PA", "East"}, {"Chicago", "IL", "MidWest"},
    {"Detroit", "MI", "MidWest"},   {"Minneapolis", "MN", "MidWest"},
    {"Atlanta", "GA", "South"},     {"Houston", "TX", "South"},
    {"Nashville", "TN", "South"},   {"Denver", "CO", "West"},
    {"Seattle", "WA", "West"},      {"San José", "CA", "West"},
    {"Portland", "OR", "NorthWest"}, {"Boise", "ID", "NorthWest"},
    {"Santa Fe", "NM", "SouthWest"}, {"Phoenix", "AZ", "SouthWest"}};

DemoSizes DefaultSizes() {
  DemoSizes s;
  s.first_day = DaysFromCivil(2003, 1, 1);
  return s;
}

namespace {

Status Exec(sqlite3* db, const char* sql) { return ExecSql(db, sql, "create demo table"); }

const char* const kMonths[12] = {"January", "February", "March",     "April",   "May",      "June",
                                 "July",    "August",   "September", "October", "November",
                                 "December"};
const char* const kWeekdays[7] = {"Thursday", "Friday", "Saturday", "Sunday",
                                  "Monday",   "Tuesday", "Wednesday"};  // 1970-01-01 was a Thursday

}  // namespace

// Types: int64 key, date, string, int8 (TINYINT), int16 (SMALLINT), bool.
Status WriteDateDimension(sqlite3* db, uint64_t seed, const DemoSizes& sizes) {
  LD_RETURN_IF_ERROR(Exec(db, R"(CREATE TABLE date_dimension (
    date_key INTEGER NOT NULL PRIMARY KEY,
    date DATE NOT NULL,
    full_date_description VARCHAR(18),
    day_of_week VARCHAR(9),
    day_number_in_calendar_month TINYINT,
    day_number_in_calendar_year SMALLINT,
    calendar_week_number_in_year TINYINT,
    calendar_month_name VARCHAR(9),
    calendar_month_number_in_year TINYINT,
    calendar_year_month CHAR(7),
    calendar_quarter TINYINT,
    calendar_year SMALLINT,
    holiday_indicator BOOLEAN,
    weekday_indicator BOOLEAN,
    selling_season VARCHAR(32)))"));
  Rng rng(TableSeed(seed, 1));
  Inserter ins(db, "date_dimension", 15);
  char day[10];
  for (int k = 1; k <= sizes.dates; ++k) {
    const int64_t d = sizes.first_day + k - 1;
    const CivilDate c = CivilFromDays(d);
    const int64_t doy = d - DaysFromCivil(c.year, 1, 1) + 1;
    const char* weekday = kWeekdays[((d % 7) + 7) % 7];
    const bool weekend = weekday[0] == 'S';
    const std::string desc = fmt::format("{} {}, {}", kMonths[c.month - 1], c.day, c.year);
    const std::string ym = fmt::format("{}-{:02}", c.year, c.month);
    const bool holiday = (c.month == 12 && c.day == 25) || (c.month == 1 && c.day == 1) ||
                         (c.month == 7 && c.day == 4) || rng.Percent(1);
    const char* season = c.month == 12 || c.month == 11 ? "Christmas"
                         : c.month >= 6 && c.month <= 8 ? "Summer"
                         : c.month == 9                 ? "Back to School"
                                                        : "None";
    ins.Int(k).Text(FormatDay(d, day)).Text(desc).Text(weekday).Int(c.day).Int(doy)
        .Int((doy - 1) / 7 + 1).Text(kMonths[c.month - 1]).Int(c.month).Text(ym)
        .Int((c.month - 1) / 3 + 1).Int(c.year).Int(holiday).Int(!weekend).Text(season);
    LD_RETURN_IF_ERROR(ins.Row());
  }
  return Status::OK();
}

// Types: float (FLOAT4 weight), decimal(10,2), bool, binary (BLOB), json.
Status WriteProductDimension(sqlite3* db, uint64_t seed, const DemoSizes& sizes) {
  LD_RETURN_IF_ERROR(Exec(db, R"(CREATE TABLE product_dimension (
    product_key INTEGER NOT NULL,
    product_version INTEGER NOT NULL,
    product_description VARCHAR(128),
    sku_number CHAR(32),
    category_description CHAR(32),
    department_description CHAR(32),
    package_type_description CHAR(32),
    package_size CHAR(32),
    fat_content SMALLINT,
    diet_type CHAR(32),
    weight FLOAT4,
    weight_units_of_measure CHAR(32),
    shelf_width SMALLINT,
    shelf_height SMALLINT,
    shelf_depth SMALLINT,
    product_price NUMERIC(10,2),
    product_cost NUMERIC(10,2),
    lowest_competitor_price NUMERIC(10,2),
    highest_competitor_price NUMERIC(10,2),
    average_competitor_price NUMERIC(10,2),
    discontinued_flag BOOLEAN,
    thumbnail_digest BLOB,
    attributes JSON,
    PRIMARY KEY (product_key, product_version)))"));
  static const char* const kCategory[] = {"Food", "Non-food", "Médical", "Misc"};
  static const char* const kDepartment[] = {"Dairy", "Bakery", "Meat", "Produce", "Frozen Goods",
                                            "Cleaning supplies", "Pharmacy", "Liquor", "Seafood",
                                            "Gifts"};
  static const char* const kPackage[] = {"Box", "Bottle", "Bag", "Jar", "Carton", "Tin"};
  static const char* const kSize[] = {"Small", "Medium", "Large", "Family", "18 oz", "1 kg"};
  static const char* const kDiet[] = {"N/A", "Low Fat", "Zero Fat", "Vegan", "Gluten-free"};
  static const char* const kAdjective[] = {"Crispy", "Organic", "Fresh", "Frozen", "Spicy",
                                           "Crème", "Smoked", "Sweet"};
  static const char* const kNoun[] = {"apples", "bagels", "cheese", "salmon", "soap", "tea",
                                      "brötchen", "noodles 面", "coffee", "yogurt"};
  Rng rng(TableSeed(seed, 2));
  Inserter ins(db, "product_dimension", 23);
  for (int p = 1; p <= sizes.products; ++p) {
    for (int v = 1; v <= sizes.product_versions; ++v) {
      const std::string desc = fmt::format("{} {}", rng.Pick(kAdjective), rng.Pick(kNoun));
      const std::string sku = fmt::format("SKU-#{}-{}", p, v);
      const int64_t cost = rng.Between(50, 50000);
      const int64_t price = cost + rng.Between(10, 20000);
      const int64_t low = price - rng.Between(0, price / 4);
      const int64_t high = price + rng.Between(0, price / 4);
      uint8_t digest[32];
      for (int i = 0; i < 4; ++i) {
        const uint64_t x = rng.Next();
        std::memcpy(digest + 8 * i, &x, 8);
      }
      const std::string attributes =
          fmt::format(R"({{"organic": {}, "rating": {}, "tags": ["{}", "v{}"]}})",
                      rng.Percent(30) ? "true" : "false", rng.Between(1, 5), rng.Pick(kSize), v);
      ins.Int(p).Int(v).Text(desc).Text(sku).Text(rng.Pick(kCategory)).Text(rng.Pick(kDepartment))
          .Text(rng.Pick(kPackage)).Text(rng.Pick(kSize)).Int(rng.Between(0, 100))
          .Text(rng.Pick(kDiet));
      if (!ins.MaybeNull(rng, 5)) ins.Real(static_cast<double>(rng.Between(1, 4000)) / 8.0);
      ins.Text(rng.Percent(50) ? "grams" : "ounces").Int(rng.Between(1, 60))
          .Int(rng.Between(1, 60)).Int(rng.Between(1, 60)).Cents(price).Cents(cost).Cents(low)
          .Cents(high).Cents((low + high) / 2).Int(rng.Percent(10));
      if (!ins.MaybeNull(rng, 3)) ins.Blob(digest, sizeof(digest));
      if (!ins.MaybeNull(rng, 10)) ins.Text(attributes);
      LD_RETURN_IF_ERROR(ins.Row());
    }
  }
  // Edge values: the largest float, a zero-length blob, nested unicode JSON.
  static const uint8_t kEmpty[1] = {0};
  ins.Int(sizes.products + 1).Int(1).Text("Ünïcödé ✓ 商品 🛒").Text("").Text("").Text("")
      .Text("").Text("").Int(-32768).Null().Real(std::numeric_limits<float>::max()).Null()
      .Int(32767).Int(0).Null().Cents(99999999).Cents(0).Null().Null().Null().Int(1)
      .Blob(kEmpty, 0).Text(R"({"名前": "テスト", "nested": {"a": [null, 1.5e300, "\u00e9"]}})");
  return ins.Row();
}

// Types: int32 (MEDIUMINT), date, time, decimal(38,2) (precision above 18).
Status WriteStoreDimension(sqlite3* db, uint64_t seed, const DemoSizes& sizes) {
  LD_RETURN_IF_ERROR(Exec(db, R"(CREATE TABLE store_dimension (
    store_key INTEGER NOT NULL PRIMARY KEY,
    store_name VARCHAR(64),
    store_number INTEGER,
    store_address VARCHAR(256),
    store_city VARCHAR(64),
    store_state CHAR(2),
    store_region VARCHAR(64),
    floor_plan_type VARCHAR(32),
    photo_processing_type VARCHAR(32),
    financial_service_type VARCHAR(32),
    selling_square_footage MEDIUMINT,
    total_square_footage MEDIUMINT,
    first_open_date DATE,
    last_remodel_date DATE,
    opening_time TIME,
    closing_time TIME,
    number_of_employees SMALLINT,
    annual_shrinkage NUMERIC(12,2),
    foot_traffic INTEGER,
    monthly_rent_cost NUMERIC(10,2),
    annual_revenue NUMERIC(38,2)))"));
  static const char* const kPlan[] = {"Plan A", "Plan B", "Plan C", "Plan D"};
  static const char* const kPhoto[] = {"1 Hour", "Same Day", "2-Day", "Self", "None"};
  static const char* const kFinance[] = {"Bank", "Check Cashing", "Money Orders", "None"};
  Rng rng(TableSeed(seed, 3));
  Inserter ins(db, "store_dimension", 21);
  char open_day[10], remodel_day[10], open_time[8], close_time[8];
  for (int k = 1; k <= sizes.stores; ++k) {
    const Place& place = rng.Pick(kPlaces);
    const std::string name = fmt::format("Store{}", k);
    const std::string address = fmt::format("{} {} Street", rng.Between(1, 9999),
                                            rng.Pick(kLastNames));
    const int64_t selling = rng.Between(1000, 90000);
    const int64_t opened = sizes.first_day - rng.Between(0, 20 * 365);
    ins.Int(k).Text(name).Int(k * 10).Text(address).Text(place.city).Text(place.state)
        .Text(place.region).Text(rng.Pick(kPlan)).Text(rng.Pick(kPhoto)).Text(rng.Pick(kFinance))
        .Int(selling).Int(selling + rng.Between(0, 20000)).Text(FormatDay(opened, open_day));
    if (!ins.MaybeNull(rng, 30)) ins.Text(FormatDay(opened + rng.Between(100, 3000), remodel_day));
    ins.Text(FormatClock(rng.Between(6, 10) * 3600 + rng.Below(4) * 900, open_time))
        .Text(FormatClock(rng.Between(17, 23) * 3600 + rng.Below(4) * 900, close_time))
        .Int(rng.Between(5, 300)).Cents(rng.Between(0, 5000000)).Int(rng.Between(100, 10000))
        .Cents(rng.Between(100000, 10000000))
        .Cents(static_cast<int64_t>(rng.Below(100000000000000ULL)));  // up to 15 digits
    LD_RETURN_IF_ERROR(ins.Row());
  }
  return Status::OK();
}

// Types: uuid stored as a 16-byte BLOB, timestamp.
Status WriteVendorDimension(sqlite3* db, uint64_t seed, const DemoSizes& sizes) {
  LD_RETURN_IF_ERROR(Exec(db, R"(CREATE TABLE vendor_dimension (
    vendor_key INTEGER NOT NULL PRIMARY KEY,
    vendor_uuid UUID NOT NULL,
    vendor_name VARCHAR(64),
    vendor_address VARCHAR(64),
    vendor_city VARCHAR(64),
    vendor_state CHAR(2),
    vendor_region VARCHAR(32),
    deal_size INTEGER,
    last_deal_update TIMESTAMP))"));
  static const char* const kSuffix[] = {"Inc", "Ltd", "GmbH", "S.A.", "& Söhne", "株式会社"};
  Rng rng(TableSeed(seed, 4));
  Inserter ins(db, "vendor_dimension", 9);
  char ts[20];
  for (int k = 1; k <= sizes.vendors; ++k) {
    uint8_t uuid[16];
    MakeUuid(rng, uuid);
    const Place& place = rng.Pick(kPlaces);
    const std::string name = fmt::format("{} {}", rng.Pick(kLastNames), rng.Pick(kSuffix));
    const std::string address = fmt::format("{} Industrial Way", rng.Between(1, 999));
    ins.Int(k).Blob(uuid, 16).Text(name).Text(address).Text(place.city).Text(place.state)
        .Text(place.region).Int(rng.Between(1000, 10000000));
    if (!ins.MaybeNull(rng, 5)) {
      ins.Text(FormatSeconds((sizes.first_day + rng.Between(0, sizes.dates)) * 86400 +
                                 rng.Between(0, 86399),
                             false, ts));
    }
    LD_RETURN_IF_ERROR(ins.Row());
  }
  return Status::OK();
}

// Types: int8, bool, decimal(12,2), double (DOUBLE PRECISION, edge values),
// timestamptz (ISO text with Z).
Status WriteEmployeeDimension(sqlite3* db, uint64_t seed, const DemoSizes& sizes) {
  LD_RETURN_IF_ERROR(Exec(db, R"(CREATE TABLE employee_dimension (
    employee_key INTEGER NOT NULL PRIMARY KEY,
    employee_gender VARCHAR(8),
    courtesy_title VARCHAR(8),
    employee_first_name VARCHAR(64),
    employee_middle_initial VARCHAR(8),
    employee_last_name VARCHAR(64),
    employee_age TINYINT,
    hire_date DATE,
    employee_street_address VARCHAR(256),
    employee_city VARCHAR(64),
    employee_state CHAR(2),
    employee_region CHAR(32),
    job_title VARCHAR(64),
    reports_to INTEGER,
    salaried_flag BOOLEAN,
    annual_salary NUMERIC(12,2),
    hourly_rate DOUBLE PRECISION,
    vacation_days SMALLINT,
    last_badge_scan TIMESTAMP WITH TIME ZONE))"));
  static const char* const kJobs[] = {"Cashier", "Stocker", "Shift Manager", "Greeter",
                                      "Head of Marketing", "Regional Manager", "Delivery person"};
  Rng rng(TableSeed(seed, 5));
  Inserter ins(db, "employee_dimension", 19);
  char hire[10], scan[20];
  for (int k = 1; k <= sizes.employees; ++k) {
    const bool female = rng.Percent(50);
    const Place& place = rng.Pick(kPlaces);
    const std::string address = fmt::format("{} {} Ave", rng.Between(1, 9999), rng.Pick(kLastNames));
    const char initial[2] = {static_cast<char>('A' + rng.Below(26)), 0};
    const bool salaried = rng.Percent(40);
    ins.Int(k).Text(female ? "Female" : "Male").Text(female ? "Ms." : "Mr.")
        .Text(rng.Pick(kFirstNames));
    if (!ins.MaybeNull(rng, 20)) ins.Text(initial);
    ins.Text(rng.Pick(kLastNames)).Int(rng.Between(18, 70))
        .Text(FormatDay(sizes.first_day - rng.Between(0, 7000), hire)).Text(address)
        .Text(place.city).Text(place.state).Text(place.region).Text(rng.Pick(kJobs));
    if (k == 1 || !rng.Percent(95)) {
      ins.Null();
    } else {
      ins.Int(rng.Between(1, k - 1));
    }
    ins.Int(salaried);
    if (salaried) {
      ins.Cents(rng.Between(3000000, 25000000)).Null();
    } else {
      ins.Null().Real(static_cast<double>(rng.Between(1000, 6000)) / 100.0 + 0.001);
    }
    ins.Int(rng.Between(0, 30));
    if (!ins.MaybeNull(rng, 10)) {
      ins.Text(FormatSeconds((sizes.first_day + sizes.dates) * 86400 - rng.Between(0, 86400 * 365),
                             true, scan));
    }
    LD_RETURN_IF_ERROR(ins.Row());
  }
  // Edge values for doubles and timestamps with offsets.
  const double edge_rates[] = {-0.0, 5e-324, 1.7976931348623157e308};
  const char* const edge_scans[] = {"1900-01-01T00:00:00Z", "2099-12-31T23:59:59.999999+14:00",
                                    "1970-01-01 00:00:00.5-08:00"};
  for (int i = 0; i < 3; ++i) {
    ins.Int(sizes.employees + 1 + i).Null().Null().Text("Edge").Null().Text(kLastNames[i])
        .Int(i == 0 ? -128 : 127).Text(i == 0 ? "1900-01-01" : "2099-12-31").Text("")
        .Null().Null().Null().Null().Null().Int(0).Null().Real(edge_rates[i]).Int(i == 0 ? -32768 : 0)
        .Text(edge_scans[i]);
    LD_RETURN_IF_ERROR(ins.Row());
  }
  return Status::OK();
}

// Types: string (CHAR), time.
Status WriteShippingDimension(sqlite3* db, uint64_t seed, const DemoSizes& sizes) {
  LD_RETURN_IF_ERROR(Exec(db, R"(CREATE TABLE shipping_dimension (
    shipping_key INTEGER NOT NULL PRIMARY KEY,
    ship_type CHAR(30),
    ship_mode CHAR(10),
    ship_carrier CHAR(20),
    cutoff_time TIME))"));
  static const char* const kTypes[] = {"EXPRESS", "REGULAR", "OVERNIGHT", "TWO DAY", "LIBRARY"};
  static const char* const kModes[] = {"AIR", "SURFACE", "SEA", "BIKE"};
  static const char* const kCarriers[] = {"UPS", "FedEx", "DHL", "USPS", "ZHOU", "Poste Italiane"};
  Rng rng(TableSeed(seed, 6));
  Inserter ins(db, "shipping_dimension", 5);
  char cutoff[8];
  for (int k = 1; k <= sizes.shipping; ++k) {
    ins.Int(k).Text(kTypes[k % 5]).Text(kModes[(k / 5) % 4]).Text(rng.Pick(kCarriers))
        .Text(FormatClock(rng.Between(12, 20) * 3600 + rng.Below(60) * 60, cutoff));
    LD_RETURN_IF_ERROR(ins.Row());
  }
  return Status::OK();
}

}  // namespace lakedump::demo
