// Lists sent as binary one-dimensional arrays (array_send's form): golden bytes, the choice of
// the encoding by the target's element type, errors, the text format's fallback, and the round
// trip through the source's PgCopyDecoder.
#include <gtest/gtest.h>

#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "load/postgres/pg_copy_encoder.h"
#include "source/pg_test_encoding.h"
#include "source/postgres/pg_copy_decoder.h"

namespace lakedump {
namespace {

using testing_pg::PutBe;

constexpr uint32_t kTextArrayOid = 1009, kInt4ArrayOid = 1007;

std::string Be(uint64_t v, int bytes) {
  std::string out;
  PutBe(&out, v, bytes);
  return out;
}

using Int32List = std::vector<std::optional<int32_t>>;

ColumnVector Int32Lists(const std::vector<std::optional<Int32List>>& rows) {
  ColumnVector c(LogicalType::List(LogicalType::Of(TypeId::kInt32), true), true);
  for (const auto& row : rows) {
    if (!row) {
      c.AppendNull();
      continue;
    }
    for (const auto& v : *row) {
      if (v) {
        c.elements().Append<int32_t>(*v);
      } else {
        c.elements().AppendNull();
      }
    }
    c.AppendList();
  }
  return c;
}

ColumnVector StringLists(const std::vector<std::vector<std::optional<std::string>>>& rows) {
  ColumnVector c(LogicalType::List(LogicalType::Of(TypeId::kString), true), true);
  for (const auto& row : rows) {
    for (const auto& v : row) {
      if (v) {
        c.elements().AppendBytes(*v);
      } else {
        c.elements().AppendNull();
      }
    }
    c.AppendList();
  }
  return c;
}

// The COPY rows (field count included) of a one-column batch holding `col`.
Result<std::string> EncodeRows(ColumnVector col, PgEncodeField field,
                               PgCopyFormat format = PgCopyFormat::kBinary) {
  Schema schema({Column{"a", col.type(), true, ""}});
  RowBatch batch(schema);
  batch.column(0) = std::move(col);
  PgCopyEncoder encoder("s.t", {std::move(field)}, format);
  std::string out;
  size_t row = 0;
  LD_RETURN_IF_ERROR(encoder.Encode(batch, &row, &out, SIZE_MAX));
  return out;
}

PgEncodeField ArrayField(PgEncoding element, uint32_t element_oid) {
  PgEncodeField f{"a", "x[]", PgEncoding::kArray};
  f.element = element;
  f.element_oid = element_oid;
  return f;
}

// array_send's header: ndim, has-null flag, element type, then length and lower bound 1.
std::string Header(int n, bool has_null, uint32_t oid) {
  if (n == 0) return Be(0, 4) + Be(0, 4) + Be(oid, 4);
  return Be(1, 4) + Be(has_null ? 1 : 0, 4) + Be(oid, 4) + Be(n, 4) + Be(1, 4);
}
std::string Field(const std::string& body) { return Be(body.size(), 4) + body; }

TEST(PgCopyArrayTest, Int4ArraysGoldenBytes) {
  auto out = EncodeRows(Int32Lists({Int32List{1, std::nullopt, -3}, Int32List{}, std::nullopt,
                                    Int32List{std::nullopt}}),
                        ArrayField(PgEncoding::kInt4, kPgInt4Oid));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  const std::string row1 = Be(1, 2) + Field(Header(3, true, kPgInt4Oid) + Be(4, 4) + Be(1, 4) +
                                            Be(0xffffffff, 4) + Be(4, 4) + Be(0xfffffffd, 4));
  const std::string row2 = Be(1, 2) + Field(Header(0, false, kPgInt4Oid));  // '{}': ndim 0
  const std::string row3 = Be(1, 2) + Be(0xffffffff, 4);                     // a NULL array
  const std::string row4 = Be(1, 2) + Field(Header(1, true, kPgInt4Oid) + Be(0xffffffff, 4));
  EXPECT_EQ(*out, row1 + row2 + row3 + row4);
}

TEST(PgCopyArrayTest, TextArraysGoldenBytes) {
  auto out = EncodeRows(StringLists({{"a\tb", "", std::nullopt, "é"}}),
                        ArrayField(PgEncoding::kText, kPgTextOid));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(*out, Be(1, 2) + Field(Header(4, true, kPgTextOid) + Be(3, 4) + "a\tb" + Be(0, 4) +
                                   Be(0xffffffff, 4) + Be(2, 4) + "é"));
}

TEST(PgCopyArrayTest, ElementsInEachBinaryForm) {
  auto one = [](ColumnVector elements_of_one_list, PgEncoding e, uint32_t oid) {
    ColumnVector c(LogicalType::List(elements_of_one_list.type(), true), true);
    c.elements() = std::move(elements_of_one_list);
    c.AppendList();
    std::string out;
    Status s = AppendPgArraySend(c, 0, e, oid, &out);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return out;
  };
  ColumnVector ts(LogicalType::Of(TypeId::kTimestampTz), true);
  ts.Append<int64_t>(946684800000001LL);  // 2000-01-01 00:00:00.000001
  ts.Append<int64_t>(std::numeric_limits<int64_t>::max());
  EXPECT_EQ(one(std::move(ts), PgEncoding::kTimestamp, kPgTimestampTzOid),
            Field(Header(2, false, kPgTimestampTzOid) + Be(8, 4) + Be(1, 8) + Be(8, 4) +
                  Be(std::numeric_limits<int64_t>::max(), 8)));
  ColumnVector dec(LogicalType::Decimal(12, 2), true);
  dec.Append<int128_t>(-150);  // -1.50
  std::string numeric;
  AppendPgNumericFromDecimal(-150, 2, &numeric);
  EXPECT_EQ(one(std::move(dec), PgEncoding::kNumeric, kPgNumericOid),
            Field(Header(1, false, kPgNumericOid) + numeric));
  ColumnVector i64(LogicalType::Of(TypeId::kInt64), true);
  i64.Append<int64_t>(-2);
  EXPECT_EQ(one(std::move(i64), PgEncoding::kInt2, kPgInt2Oid),
            Field(Header(1, false, kPgInt2Oid) + Be(2, 4) + Be(0xfffe, 2)));
  ColumnVector js(LogicalType::Of(TypeId::kJson), true);
  js.AppendBytes("{}");
  EXPECT_EQ(one(std::move(js), PgEncoding::kJsonb, kPgJsonbOid),
            Field(Header(1, false, kPgJsonbOid) + Be(3, 4) + "\1{}"));
  ColumnVector d(LogicalType::Of(TypeId::kDate), true);
  d.Append<int32_t>(10958);  // 2000-01-02
  EXPECT_EQ(one(std::move(d), PgEncoding::kDate, kPgDateOid),
            Field(Header(1, false, kPgDateOid) + Be(4, 4) + Be(1, 4)));
}

TEST(PgCopyArrayTest, ChoosesBinaryArraysOnlyForElementsWithABinaryForm) {
  auto choose = [](TypeId element, uint32_t array_oid, uint32_t element_oid,
                   char element_typtype = 'b') {
    PgTargetType to{array_oid, 'b', 'A', element_oid, element_typtype, 'U'};
    return PgEncodeField::Choose("a", "x[]", LogicalType::List(LogicalType::Of(element), true),
                                 to);
  };
  PgEncodeField f = choose(TypeId::kString, kTextArrayOid, kPgTextOid);
  EXPECT_EQ(f.encoding, PgEncoding::kArray);
  EXPECT_EQ(f.element, PgEncoding::kText);
  EXPECT_EQ(f.element_oid, kPgTextOid);
  f = choose(TypeId::kInt64, kInt4ArrayOid, kPgInt4Oid);
  EXPECT_EQ(f.encoding, PgEncoding::kArray);
  EXPECT_EQ(f.element, PgEncoding::kInt4);
  EXPECT_EQ(choose(TypeId::kString, 99998, 99999, 'e').element, PgEncoding::kText);  // enum[]
  // A domain's element (its recv checks the constraint but the OID must be the domain's),
  // inet, name (name_recv refuses what name_in truncates), and a type that is no array.
  EXPECT_EQ(choose(TypeId::kInt32, 99998, 99999, 'd').encoding, PgEncoding::kAsText);
  EXPECT_EQ(choose(TypeId::kString, 1041, 869).encoding, PgEncoding::kAsText);
  EXPECT_EQ(choose(TypeId::kString, 1003, kPgNameOid).encoding, PgEncoding::kAsText);
  EXPECT_EQ(choose(TypeId::kInt32, kInt4ArrayOid, 0).encoding, PgEncoding::kAsText);
  EXPECT_EQ(choose(TypeId::kDouble, 1021, kPgFloat4Oid).encoding, PgEncoding::kAsText);
  // Old dumps' JSON arrays keep the text path.
  EXPECT_EQ(ChoosePgEncoding(LogicalType::Of(TypeId::kJson),
                             PgTargetType{kInt4ArrayOid, 'b', 'A', kPgInt4Oid, 'b', 'N'}),
            PgEncoding::kArrayAsText);
}

TEST(PgCopyArrayTest, AnElementOutOfRangeNamesColumnRowAndElement) {
  ColumnVector c(LogicalType::List(LogicalType::Of(TypeId::kInt64), true), true);
  c.elements().Append<int64_t>(1);
  c.AppendList();
  c.elements().Append<int64_t>(1);
  c.elements().Append<int64_t>(70000);
  c.AppendList();
  auto out = EncodeRows(std::move(c), ArrayField(PgEncoding::kInt2, kPgInt2Oid));
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().message(),
            "table s.t, column \"a\" (x[]), row 2: array element 2: value 70000 is out of range "
            "for the target column");
}

// A kArray field of a table that goes as text (another column has no binary form): its literal.
TEST(PgCopyArrayTest, TextFormatWritesTheArrayLiteral) {
  auto out = EncodeRows(StringLists({{"a\"b", std::nullopt}, {}}),
                        ArrayField(PgEncoding::kText, kPgTextOid), PgCopyFormat::kText);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(*out, "{\"a\\\\\"b\",NULL}\n{}\n");
}

TEST(PgCopyArrayTest, RoundTripThroughTheSourceDecoder) {
  const std::vector<std::optional<Int32List>> rows = {
      Int32List{std::numeric_limits<int32_t>::min(), std::nullopt, 7}, Int32List{}, std::nullopt,
      Int32List{std::nullopt, std::nullopt}};
  ColumnVector col = Int32Lists(rows);
  const LogicalType type = col.type();
  PgCopyEncoder encoder("s.t", {ArrayField(PgEncoding::kInt4, kPgInt4Oid)});
  Schema schema({Column{"a", type, true, ""}});
  RowBatch batch(schema);
  batch.column(0) = std::move(col);
  std::string stream;
  encoder.Begin(&stream);
  size_t row = 0;
  ASSERT_TRUE(encoder.Encode(batch, &row, &stream, SIZE_MAX).ok());
  encoder.End(&stream);

  PgFieldSpec spec{"a", "integer[]", PgWire::kInt4, type, false};
  spec.array = true;
  PgCopyDecoder decoder({spec}, PgDecodeOptions{"s.t"});
  RowBatch back(schema);
  decoder.Feed(stream);
  ASSERT_TRUE(decoder.Decode(&back, 100).ok());
  ASSERT_TRUE(decoder.finished());
  ASSERT_EQ(back.num_rows(), rows.size());
  const ColumnVector& b = back.column(0);
  for (size_t r = 0; r < rows.size(); ++r) {
    SCOPED_TRACE(r);
    ASSERT_EQ(b.IsNull(r), !rows[r].has_value());
    if (!rows[r]) continue;
    const uint64_t begin = b.offsets()[r];
    ASSERT_EQ(b.offsets()[r + 1] - begin, rows[r]->size());
    for (size_t k = 0; k < rows[r]->size(); ++k) {
      const auto& want = (*rows[r])[k];
      ASSERT_EQ(b.elements().IsNull(begin + k), !want.has_value());
      if (want) {
        EXPECT_EQ(b.elements().ValueAt<int32_t>(begin + k), *want);
      }
    }
  }
}

}  // namespace
}  // namespace lakedump
