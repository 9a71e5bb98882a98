// PgCopyEncoder: golden bytes per type, and the round trip through the
// source's PgCopyDecoder (its inverse).
#include "load/postgres/pg_copy_encoder.h"

#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "load/postgres/postgres_target.h"
#include "source/pg_test_encoding.h"
#include "source/postgres/pg_copy_decoder.h"
#include "table/temporal.h"

namespace lakedump {
namespace {

using testing_pg::CopyStream;
using testing_pg::EncodeNumeric;
using testing_pg::PutBe;

std::string Be(uint64_t v, int bytes) {
  std::string out;
  PutBe(&out, v, bytes);
  return out;
}

// The bytes of one single-column row holding `col`'s value 0 encoded as `enc`.
std::string EncodeOne(ColumnVector col, PgEncoding enc) {
  Schema schema({Column{"c", col.type(), true, ""}});
  RowBatch batch(schema);
  batch.column(0) = std::move(col);
  PgCopyEncoder encoder("s.t", {PgEncodeField{"c", "x", enc}});
  std::string out;
  size_t row = 0;
  Status s = encoder.Encode(batch, &row, &out, SIZE_MAX);
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(out.substr(0, 2), Be(1, 2));
  return out.substr(2);
}

template <typename T>
ColumnVector Fixed(TypeId id, T v) {
  ColumnVector c(LogicalType::Of(id), true);
  c.Append(v);
  return c;
}
ColumnVector Bytes(TypeId id, std::string_view v) {
  ColumnVector c(LogicalType::Of(id), true);
  c.AppendBytes(v);
  return c;
}
ColumnVector Dec(int p, int s, int128_t v) {
  ColumnVector c(LogicalType::Decimal(p, s), true);
  c.Append(v);
  return c;
}

TEST(PgCopyEncoderTest, HeaderAndTrailer) {
  PgCopyEncoder encoder("s.t", {});
  std::string out;
  encoder.Begin(&out);
  encoder.End(&out);
  EXPECT_EQ(out, CopyStream().Finish());
}

TEST(PgCopyEncoderTest, FixedWidthGoldenBytes) {
  EXPECT_EQ(EncodeOne(Fixed<uint8_t>(TypeId::kBool, 1), PgEncoding::kBool), Be(1, 4) + "\x01");
  EXPECT_EQ(EncodeOne(Fixed<int64_t>(TypeId::kInt64, -2), PgEncoding::kInt2),
            Be(2, 4) + Be(0xfffe, 2));
  EXPECT_EQ(EncodeOne(Fixed<int16_t>(TypeId::kInt16, 0x1234), PgEncoding::kInt4),
            Be(4, 4) + Be(0x1234, 4));
  EXPECT_EQ(EncodeOne(Fixed<int32_t>(TypeId::kInt32, -1), PgEncoding::kInt8),
            Be(8, 4) + Be(~0ull, 8));
  EXPECT_EQ(EncodeOne(Fixed<int64_t>(TypeId::kInt64, 4294967295LL), PgEncoding::kOid),
            Be(4, 4) + Be(0xffffffff, 4));
  EXPECT_EQ(EncodeOne(Fixed<float>(TypeId::kFloat, 1.5f), PgEncoding::kFloat4),
            Be(4, 4) + Be(0x3fc00000, 4));
  EXPECT_EQ(EncodeOne(Fixed<double>(TypeId::kDouble, -2.0), PgEncoding::kFloat8),
            Be(8, 4) + Be(0xc000000000000000ull, 8));
  EXPECT_EQ(EncodeOne(Fixed<float>(TypeId::kFloat, 1.5f), PgEncoding::kFloat8),
            Be(8, 4) + Be(0x3ff8000000000000ull, 8));
  // 2000-01-02 = 1 day after the PostgreSQL epoch; 1970-01-01 = -10957.
  EXPECT_EQ(EncodeOne(Fixed<int32_t>(TypeId::kDate, 10958), PgEncoding::kDate),
            Be(4, 4) + Be(1, 4));
  EXPECT_EQ(EncodeOne(Fixed<int32_t>(TypeId::kDate, 0), PgEncoding::kDate),
            Be(4, 4) + Be(static_cast<uint32_t>(-10957), 4));
  EXPECT_EQ(EncodeOne(Fixed<int64_t>(TypeId::kTime, 86400000000LL), PgEncoding::kTime),
            Be(8, 4) + Be(86400000000ULL, 8));
  EXPECT_EQ(EncodeOne(Fixed<int64_t>(TypeId::kTimestampTz, 946684800000001LL),
                      PgEncoding::kTimestamp),
            Be(8, 4) + Be(1, 8));
  Uuid u;
  for (int i = 0; i < 16; ++i) u.bytes[i] = static_cast<uint8_t>(i);
  EXPECT_EQ(EncodeOne(Fixed<Uuid>(TypeId::kUuid, u), PgEncoding::kUuid),
            Be(16, 4) + std::string("\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d"
                                    "\x0e\x0f", 16));
}

TEST(PgCopyEncoderTest, InfinitiesOfTheDumpSideBecomePostgresInfinities) {
  constexpr int32_t kMax32 = std::numeric_limits<int32_t>::max();
  constexpr int64_t kMax64 = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(EncodeOne(Fixed<int32_t>(TypeId::kDate, kMax32), PgEncoding::kDate),
            Be(4, 4) + Be(0x7fffffff, 4));
  EXPECT_EQ(EncodeOne(Fixed<int32_t>(TypeId::kDate, -kMax32), PgEncoding::kDate),
            Be(4, 4) + Be(0x80000000, 4));
  EXPECT_EQ(EncodeOne(Fixed<int64_t>(TypeId::kTimestamp, kMax64), PgEncoding::kTimestamp),
            Be(8, 4) + Be(0x7fffffffffffffffull, 8));
  EXPECT_EQ(EncodeOne(Fixed<int64_t>(TypeId::kTimestamp, -kMax64), PgEncoding::kTimestamp),
            Be(8, 4) + Be(0x8000000000000000ull, 8));
}

TEST(PgCopyEncoderTest, VariableLengthGoldenBytes) {
  EXPECT_EQ(EncodeOne(Bytes(TypeId::kString, "héllo"), PgEncoding::kText),
            Be(6, 4) + "héllo");
  EXPECT_EQ(EncodeOne(Bytes(TypeId::kString, ""), PgEncoding::kText), Be(0, 4));
  EXPECT_EQ(EncodeOne(Bytes(TypeId::kBinary, std::string("\0\xff", 2)), PgEncoding::kBytea),
            Be(2, 4) + std::string("\0\xff", 2));
  EXPECT_EQ(EncodeOne(Bytes(TypeId::kJson, "{\"a\":1}"), PgEncoding::kJsonb),
            Be(8, 4) + "\x01{\"a\":1}");
  EXPECT_EQ(EncodeOne(Bytes(TypeId::kJson, "[1, null]"), PgEncoding::kText), Be(9, 4) + "[1, null]");
}

std::string NumericField(std::string_view text) {
  const std::string v = EncodeNumeric(text);
  return Be(v.size(), 4) + v;
}

TEST(PgCopyEncoderTest, NumericFromDecimalMatchesNumericSend) {
  EXPECT_EQ(EncodeOne(Dec(12, 2, 1234567), PgEncoding::kNumeric), NumericField("12345.67"));
  EXPECT_EQ(EncodeOne(Dec(12, 2, -1), PgEncoding::kNumeric), NumericField("-0.01"));
  EXPECT_EQ(EncodeOne(Dec(12, 2, 0), PgEncoding::kNumeric), NumericField("0.00"));
  EXPECT_EQ(EncodeOne(Dec(10, 0, 100000000), PgEncoding::kNumeric), NumericField("100000000"));
  EXPECT_EQ(EncodeOne(Dec(38, 20, 1), PgEncoding::kNumeric),
            NumericField("0.00000000000000000001"));
  const int128_t max38 = Pow10(38) - 1;
  EXPECT_EQ(EncodeOne(Dec(38, 10, max38), PgEncoding::kNumeric),
            NumericField(FormatDecimal(max38, 10)));
  EXPECT_EQ(EncodeOne(Dec(38, 0, -max38), PgEncoding::kNumeric),
            NumericField(FormatDecimal(-max38, 0)));
  EXPECT_EQ(EncodeOne(Fixed<int64_t>(TypeId::kInt64, std::numeric_limits<int64_t>::min()),
                      PgEncoding::kNumeric),
            NumericField("-9223372036854775808"));
}

TEST(PgCopyEncoderTest, NumericFromTextMatchesNumericSend) {
  for (const char* text :
       {"NaN", "Infinity", "-Infinity", "-123.4500", "0", "0.0", "1", "10000", "99999999.9999",
        "123456789012345678901234567890123456789012345.678901234567890",
        "0.000000000000000000000000000000000000000001", "-100000000000000000000"}) {
    SCOPED_TRACE(text);
    EXPECT_EQ(EncodeOne(Bytes(TypeId::kString, text), PgEncoding::kNumeric), NumericField(text));
  }
  EXPECT_EQ(EncodeOne(Bytes(TypeId::kString, ".5"), PgEncoding::kNumeric), NumericField("0.5"));
}

TEST(PgCopyEncoderTest, ErrorsNameTableColumnAndRow) {
  Schema schema({Column{"id", LogicalType::Of(TypeId::kInt64), true, ""},
                 Column{"n", LogicalType::Of(TypeId::kString), true, ""}});
  RowBatch batch(schema);
  batch.column(0).Append<int64_t>(1);
  batch.column(0).Append<int64_t>(40000);
  batch.column(1).AppendBytes("1.5");
  batch.column(1).AppendBytes("1.5");
  {
    PgCopyEncoder encoder("s.t", {{"id", "smallint", PgEncoding::kInt2},
                                  {"n", "numeric", PgEncoding::kNumeric}});
    std::string out;
    size_t row = 0;
    Status s = encoder.Encode(batch, &row, &out, SIZE_MAX);
    EXPECT_EQ(s.code(), Code::kInvalidArgument);
    EXPECT_EQ(s.message(),
              "table s.t, column \"id\" (smallint), row 2: value 40000 is out of range for the "
              "target column");
    EXPECT_EQ(row, 1u);
    EXPECT_EQ(encoder.rows(), 1u);
  }
  batch.Clear();
  batch.column(0).Append<int64_t>(1);
  batch.column(1).AppendBytes("1e5");
  PgCopyEncoder encoder("s.t", {{"id", "bigint", PgEncoding::kInt8},
                                {"n", "numeric", PgEncoding::kNumeric}});
  std::string out;
  size_t row = 0;
  Status s = encoder.Encode(batch, &row, &out, SIZE_MAX);
  EXPECT_EQ(s.message(), "table s.t, column \"n\" (numeric), row 1: \"1e5\" is not a numeric value");
  EXPECT_TRUE(out.empty());  // the partial row is taken back
}

TEST(PgCopyEncoderTest, StopsAtTheLimitAndContinues) {
  Schema schema({Column{"v", LogicalType::Of(TypeId::kInt64), true, ""}});
  RowBatch batch(schema);
  for (int i = 0; i < 100; ++i) {
    if (i % 7 == 3) {
      batch.column(0).AppendNull();
    } else {
      batch.column(0).Append<int64_t>(i);
    }
  }
  PgCopyEncoder encoder("s.t", {{"v", "bigint", PgEncoding::kInt8}});
  std::string all, chunk;
  encoder.Begin(&all);
  size_t row = 0;
  int calls = 0;
  while (row < batch.num_rows()) {
    chunk.clear();
    ASSERT_TRUE(encoder.Encode(batch, &row, &chunk, 100).ok());
    EXPECT_LT(chunk.size(), 100u + 14);
    all += chunk;
    ++calls;
  }
  encoder.End(&all);
  EXPECT_GT(calls, 10);
  CopyStream expected;
  for (int i = 0; i < 100; ++i) {
    expected.Row(1);
    if (i % 7 == 3) {
      expected.Null();
    } else {
      expected.Int(static_cast<uint64_t>(i), 8);
    }
  }
  EXPECT_EQ(all, expected.Finish());
}

TEST(PgCopyEncoderTest, TextFormsForTextStagedColumns) {
  auto text = [](ColumnVector col) {
    std::string out;
    AppendPgText(col, 0, &out);
    return out;
  };
  EXPECT_EQ(text(Fixed<uint8_t>(TypeId::kBool, 0)), "false");
  EXPECT_EQ(text(Fixed<int8_t>(TypeId::kInt8, -5)), "-5");
  EXPECT_EQ(text(Fixed<double>(TypeId::kDouble, 0.1)), "0.1");
  EXPECT_EQ(text(Fixed<double>(TypeId::kDouble, -std::numeric_limits<double>::infinity())),
            "-Infinity");
  EXPECT_EQ(text(Fixed<float>(TypeId::kFloat, std::numeric_limits<float>::quiet_NaN())), "NaN");
  EXPECT_EQ(text(Dec(5, 2, -5)), "-0.05");
  EXPECT_EQ(text(Bytes(TypeId::kBinary, std::string("\0\xab", 2))), "\\x00ab");
  EXPECT_EQ(text(Fixed<int32_t>(TypeId::kDate, 0)), "1970-01-01");
  // 0001-01-01 BC is year 0 of the proleptic calendar.
  EXPECT_EQ(text(Fixed<int32_t>(TypeId::kDate, -719528)), "0001-01-01 BC");
  EXPECT_EQ(text(Fixed<int32_t>(TypeId::kDate, std::numeric_limits<int32_t>::max())), "infinity");
  EXPECT_EQ(text(Fixed<int64_t>(TypeId::kTimestampTz, -1)), "1969-12-31 23:59:59.999999+00");
  EXPECT_EQ(text(Fixed<int64_t>(TypeId::kTimestamp, -62167219200000000LL)),
            "0001-01-01 00:00:00.000000 BC");
  EXPECT_EQ(text(Fixed<int64_t>(TypeId::kTimestamp, -std::numeric_limits<int64_t>::max())),
            "-infinity");
  EXPECT_EQ(text(Fixed<int64_t>(TypeId::kTime, 3723000001LL)), "01:02:03.000001");
  Uuid u;
  for (int i = 0; i < 16; ++i) u.bytes[i] = static_cast<uint8_t>(0xf0 + i);
  EXPECT_EQ(text(Fixed<Uuid>(TypeId::kUuid, u)), "f0f1f2f3-f4f5-f6f7-f8f9-fafbfcfdfeff");
}

// The text forms are written without fmt or temporaries: they agree with the general
// formatters (FormatDecimal, fmt) at the edges, and COPY text escapes only where needed.
TEST(PgCopyEncoderTest, TextFormsAgreeWithTheGeneralFormatters) {
  auto text = [](ColumnVector col) {
    std::string out;
    AppendPgText(col, 0, &out);
    return out;
  };
  // Decimals as PostgreSQL's numeric_out writes them (literals, not our other formatter).
  const int128_t max = ~(static_cast<int128_t>(1) << 127), min = -max - 1;
  EXPECT_EQ(text(Dec(38, 0, 0)), "0");
  EXPECT_EQ(text(Dec(38, 2, 0)), "0.00");
  EXPECT_EQ(text(Dec(38, 1, -7)), "-0.7");
  EXPECT_EQ(text(Dec(38, 4, 7)), "0.0007");
  EXPECT_EQ(text(Dec(38, 3, -5)), "-0.005");
  EXPECT_EQ(text(Dec(38, 2, 123456789)), "1234567.89");
  EXPECT_EQ(text(Dec(38, 38, max)), "1.70141183460469231731687303715884105727");
  EXPECT_EQ(text(Dec(38, 0, min)), "-170141183460469231731687303715884105728");
  EXPECT_EQ(text(Dec(38, 45, 7)), "0." + std::string(44, '0') + "7");
  EXPECT_EQ(text(Fixed<int64_t>(TypeId::kInt64, std::numeric_limits<int64_t>::min())),
            "-9223372036854775808");
  EXPECT_EQ(text(Fixed<int16_t>(TypeId::kInt16, -32768)), "-32768");
  EXPECT_EQ(text(Fixed<int8_t>(TypeId::kInt8, -128)), "-128");
  // Year 10000 and more: more than four digits, as PostgreSQL writes them.
  EXPECT_EQ(text(Fixed<int32_t>(TypeId::kDate, 2932897)), "10000-01-01");
  EXPECT_EQ(text(Fixed<int64_t>(TypeId::kTimestamp, 1000000)), "1970-01-01 00:00:01.000000");
  EXPECT_EQ(text(Fixed<int64_t>(TypeId::kTime, 86400000000LL)), "24:00:00.000000");

  Schema schema({Column{"s", LogicalType::Of(TypeId::kString), true, ""},
                 Column{"b", LogicalType::Of(TypeId::kBinary), true, ""},
                 Column{"n", LogicalType::Decimal(12, 2), true, ""}});
  RowBatch batch(schema);
  batch.column(0).AppendBytes("plain");
  batch.column(1).AppendBytes("\\x");
  batch.column(2).Append(int128_t{-125});
  std::string scratch, out;
  for (size_t c = 0; c < 3; ++c) AppendCopyField(batch.column(c), 0, &scratch, &out);
  EXPECT_EQ(out, "plain\\\\x5c78-1.25");
  out.clear();
  AppendCopyEscaped("a\tb\\", &out);
  EXPECT_EQ(out, "a\\tb\\\\");
  out.clear();
  AppendCopyEscaped("\r\n\t", &out);
  EXPECT_EQ(out, "\\r\\n\\t");
}

TEST(PgCopyEncoderTest, JsonArraysBecomeArrayLiterals) {
  auto lit = [](std::string_view json) {
    std::string out;
    Status s = JsonArrayToPgLiteral(json, &out);
    return s.ok() ? out : "ERROR: " + s.message();
  };
  EXPECT_EQ(lit("[1,null,3]"), "{1,NULL,3}");
  EXPECT_EQ(lit("[[1,2],[3,4]]"), "{{1,2},{3,4}}");
  EXPECT_EQ(lit("[]"), "{}");
  EXPECT_EQ(lit(R"(["a\"b","c,d",null,"NULL","\u00e9\ud83c\udf89","back\\slash"])"),
            R"({"a\"b","c,d",NULL,"NULL","é🎉","back\\slash"})");
  EXPECT_EQ(lit(R"([{"a": [1, "}"]}, true])"), R"({"{\"a\": [1, \"}\"]}",true})");
  EXPECT_EQ(lit(" [ 1.50 , -2e3 ] "), "{1.50,-2e3}");
  EXPECT_EQ(lit("{1,2}").substr(0, 6), "ERROR:");
  EXPECT_EQ(lit("[1,2").substr(0, 6), "ERROR:");
  EXPECT_EQ(lit("[\"\\u0000\"]").substr(0, 6), "ERROR:");
}

