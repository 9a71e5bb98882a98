// customer_dimension: the widest dimension, with UUIDs as text, JSON
// preferences, timestamptz logins, NULLs, unicode names and edge rows.
#include <fmt/format.h>

#include "source/demo/demo_tables.h"
#include "source/demo/demo_writer.h"

namespace lakedump::demo {
namespace {

Status CreateCustomerTable(sqlite3* db) {
  return ExecSql(db, R"(CREATE TABLE customer_dimension (
    customer_key INTEGER NOT NULL PRIMARY KEY,
    customer_uuid UUID NOT NULL,
    customer_type VARCHAR(16),
    customer_name VARCHAR(256),
    customer_gender VARCHAR(8),
    title VARCHAR(8),
    household_id INTEGER,
    customer_address VARCHAR(256),
    customer_city VARCHAR(64),
    customer_state CHAR(2),
    customer_region VARCHAR(64),
    marital_status VARCHAR(32),
    customer_age SMALLINT,
    number_of_children TINYINT,
    annual_income BIGINT,
    occupation VARCHAR(64),
    largest_bill_amount NUMERIC(10,2),
    store_membership_card BOOLEAN,
    customer_since DATE,
    deal_stage VARCHAR(32),
    deal_size INTEGER,
    last_deal_update DATE,
    last_login TIMESTAMPTZ,
    preferences JSON))",
                             "create demo table");
}

// One random customer. Row() is called here: the values' bytes must live until it returns.
Status InsertRandomCustomer(Inserter& ins, Rng& rng, const DemoSizes& sizes, int k) {
  static const char* const kMarital[] = {"Single", "Married", "Divorced", "Widowed", "Unknown"};
  static const char* const kOccupation[] = {"Chef", "Engineer", "Teacher", "Nurse", "Farmer",
                                            "Artist", "Lawyer", "Student", "Retired", "Pilot"};
  static const char* const kStages[] = {"Prospect", "Qualified", "Proposal", "Closed Won",
                                        "Closed Lost"};
  static const char* const kChannels[] = {"email", "sms", "post", "none"};
  char since[10], update[10], login[20];
  uint8_t uuid[16];
  MakeUuid(rng, uuid);
  const std::string uuid_text = UuidText(uuid);
  const bool company = rng.Percent(20);
  const bool female = rng.Percent(50);
  const Place& place = rng.Pick(kPlaces);
  const std::string name =
      company ? fmt::format("{} & {} Co.", rng.Pick(kLastNames), rng.Pick(kLastNames))
              : fmt::format("{} {}", rng.Pick(kFirstNames), rng.Pick(kLastNames));
  const std::string address = fmt::format("{} {} Rd", rng.Between(1, 9999), rng.Pick(kLastNames));
  const int64_t first = sizes.first_day - rng.Between(0, 3650);
  const std::string prefs = fmt::format(R"({{"newsletter": {}, "channel": "{}", "score": {}}})",
                                        rng.Percent(40) ? "true" : "false", rng.Pick(kChannels),
                                        rng.Between(0, 1000));
  ins.Int(k).Text(uuid_text).Text(company ? "Company" : "Individual").Text(name);
  if (company) {
    ins.Null().Null();
  } else {
    ins.Text(female ? "Female" : "Male").Text(female ? "Mrs." : "Mr.");
  }
  ins.Int(rng.Between(1, sizes.customers / 2)).Text(address).Text(place.city).Text(place.state)
      .Text(place.region);
  if (company) {
    ins.Null().Null().Null();
  } else {
    ins.Text(rng.Pick(kMarital)).Int(rng.Between(18, 90)).Int(rng.Between(0, 5));
  }
  ins.Int(rng.Between(10000, 900000)).Text(rng.Pick(kOccupation))
      .Cents(rng.Between(100, 9999999)).Int(rng.Percent(60)).Text(FormatDay(first, since));
  if (rng.Percent(30)) {
    ins.Null().Null().Null();
  } else {
    ins.Text(rng.Pick(kStages)).Int(rng.Between(100, 100000))
        .Text(FormatDay(first + rng.Between(0, 3000), update));
  }
  if (!ins.MaybeNull(rng, 15)) {
    ins.Text(FormatSeconds((sizes.first_day + sizes.dates) * 86400 - rng.Between(0, 86400 * 700),
                           true, login));
  }
  if (!ins.MaybeNull(rng, 10)) ins.Text(prefs);
  return ins.Row();
}

// Edge rows: extreme dates and integers, every nullable column NULL, empty
// strings, a name in several scripts, an upper-case braced UUID.
Status InsertEdgeCustomers(Inserter& ins, const DemoSizes& sizes) {
  ins.Int(sizes.customers + 1).Text("{FFFFFFFF-FFFF-4FFF-BFFF-FFFFFFFFFFFF}").Text("Individual")
      .Text("Zoë Ångström-Øster 李小龍 Иван 🙂\u0301").Text("").Text("").Int(0)
      .Text("1 Rue de l'Église").Text("Montréal").Text("QC").Text("Canada").Text("Single")
      .Int(32767).Int(127).Int(9223372036854775807LL).Text("").Cents(99999999).Int(0)
      .Text("0001-01-01").Text("").Int(-2147483648LL).Text("9999-12-31")
      .Text("1900-01-01T00:00:00Z").Text(R"({"emoji": "🙂", "empty": {}, "list": []})");
  LD_RETURN_IF_ERROR(ins.Row());
  ins.Int(sizes.customers + 2).Text("00000000-0000-0000-0000-000000000000").Null().Null().Null()
      .Null().Null().Null().Null().Null().Null().Null().Int(-32768).Int(-128)
      .Int(-9223372036854775807LL - 1).Null().Cents(-99999999).Null().Null().Null().Null().Null()
      .Null().Null();
  return ins.Row();
}

}  // namespace

Status WriteCustomerDimension(sqlite3* db, uint64_t seed, const DemoSizes& sizes) {
  LD_RETURN_IF_ERROR(CreateCustomerTable(db));
  Rng rng(TableSeed(seed, 7));
  Inserter ins(db, "customer_dimension", 24);
  for (int k = 1; k <= sizes.customers; ++k) {
    LD_RETURN_IF_ERROR(InsertRandomCustomer(ins, rng, sizes, k));
  }
  return InsertEdgeCustomers(ins, sizes);
}

}  // namespace lakedump::demo
