#include "source/postgres/pg_numeric.h"

#include <gtest/gtest.h>

#include <cmath>

#include "source/pg_test_encoding.h"
#include "table/temporal.h"

namespace lakedump {
namespace {

using testing_pg::EncodeNumeric;

PgNumericView View(const std::string& bytes) {
  PgNumericView v;
  EXPECT_TRUE(ParsePgNumeric(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), &v).ok());
  return v;
}

std::string Text(const std::string& literal) {
  const std::string bytes = EncodeNumeric(literal);
  std::string out;
  PgNumericToString(View(bytes), &out);
  return out;
}

TEST(PgNumericTest, PrintsLikeNumericOut) {
  for (const char* s :
       {"0", "0.00", "1", "-1.5", "12345678.9", "100000000", "-0.0001", "0.00000000000000000001",
        "99999999999999999999999999999999999999", "-1234567890123456789012345678.1234567890",
        "10000.0001", "0.1000", "123456789012345678901234567890123456789012345.67"}) {
    EXPECT_EQ(Text(s), s);
  }
  EXPECT_EQ(Text("NaN"), "NaN");
  EXPECT_EQ(Text("Infinity"), "Infinity");
  EXPECT_EQ(Text("-Infinity"), "-Infinity");
}

int128_t Dec(const std::string& literal, int p, int s, bool round, Status* status = nullptr) {
  const std::string bytes = EncodeNumeric(literal);
  int128_t out = 0;
  Status st = PgNumericToDecimal(View(bytes), p, s, round, &out);
  if (status) *status = st;
  else EXPECT_TRUE(st.ok()) << literal << ": " << st.ToString();
  return out;
}

TEST(PgNumericTest, ConvertsToUnscaledDecimal) {
  EXPECT_EQ(FormatDecimal(Dec("-1234567890123456789012345678.1234567890", 38, 10, false), 10),
            "-1234567890123456789012345678.1234567890");
  EXPECT_EQ(FormatDecimal(Dec("12.5", 12, 2, false), 2), "12.50");
  EXPECT_EQ(FormatDecimal(Dec("0", 12, 2, false), 2), "0.00");
  EXPECT_EQ(FormatDecimal(Dec("100000000", 12, 2, false), 2), "100000000.00");
  EXPECT_EQ(FormatDecimal(Dec("0.00000000000000000001", 38, 20, false), 20),
            "0.00000000000000000001");
  EXPECT_EQ(FormatDecimal(Dec("99999999999999999999999999999999999999", 38, 0, false), 0),
            "99999999999999999999999999999999999999");
  EXPECT_EQ(FormatDecimal(Dec("-0.0001", 5, 4, false), 4), "-0.0001");
  EXPECT_EQ(FormatDecimal(Dec("98765.4321", 9, 4, false), 4), "98765.4321");
  EXPECT_EQ(FormatDecimal(Dec("12300", 5, 0, false), 0), "12300");  // numeric(3,-2) -> decimal(5,0)
}

TEST(PgNumericTest, RoundsHalfAwayFromZeroOrFails) {
  EXPECT_EQ(FormatDecimal(Dec("0.0009", 38, 3, true), 3), "0.001");
  EXPECT_EQ(FormatDecimal(Dec("123.45", 38, 1, true), 1), "123.5");
  EXPECT_EQ(FormatDecimal(Dec("-0.05", 38, 1, true), 1), "-0.1");
  EXPECT_EQ(FormatDecimal(Dec("0.04999", 38, 1, true), 1), "0.0");
  EXPECT_EQ(FormatDecimal(Dec("0.00005", 38, 4, true), 4), "0.0001");   // digit group boundary
  EXPECT_EQ(FormatDecimal(Dec("0.00004", 38, 4, true), 4), "0.0000");
  EXPECT_EQ(FormatDecimal(Dec("1.00000001", 38, 4, true), 4), "1.0000");  // whole group dropped
  EXPECT_EQ(FormatDecimal(Dec("0.000000001", 38, 4, true), 4), "0.0000");
  Status s;
  Dec("0.0009", 38, 3, false, &s);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("fraction digits"), std::string::npos);
}

TEST(PgNumericTest, FailsOnOverflow) {
  Status s;
  Dec("100000000000", 12, 2, false, &s);  // 13 digits at scale 2 > 12
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  Dec("1000000000000000000000000000000000000000", 38, 0, false, &s);  // 40 digits
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  Dec("1" + std::string(60, '0'), 38, 0, false, &s);  // overflows int128 during accumulation
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  Dec("9999999999999999999999999999.99999999995", 38, 10, true, &s);  // rounds up to 39 digits
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
}

TEST(PgNumericTest, ConvertsToDouble) {
  EXPECT_EQ(PgNumericToDouble(View(EncodeNumeric("-12.25"))), -12.25);
  EXPECT_EQ(PgNumericToDouble(View(EncodeNumeric("0.1"))), 0.1);
  EXPECT_TRUE(std::isnan(PgNumericToDouble(View(EncodeNumeric("NaN")))));
  EXPECT_EQ(PgNumericToDouble(View(EncodeNumeric("-Infinity"))), -INFINITY);
}

TEST(PgNumericTest, RejectsMalformedBytes) {
  PgNumericView v;
  const uint8_t short_buf[4] = {0, 1, 0, 0};
  EXPECT_EQ(ParsePgNumeric(short_buf, 4, &v).code(), Code::kCorruption);
  std::string bytes = EncodeNumeric("12.5");
  EXPECT_EQ(ParsePgNumeric(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size() - 1, &v)
                .code(),
            Code::kCorruption);
  bytes[4] = 0x12;  // bad sign
  EXPECT_EQ(ParsePgNumeric(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), &v)
                .code(),
            Code::kCorruption);
}

}  // namespace
}  // namespace lakedump