// FORMAT text: no header or trailer, tab-separated text forms with COPY's escapes, \N for
// NULL, and a row whose field cannot be written is left out whole (the rows before it kept).
TEST(PgCopyEncoderTest, TextFormatEscapesAndMarksNulls) {
  Schema schema({Column{"s", LogicalType::Of(TypeId::kString), true, ""},
                 Column{"a", LogicalType::Of(TypeId::kJson), true, ""},
                 Column{"d", LogicalType::Of(TypeId::kDate), true, ""}});
  RowBatch batch(schema);
  batch.column(0).AppendBytes("tab\there\nnew\\line\r");
  batch.column(1).AppendBytes("[1,null]");
  batch.column(2).Append(int32_t{0});
  batch.column(0).AppendBytes("\\N");
  batch.column(1).AppendNull();
  batch.column(2).AppendNull();
  batch.column(0).AppendBytes("x");
  batch.column(1).AppendBytes("{not an array}");
  batch.column(2).Append(int32_t{1});
  PgCopyEncoder encoder("s.t", {PgEncodeField{"s", "text", PgEncoding::kText},
                                PgEncodeField{"a", "int4[]", PgEncoding::kArrayAsText},
                                PgEncodeField{"d", "date", PgEncoding::kDate}},
                        PgCopyFormat::kText);
  std::string out;
  encoder.Begin(&out);
  EXPECT_EQ(out, "");
  size_t row = 0;
  Status s = encoder.Encode(batch, &row, &out, SIZE_MAX);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("table s.t, column \"a\" (int4[]), row 3"), std::string::npos)
      << s.message();
  EXPECT_EQ(row, 2u);
  EXPECT_EQ(encoder.rows(), 2u);
  EXPECT_EQ(out,
            "tab\\there\\nnew\\\\line\\r\t{1,NULL}\t1970-01-01\n"
            "\\\\N\t\\N\t\\N\n");
  encoder.End(&out);
  EXPECT_EQ(out.back(), '\n');
}

