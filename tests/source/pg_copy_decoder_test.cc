#include "source/postgres/pg_copy_decoder.h"

#include <gtest/gtest.h>

#include <limits>
#include <optional>

#include "source/pg_test_encoding.h"
#include "table/temporal.h"

namespace lakedump {
namespace {

using testing_pg::CopyStream;
using testing_pg::EncodeNumeric;

PgFieldSpec Spec(std::string name, PgWire wire, LogicalType type) {
  PgFieldSpec f;
  f.name = std::move(name);
  f.pg_type = "t";
  f.wire = wire;
  f.type = type;
  return f;
}

Schema SchemaOf(const std::vector<PgFieldSpec>& fields) {
  Schema s;
  for (const auto& f : fields) s.AddColumn(Column{f.name, f.type, true, f.pg_type});
  return s;
}

// Decodes `stream` fed in chunks of `chunk` bytes into one batch.
Status DecodeAll(const std::vector<PgFieldSpec>& fields, const std::string& stream, size_t chunk,
                 RowBatch* batch, PgDecodeOptions options = {}) {
  options.table = "public.t";
  PgCopyDecoder decoder(fields, options);
  batch->Reset(SchemaOf(fields));
  size_t at = 0;
  while (!decoder.finished()) {
    if (decoder.needs_input()) {
      if (at >= stream.size()) return Status::Corruption("stream ended early");
      const size_t n = std::min(chunk, stream.size() - at);
      decoder.Feed(std::string_view(stream).substr(at, n));
      at += n;
    }
    LD_RETURN_IF_ERROR(decoder.Decode(batch, 1'000'000));
  }
  return Status::OK();
}

TEST(PgCopyDecoderTest, DecodesEveryWireType) {
  const std::vector<PgFieldSpec> fields = {
      Spec("b", PgWire::kBool, LogicalType::Of(TypeId::kBool)),
      Spec("i2", PgWire::kInt2, LogicalType::Of(TypeId::kInt16)),
      Spec("i4", PgWire::kInt4, LogicalType::Of(TypeId::kInt32)),
      Spec("i8", PgWire::kInt8, LogicalType::Of(TypeId::kInt64)),
      Spec("f4", PgWire::kFloat4, LogicalType::Of(TypeId::kFloat)),
      Spec("f8", PgWire::kFloat8, LogicalType::Of(TypeId::kDouble)),
      Spec("s", PgWire::kText, LogicalType::Of(TypeId::kString)),
      Spec("j", PgWire::kJsonb, LogicalType::Of(TypeId::kJson)),
      Spec("d", PgWire::kDate, LogicalType::Of(TypeId::kDate)),
      Spec("ts", PgWire::kTimestamp, LogicalType::Of(TypeId::kTimestamp)),
      Spec("u", PgWire::kUuid, LogicalType::Of(TypeId::kUuid)),
      Spec("n", PgWire::kNumericDecimal, LogicalType::Decimal(12, 2)),
      Spec("nt", PgWire::kNumericText, LogicalType::Of(TypeId::kString)),
      Spec("o", PgWire::kOid, LogicalType::Of(TypeId::kInt64)),
      Spec("tm", PgWire::kTime, LogicalType::Of(TypeId::kTime)),
  };
  double f8 = -2.5;
  float f4 = 1.25f;
  uint64_t f8bits;
  uint32_t f4bits;
  std::memcpy(&f8bits, &f8, 8);
  std::memcpy(&f4bits, &f4, 4);
  std::string uuid(16, '\0');
  for (int i = 0; i < 16; ++i) uuid[i] = static_cast<char>(i * 17);
  CopyStream s;
  s.Row(15).Int(1, 1).Int(static_cast<uint16_t>(-7), 2).Int(static_cast<uint32_t>(-70000), 4)
      .Int(static_cast<uint64_t>(std::numeric_limits<int64_t>::min()), 8).Int(f4bits, 4)
      .Int(f8bits, 8).Field("h\xC3\xA9llo").Field(std::string("\x01{\"a\": 1}"))
      .Int(static_cast<uint32_t>(-1), 4)                  // 1999-12-31
      .Int(static_cast<uint64_t>(1'500'000), 8)           // 2000-01-01 00:00:01.5
      .Field(uuid).Field(EncodeNumeric("-1234.50")).Field(EncodeNumeric("0.00000000000000000001"))
      .Int(4000000000u, 4).Int(86'399'999'999ull, 8);
  s.Row(15);
  for (int i = 0; i < 15; ++i) s.Null();
  s.Row(15).Int(0, 1).Int(0, 2).Int(0, 4).Int(0, 8).Int(0, 4).Int(0, 8).Field("")
      .Field(std::string("\x01", 1)).Int(0, 4).Int(0, 8).Field(uuid).Field(EncodeNumeric("0"))
      .Field(EncodeNumeric("NaN")).Int(0, 4).Int(0, 8);
  const std::string stream = s.Finish();
  for (size_t chunk : {stream.size(), size_t{1}, size_t{7}}) {
    RowBatch batch;
    ASSERT_TRUE(DecodeAll(fields, stream, chunk, &batch).ok()) << chunk;
    ASSERT_EQ(batch.num_rows(), 3u);
    EXPECT_EQ(batch.column(0).ValueAt<uint8_t>(0), 1);
    EXPECT_EQ(batch.column(1).ValueAt<int16_t>(0), -7);
    EXPECT_EQ(batch.column(2).ValueAt<int32_t>(0), -70000);
    EXPECT_EQ(batch.column(3).ValueAt<int64_t>(0), std::numeric_limits<int64_t>::min());
    EXPECT_EQ(batch.column(4).ValueAt<float>(0), 1.25f);
    EXPECT_EQ(batch.column(5).ValueAt<double>(0), -2.5);
    EXPECT_EQ(batch.column(6).BytesAt(0), "h\xC3\xA9llo");
    EXPECT_EQ(batch.column(7).BytesAt(0), "{\"a\": 1}");
    EXPECT_EQ(FormatDate(batch.column(8).ValueAt<int32_t>(0)), "1999-12-31");
    EXPECT_EQ(FormatTimestamp(batch.column(9).ValueAt<int64_t>(0)), "2000-01-01T00:00:01.500000");
    EXPECT_EQ(std::memcmp(batch.column(10).ValueAt<Uuid>(0).bytes, uuid.data(), 16), 0);
    EXPECT_EQ(FormatDecimal(batch.column(11).ValueAt<int128_t>(0), 2), "-1234.50");
    EXPECT_EQ(batch.column(12).BytesAt(0), "0.00000000000000000001");
    EXPECT_EQ(batch.column(13).ValueAt<int64_t>(0), 4000000000);
    EXPECT_EQ(FormatTime(batch.column(14).ValueAt<int64_t>(0)), "23:59:59.999999");
    for (size_t c = 0; c < 15; ++c) EXPECT_TRUE(batch.column(c).IsNull(1)) << c;
    EXPECT_EQ(batch.column(6).BytesAt(2), "");
    EXPECT_FALSE(batch.column(6).IsNull(2));
    EXPECT_EQ(batch.column(7).BytesAt(2), "");
    EXPECT_EQ(batch.column(12).BytesAt(2), "NaN");
  }
}

TEST(PgCopyDecoderTest, StopsAtMaxRowsAndResumes) {
  const std::vector<PgFieldSpec> fields = {Spec("id", PgWire::kInt8, LogicalType::Of(TypeId::kInt64))};
  CopyStream s;
  for (int i = 0; i < 10; ++i) s.Row(1).Int(i, 8);
  const std::string stream = s.Finish();
  PgCopyDecoder decoder(fields, {});
  decoder.Feed(stream);  // all rows in one chunk
  RowBatch batch(SchemaOf(fields));
  int64_t sum = 0;
  size_t batches = 0;
  while (!decoder.finished()) {
    batch.Clear();
    ASSERT_TRUE(decoder.Decode(&batch, 3).ok());
    ASSERT_LE(batch.num_rows(), 3u);
    for (size_t r = 0; r < batch.num_rows(); ++r) sum += batch.column(0).ValueAt<int64_t>(r);
    ++batches;
  }
  EXPECT_EQ(sum, 45);
  EXPECT_EQ(decoder.rows(), 10u);
  EXPECT_EQ(batches, 4u);
  EXPECT_TRUE(decoder.needs_input());
}

TEST(PgCopyDecoderTest, InfinityPolicies) {
  const std::vector<PgFieldSpec> fields = {
      Spec("d", PgWire::kDate, LogicalType::Of(TypeId::kDate)),
      Spec("ts", PgWire::kTimestamp, LogicalType::Of(TypeId::kTimestampTz))};
  CopyStream s;
  s.Row(2).Int(0x7fffffffu, 4).Int(0x7fffffffffffffffull, 8);
  s.Row(2).Int(0x80000000u, 4).Int(0x8000000000000000ull, 8);
  const std::string stream = s.Finish();
  RowBatch batch;
  ASSERT_TRUE(DecodeAll(fields, stream, 5, &batch).ok());  // default: clamp
  EXPECT_EQ(batch.column(0).ValueAt<int32_t>(0), std::numeric_limits<int32_t>::max());
  EXPECT_EQ(batch.column(0).ValueAt<int32_t>(1), -std::numeric_limits<int32_t>::max());
  EXPECT_EQ(batch.column(1).ValueAt<int64_t>(0), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(batch.column(1).ValueAt<int64_t>(1), -std::numeric_limits<int64_t>::max());

  PgDecodeOptions null_policy;
  null_policy.infinity = PgInfinityPolicy::kNull;
  ASSERT_TRUE(DecodeAll(fields, stream, 100, &batch, null_policy).ok());
  EXPECT_TRUE(batch.column(0).IsNull(0) && batch.column(1).IsNull(1));

  PgDecodeOptions error_policy;
  error_policy.infinity = PgInfinityPolicy::kError;
  Status st = DecodeAll(fields, stream, 100, &batch, error_policy);
  EXPECT_EQ(st.code(), Code::kInvalidArgument);
  EXPECT_NE(st.message().find("table public.t, column \"d\""), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("row 1"), std::string::npos);
}

TEST(PgCopyDecoderTest, TimestampsPastInt64EpochAreEscapedExactly) {
  const std::vector<PgFieldSpec> fields = {
      Spec("ts", PgWire::kTimestamp, LogicalType::Of(TypeId::kTimestamp))};
  CopyStream s;
  s.Row(1).Int(9223371331200000000ull - 1, 8);  // 294276-12-31 23:59:59.999999 (PG's max)
  s.Row(1).Int(static_cast<uint64_t>(kPgTimestampEscapeFrom), 8);  // unix µs = INT64_MAX
  s.Row(1).Int(static_cast<uint64_t>(kPgTimestampEscapeFrom - 1), 8);  // the last plain one
  RowBatch batch;
  ASSERT_TRUE(DecodeAll(fields, s.Finish(), 100, &batch).ok());
  const int64_t* v = batch.column(0).values<int64_t>();
  EXPECT_TRUE(IsTimestampEscape(v[0]));
  EXPECT_EQ(PgMicrosOfEscape(v[0]), 9223371331200000000LL - 1);
  EXPECT_EQ(FormatTimestamp(v[0]), "+294276-12-31T23:59:59.999999");
  EXPECT_EQ(v[1], kTimestampEscapeBase);  // never +infinity's INT64_MAX
  EXPECT_EQ(v[2], std::numeric_limits<int64_t>::max() - 1);
  EXPECT_FALSE(IsTimestampEscape(v[2]));
  // Past PostgreSQL's own end: refused, naming the column.
  CopyStream bad;
  bad.Row(1).Int(9223371331200000000ull, 8);
  RowBatch none;
  Status st = DecodeAll(fields, bad.Finish(), 100, &none);
  EXPECT_EQ(st.code(), Code::kInvalidArgument);
  EXPECT_NE(st.message().find("column \"ts\""), std::string::npos);
}

TEST(PgCopyDecoderTest, NumericNanInDecimalColumnFollowsPolicy) {
  const std::vector<PgFieldSpec> fields = {
      Spec("amount", PgWire::kNumericDecimal, LogicalType::Decimal(10, 2))};
  CopyStream s;
  s.Row(1).Field(EncodeNumeric("1.5"));
  s.Row(1).Field(EncodeNumeric("NaN"));
  const std::string stream = s.Finish();
  RowBatch batch;
  Status st = DecodeAll(fields, stream, 100, &batch);
  EXPECT_EQ(st.code(), Code::kInvalidArgument);
  EXPECT_NE(st.message().find("column \"amount\""), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("row 2"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("NaN"), std::string::npos) << st.message();
  PgDecodeOptions null_policy;
  null_policy.numeric_special = PgNumericSpecialPolicy::kNull;
  ASSERT_TRUE(DecodeAll(fields, stream, 100, &batch, null_policy).ok());
  EXPECT_EQ(FormatDecimal(batch.column(0).ValueAt<int128_t>(0), 2), "1.50");
  EXPECT_TRUE(batch.column(0).IsNull(1));
}

// array_send's form: ndim, has-null flag, element OID, (length, lower bound) per dimension,
// then each element as a length (-1 = NULL) and its bytes.
std::string PgArray(int ndim, std::vector<std::pair<int32_t, int32_t>> dims,
                    const std::vector<std::optional<int32_t>>& int4s) {
  std::string out;
  auto be32 = [&](uint32_t v) {
    for (int k = 3; k >= 0; --k) out.push_back(static_cast<char>((v >> (8 * k)) & 0xff));
  };
  be32(static_cast<uint32_t>(ndim));
  be32(0);
  be32(23);
  for (auto [n, lb] : dims) {
    be32(static_cast<uint32_t>(n));
    be32(static_cast<uint32_t>(lb));
  }
  for (const auto& v : int4s) {
    if (!v) {
      be32(0xffffffffu);
      continue;
    }
    be32(4);
    be32(static_cast<uint32_t>(*v));
  }
  return out;
}

TEST(PgCopyDecoderTest, OneDimensionalArraysBecomeLists) {
  PgFieldSpec f = Spec("a", PgWire::kInt4, LogicalType::List(LogicalType::Of(TypeId::kInt32), true));
  f.array = true;
  CopyStream s;
  s.Row(1).Field(PgArray(1, {{3, 1}}, {1, std::nullopt, -7}));
  s.Row(1).Field(PgArray(0, {}, {}));  // '{}'
  s.Row(1).Null();
  s.Row(1).Field(PgArray(1, {{1, 1}}, {std::nullopt}));
  RowBatch batch;
  ASSERT_TRUE(DecodeAll({f}, s.Finish(), 7, &batch).ok());
  const ColumnVector& c = batch.column(0);
  ASSERT_EQ(c.size(), 4u);
  EXPECT_EQ(c.offsets()[1], 3u);
  EXPECT_EQ(c.elements().ValueAt<int32_t>(0), 1);
  EXPECT_TRUE(c.elements().IsNull(1));
  EXPECT_EQ(c.elements().ValueAt<int32_t>(2), -7);
  EXPECT_EQ(c.offsets()[2], 3u) << "empty";
  EXPECT_TRUE(c.IsNull(2));
  EXPECT_EQ(c.offsets()[4], 4u);
  EXPECT_TRUE(c.elements().IsNull(3));
  // Other shapes never reach a list column (the dump reads such columns as text); if one does,
  // the error names table, column and row.
  for (const std::string& bad : {PgArray(2, {{1, 1}, {2, 1}}, {1, 2}), PgArray(1, {{2, 0}}, {5, 6}),
                                 PgArray(1, {{3, 1}}, {1, 2})}) {
    CopyStream t;
    t.Row(1).Field(bad);
    Status st = DecodeAll({f}, t.Finish(), 100, &batch);
    EXPECT_FALSE(st.ok());
    EXPECT_NE(st.message().find("table public.t, column \"a\""), std::string::npos) << st.message();
  }
}

TEST(PgCopyDecoderTest, RejectsCorruptStreams) {
  const std::vector<PgFieldSpec> fields = {Spec("id", PgWire::kInt8, LogicalType::Of(TypeId::kInt64))};
  RowBatch batch;
  {
    CopyStream s;
    s.Row(2).Int(1, 8).Int(2, 8);  // two fields, one column
    EXPECT_EQ(DecodeAll(fields, s.Finish(), 100, &batch).code(), Code::kCorruption);
  }
  {
    CopyStream s;
    s.Row(1).Int(1, 4);  // int8 sent as 4 bytes
    EXPECT_EQ(DecodeAll(fields, s.Finish(), 100, &batch).code(), Code::kCorruption);
  }
  {
    std::string bad = CopyStream().Finish();
    bad[0] = 'X';
    EXPECT_EQ(DecodeAll(fields, bad, 100, &batch).code(), Code::kCorruption);
  }
  {
    const std::vector<PgFieldSpec> jf = {Spec("j", PgWire::kJsonb, LogicalType::Of(TypeId::kJson))};
    CopyStream s;
    s.Row(1).Field("\x02{}");
    EXPECT_EQ(DecodeAll(jf, s.Finish(), 100, &batch).code(), Code::kCorruption);
  }
}

TEST(PgCopyDecoderTest, ZeroColumnTuplesCountRows) {
  CopyStream s;
  s.Row(0).Row(0).Row(0);
  RowBatch batch;
  ASSERT_TRUE(DecodeAll({}, s.Finish(), 3, &batch).ok());
  EXPECT_EQ(batch.num_rows(), 3u);
}

}  // namespace
}  // namespace lakedump