TEST(PgCopyEncoderTest, ChoosesEncodingByTargetType) {
  auto choose = [](TypeId from, uint32_t oid, char typtype = 'b', char cat = 'U') {
    return ChoosePgEncoding(LogicalType::Of(from), PgTargetType{oid, typtype, cat});
  };
  EXPECT_EQ(choose(TypeId::kInt64, kPgInt4Oid), PgEncoding::kInt4);
  EXPECT_EQ(choose(TypeId::kInt16, kPgNumericOid), PgEncoding::kNumeric);
  EXPECT_EQ(choose(TypeId::kString, 99999, 'e'), PgEncoding::kText);  // enum label
  EXPECT_EQ(choose(TypeId::kString, kPgNumericOid), PgEncoding::kNumeric);
  EXPECT_EQ(choose(TypeId::kJson, kPgJsonbOid), PgEncoding::kJsonb);
  EXPECT_EQ(choose(TypeId::kJson, 1007, 'b', 'A'), PgEncoding::kArrayAsText);
  EXPECT_EQ(choose(TypeId::kString, 869), PgEncoding::kAsText);  // inet
  EXPECT_EQ(choose(TypeId::kDouble, kPgFloat4Oid), PgEncoding::kAsText);
  EXPECT_EQ(choose(TypeId::kTimestampTz, kPgTimestampOid), PgEncoding::kTimestamp);
  EXPECT_EQ(choose(TypeId::kBinary, kPgTextOid), PgEncoding::kAsText);
}

// Everything the source decodes, encoded back: the decoder sees the same values.
TEST(PgCopyEncoderTest, RoundTripThroughTheSourceDecoder) {
  struct Spec {
    LogicalType type;
    PgEncoding enc;
    PgWire wire;
  };
  const std::vector<Spec> specs = {
      {LogicalType::Of(TypeId::kBool), PgEncoding::kBool, PgWire::kBool},
      {LogicalType::Of(TypeId::kInt16), PgEncoding::kInt2, PgWire::kInt2},
      {LogicalType::Of(TypeId::kInt32), PgEncoding::kInt4, PgWire::kInt4},
      {LogicalType::Of(TypeId::kInt64), PgEncoding::kInt8, PgWire::kInt8},
      {LogicalType::Of(TypeId::kFloat), PgEncoding::kFloat4, PgWire::kFloat4},
      {LogicalType::Of(TypeId::kDouble), PgEncoding::kFloat8, PgWire::kFloat8},
      {LogicalType::Decimal(38, 7), PgEncoding::kNumeric, PgWire::kNumericDecimal},
      {LogicalType::Of(TypeId::kString), PgEncoding::kNumeric, PgWire::kNumericText},
      {LogicalType::Of(TypeId::kString), PgEncoding::kText, PgWire::kText},
      {LogicalType::Of(TypeId::kBinary), PgEncoding::kBytea, PgWire::kBytea},
      {LogicalType::Of(TypeId::kJson), PgEncoding::kJsonb, PgWire::kJsonb},
      {LogicalType::Of(TypeId::kDate), PgEncoding::kDate, PgWire::kDate},
      {LogicalType::Of(TypeId::kTime), PgEncoding::kTime, PgWire::kTime},
      {LogicalType::Of(TypeId::kTimestampTz), PgEncoding::kTimestamp, PgWire::kTimestamp},
      {LogicalType::Of(TypeId::kUuid), PgEncoding::kUuid, PgWire::kUuid},
  };
  Schema schema;
  std::vector<PgEncodeField> fields;
  std::vector<PgFieldSpec> decode;
  for (size_t i = 0; i < specs.size(); ++i) {
    const std::string name = "c" + std::to_string(i);
    schema.AddColumn(Column{name, specs[i].type, true, ""});
    fields.push_back({name, "t", specs[i].enc});
    decode.push_back(PgFieldSpec{name, "t", specs[i].wire, specs[i].type, false});
  }
  RowBatch batch(schema);
  const std::vector<std::string> numerics = {"0", "-1.5", "NaN", "123456789012345678901.000001",
                                             "-Infinity"};
  for (int r = 0; r < 5; ++r) {
    const int64_t k = (r - 2) * 1000003LL;
    batch.column(0).Append<uint8_t>(r % 2);
    batch.column(1).Append<int16_t>(static_cast<int16_t>(r == 0 ? -32768 : k % 30000));
    batch.column(2).Append<int32_t>(static_cast<int32_t>(k));
    batch.column(3).Append<int64_t>(k * 1000000007LL);
    batch.column(4).Append<float>(r == 3 ? std::numeric_limits<float>::infinity() : k / 3.0f);
    batch.column(5).Append<double>(k / 7.0);
    batch.column(6).Append<int128_t>(r == 4 ? Pow10(38) - 1 : static_cast<int128_t>(k) * 977);
    batch.column(7).AppendBytes(numerics[r]);
    batch.column(8).AppendBytes(std::string(r * 3, 'x') + "✓");
    if (r == 2) {
      batch.column(9).AppendNull();
    } else {
      batch.column(9).AppendBytes(std::string(r, '\0'));
    }
    batch.column(10).AppendBytes("{\"k\": " + std::to_string(k) + "}");
    batch.column(11).Append<int32_t>(r == 1 ? std::numeric_limits<int32_t>::max()
                                            : static_cast<int32_t>(k / 100));
    batch.column(12).Append<int64_t>(r * 3600000000LL);
    batch.column(13).Append<int64_t>(r == 0 ? -std::numeric_limits<int64_t>::max() : k * 999983);
    Uuid u{};
    u.bytes[r] = 0xab;
    batch.column(14).Append(u);
  }
  PgCopyEncoder encoder("s.t", fields);
  std::string stream;
  encoder.Begin(&stream);
  size_t row = 0;
  ASSERT_TRUE(encoder.Encode(batch, &row, &stream, SIZE_MAX).ok());
  encoder.End(&stream);

  PgCopyDecoder decoder(decode, PgDecodeOptions{"s.t"});
  RowBatch back(schema);
  decoder.Feed(stream);
  ASSERT_TRUE(decoder.Decode(&back, 100).ok());
  ASSERT_TRUE(decoder.finished());
  ASSERT_EQ(back.num_rows(), 5u);
  for (size_t c = 0; c < schema.num_columns(); ++c) {
    for (size_t r = 0; r < 5; ++r) {
      SCOPED_TRACE(testing::Message() << "column " << c << " row " << r);
      const ColumnVector& a = batch.column(c);
      const ColumnVector& b = back.column(c);
      ASSERT_EQ(a.IsNull(r), b.IsNull(r));
      if (a.IsNull(r)) continue;
      if (IsVariableLength(a.type().id)) {
        EXPECT_EQ(a.BytesAt(r), b.BytesAt(r));
      } else {
        const size_t w = FixedWidth(a.type().id);
        switch (w) {
          case 1: EXPECT_EQ(a.ValueAt<uint8_t>(r), b.ValueAt<uint8_t>(r)); break;
          case 2: EXPECT_EQ(a.ValueAt<int16_t>(r), b.ValueAt<int16_t>(r)); break;
          case 4: EXPECT_EQ(a.ValueAt<uint32_t>(r), b.ValueAt<uint32_t>(r)); break;
          case 8: EXPECT_EQ(a.ValueAt<uint64_t>(r), b.ValueAt<uint64_t>(r)); break;
          case 16: {
            const Uuid ua = a.ValueAt<Uuid>(r), ub = b.ValueAt<Uuid>(r);
            EXPECT_EQ(std::memcmp(ua.bytes, ub.bytes, 16), 0);
            break;
          }
          default: FAIL() << "width " << w;
        }
      }
    }
  }
}

// The 64-bit fast path of numeric_send agrees with the digit-string path (via the text form)
// for every scale and magnitude, including the limits of the fast path.
TEST(PgCopyEncoderTest, NumericFromDecimalAgreesWithTextForAllScales) {
  uint64_t x = 88172645463325252ull;  // xorshift
  auto next = [&] {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
  };
  for (int scale = 0; scale <= 20; ++scale) {
    for (int i = 0; i < 400; ++i) {
      int128_t v;
      switch (i % 4) {
        case 0: v = static_cast<int128_t>(next() % 1000000); break;
        case 1: v = static_cast<int128_t>(next() >> (next() % 64)); break;
        case 2: v = static_cast<int128_t>(Pow10(static_cast<int>(next() % 19))); break;
        default: v = static_cast<int128_t>(next()) * static_cast<int128_t>(next() % 100000);
      }
      if (next() % 2) v = -v;
      if (i == 0) v = 0;
      std::string fast, text;
      AppendPgNumericFromDecimal(v, scale, &fast);
      ASSERT_TRUE(AppendPgNumericFromText(FormatDecimal(v, scale), &text).ok());
      ASSERT_EQ(fast, text) << FormatDecimal(v, scale) << " scale " << scale;
    }
  }
}

// Many rows of mixed columns (more than one block, nulls, value-dependent sizes) encode to
// the same bytes in one call, in small chunks, and row by row.
TEST(PgCopyEncoderTest, BlocksChunksAndSingleRowsAgree) {
  Schema schema({Column{"id", LogicalType::Of(TypeId::kInt64), true, ""},
                 Column{"s", LogicalType::Of(TypeId::kString), true, ""},
                 Column{"n", LogicalType::Decimal(12, 2), true, ""},
                 Column{"d", LogicalType::Of(TypeId::kDate), true, ""},
                 Column{"i", LogicalType::Of(TypeId::kInt32), true, ""},
                 Column{"t", LogicalType::Of(TypeId::kTimestampTz), true, ""}});
  const std::vector<PgEncodeField> fields = {
      {"id", "bigint", PgEncoding::kInt8},     {"s", "text", PgEncoding::kText},
      {"n", "numeric", PgEncoding::kNumeric},  {"d", "date", PgEncoding::kDate},
      {"i", "smallint", PgEncoding::kInt2},    {"t", "timestamptz", PgEncoding::kTimestamp}};
  RowBatch batch(schema);
  const size_t kRows = 2500;
  for (size_t r = 0; r < kRows; ++r) {
    const int64_t k = static_cast<int64_t>(r);
    if (r % 7 == 3) {
      batch.column(0).AppendNull();
    } else {
      batch.column(0).Append<int64_t>(k * 31 - 1000);
    }
    batch.column(1).AppendBytes(std::string(r % 13, static_cast<char>('a' + r % 26)));
    if (r % 5 == 1) {
      batch.column(2).AppendNull();
    } else {
      batch.column(2).Append<int128_t>(static_cast<int128_t>((k - 1200) * 7919));
    }
    batch.column(3).Append<int32_t>(static_cast<int32_t>(k * 3));
    batch.column(4).Append<int32_t>(static_cast<int32_t>(k % 30000 - 15000));
    batch.column(5).Append<int64_t>(k * 1000003);
  }
  auto encode_all = [&](size_t limit) {
    PgCopyEncoder encoder("s.t", fields);
    std::string all, chunk;
    size_t row = 0;
    while (row < batch.num_rows()) {
      chunk.clear();
      Status s = encoder.Encode(batch, &row, &chunk, limit);
      EXPECT_TRUE(s.ok()) << s.ToString();
      if (!s.ok()) break;
      all += chunk;
    }
    EXPECT_EQ(encoder.rows(), kRows);
    return all;
  };
  const std::string whole = encode_all(SIZE_MAX);
  EXPECT_EQ(encode_all(777), whole);
  EXPECT_EQ(encode_all(1), whole);  // one row per call
  // Row by row from one-row batches.
  PgCopyEncoder encoder("s.t", fields);
  std::string rows;
  for (size_t r = 0; r < kRows; ++r) {
    RowBatch one(schema);
    for (size_t c = 0; c < schema.num_columns(); ++c) {
      one.column(c).AppendFrom(batch.column(c), r, 1);
    }
    size_t row = 0;
    ASSERT_TRUE(encoder.Encode(one, &row, &rows, SIZE_MAX).ok());
  }
  EXPECT_EQ(rows, whole);
}

// A bad value in a later block: the rows before it are encoded, the error names its row.
TEST(PgCopyEncoderTest, ErrorInALaterBlockKeepsTheRowsBefore) {
  Schema schema({Column{"a", LogicalType::Of(TypeId::kInt64), true, ""},
                 Column{"b", LogicalType::Of(TypeId::kInt64), true, ""}});
  RowBatch batch(schema);
  for (int64_t r = 0; r < 3000; ++r) {
    batch.column(0).Append<int64_t>(r == 2100 ? 1 << 20 : r);
    batch.column(1).Append<int64_t>(r == 2050 ? 1 << 20 : r);
  }
  PgCopyEncoder encoder("s.t", {{"a", "smallint", PgEncoding::kInt2},
                                {"b", "smallint", PgEncoding::kInt2}});
  std::string out;
  size_t row = 0;
  Status s = encoder.Encode(batch, &row, &out, SIZE_MAX);
  EXPECT_EQ(s.message(),
            "table s.t, column \"b\" (smallint), row 2051: value 1048576 is out of range for the "
            "target column");
  EXPECT_EQ(row, 2050u);
  EXPECT_EQ(encoder.rows(), 2050u);
  EXPECT_EQ(out.size(), 2050u * (2 + 6 + 6));
}

TEST(PostgresTargetNamesTest, StagingNamesAndKeys) {
  EXPECT_EQ(PgStagingTableName("orders"), "_lakedump_load_orders");
  const std::string long_a(60, 'a');
  const std::string sa = PgStagingTableName(long_a), sb = PgStagingTableName(long_a + "b");
  EXPECT_LE(sa.size(), 63u);
  EXPECT_LE(sb.size(), 63u);
  EXPECT_NE(sa, sb);
  // Cut on a UTF-8 boundary.
  std::string name(10, 'x');
  for (int i = 0; i < 30; ++i) name += "é";
  const std::string accents = PgStagingTableName(name);
  EXPECT_EQ(accents.size(), 62u);  // 63 would cut an é in half
  EXPECT_EQ(accents.substr(0, 45), "_lakedump_load_xxxxxxxxxxéééééééééé");
  EXPECT_EQ(accents[45], '_');
  EXPECT_EQ(PgKeyClausesFromDdl("CREATE TABLE \"s\".\"t\" (\n  \"id\" bigint NOT NULL,\n"
                                "  \"a\" text,\n  PRIMARY KEY (id),\n  UNIQUE (a, \"B c\")\n)"),
            (std::vector<std::string>{"PRIMARY KEY (id)", "UNIQUE (a, \"B c\")"}));
  EXPECT_TRUE(PgKeyClausesFromDdl("CREATE TABLE \"s\".\"t\" (\n  \"id\" bigint\n)").empty());
  EXPECT_EQ(PgTypeForLogical(LogicalType::Decimal(12, 2)), "numeric(12,2)");
  EXPECT_EQ(PgTypeForLogical(LogicalType::Of(TypeId::kInt64)), "bigint");
  EXPECT_EQ(PgTypeForLogical(LogicalType::Of(TypeId::kJson)), "json");
}

}  // namespace
}  // namespace lakedump

namespace lakedump {
namespace {

TEST(PostgresTargetNamesTest, ColumnDefaultsAndIdentityFromTheSourceDdl) {
  Schema schema({Column{"id", LogicalType::Of(TypeId::kInt64), false, "bigint"},
                 Column{"a", LogicalType::Of(TypeId::kString), true, "text"},
                 Column{"b c", LogicalType::Of(TypeId::kInt32), false, "integer"},
                 Column{"d", LogicalType::Of(TypeId::kTimestampTz), true,
                        "timestamp with time zone"},
                 Column{"e", LogicalType::Of(TypeId::kString), true, "text"}});
  const std::string ddl =
      "CREATE TABLE \"s\".\"t\" (\n"
      "  \"id\" bigint GENERATED BY DEFAULT AS IDENTITY NOT NULL,\n"
      "  \"a\" text DEFAULT 'x,\n  \"b c\" y'::text,\n"
      "  \"b c\" integer DEFAULT 0 NOT NULL,\n"
      "  \"d\" timestamp with time zone DEFAULT now(),\n"
      "  \"e\" text,\n"
      "  PRIMARY KEY (id)\n)";
  const auto extras = PgColumnExtrasFromDdl(ddl, schema);
  ASSERT_EQ(extras.size(), 5u);
  EXPECT_TRUE(extras[0].identity);
  EXPECT_EQ(extras[0].default_expr, "");
  EXPECT_EQ(extras[1].default_expr, "'x,\n  \"b c\" y'::text");
  EXPECT_EQ(extras[2].default_expr, "0");
  EXPECT_EQ(extras[3].default_expr, "now()");
  EXPECT_EQ(extras[4].default_expr, "");
  EXPECT_FALSE(extras[4].identity);
  // Last column with a default, no keys.
  const auto last = PgColumnExtrasFromDdl(
      "CREATE TABLE \"s\".\"t\" (\n  \"id\" bigint DEFAULT 7\n)",
      Schema({Column{"id", LogicalType::Of(TypeId::kInt64), true, "bigint"}}));
  EXPECT_EQ(last[0].default_expr, "7");
  // Last column with a default, then CHECK constraints and no keys.
  const std::string checked =
      "CREATE TABLE \"s\".\"t\" (\n  \"id\" bigint DEFAULT 7,\n"
      "  CONSTRAINT \"id positive\" CHECK ((id > 0)),\n  CONSTRAINT \"c2\" CHECK ((id < 9))\n)";
  const auto before_checks = PgColumnExtrasFromDdl(
      checked, Schema({Column{"id", LogicalType::Of(TypeId::kInt64), true, "bigint"}}));
  EXPECT_EQ(before_checks[0].default_expr, "7");
  EXPECT_EQ(PgCheckClausesFromDdl(checked),
            (std::vector<std::string>{"CONSTRAINT \"id positive\" CHECK ((id > 0))",
                                      "CONSTRAINT \"c2\" CHECK ((id < 9))"}));
  EXPECT_TRUE(PgKeyClausesFromDdl(checked).empty());
}

}  // namespace
}  // namespace lakedump
