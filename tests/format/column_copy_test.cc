// ColumnVector::AppendFrom (the reader's bulk copy of decoded page rows into the caller's batch,
// through CopyRows): values, nulls, null counts and string offsets of any range, appended to a
// column that already holds rows with or without nulls.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "format/parquet/value_decoder.h"
#include "table/row_batch.h"

namespace lakedump {
namespace {

// Appends via the per-value API: the reference for AppendFrom.
void AppendOne(const ColumnVector& src, size_t i, ColumnVector* dst) {
  if (src.IsNull(i)) {
    dst->AppendNull();
  } else if (src.type().id == TypeId::kString) {
    dst->AppendBytes(src.BytesAt(i));
  } else {
    dst->Append<int64_t>(src.ValueAt<int64_t>(i));
  }
}

void ExpectSame(const ColumnVector& a, const ColumnVector& b) {
  ASSERT_EQ(a.size(), b.size());
  EXPECT_EQ(a.null_count(), b.null_count());
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a.IsNull(i), b.IsNull(i)) << i;
    if (a.IsNull(i)) continue;
    if (a.type().id == TypeId::kString) {
      EXPECT_EQ(a.BytesAt(i), b.BytesAt(i)) << i;
    } else {
      EXPECT_EQ(a.ValueAt<int64_t>(i), b.ValueAt<int64_t>(i)) << i;
    }
  }
}

ColumnVector Source(TypeId type, bool nulls) {
  ColumnVector v(LogicalType::Of(type), true);
  for (int i = 0; i < 50; ++i) {
    if (nulls && i % 7 == 3) {
      v.AppendNull();
    } else if (type == TypeId::kString) {
      v.AppendBytes(std::string(static_cast<size_t>(i % 5), static_cast<char>('a' + i % 26)));
    } else {
      v.Append<int64_t>(i * 1000 - 7);
    }
  }
  return v;
}

TEST(ColumnVectorAppendFromTest, MatchesPerValueAppendForEveryRange) {
  for (TypeId type : {TypeId::kInt64, TypeId::kString}) {
    for (bool src_nulls : {false, true}) {
      for (bool dst_nulls : {false, true}) {
        const ColumnVector src = Source(type, src_nulls);
        for (size_t begin : {size_t{0}, size_t{3}, size_t{10}, size_t{49}}) {
          for (size_t n : {size_t{0}, size_t{1}, size_t{2}, size_t{40}}) {
            if (begin + n > src.size()) continue;
            SCOPED_TRACE(testing::Message() << static_cast<int>(type) << " " << src_nulls << " "
                                            << dst_nulls << " " << begin << " " << n);
            ColumnVector bulk(LogicalType::Of(type), true);
            ColumnVector ref(LogicalType::Of(type), true);
            for (ColumnVector* d : {&bulk, &ref}) {
              if (begin == 3) continue;  // also into an empty column
              if (type == TypeId::kString) {
                d->AppendBytes("before");
              } else {
                d->Append<int64_t>(42);
              }
              if (dst_nulls) d->AppendNull();
            }
            parquet::CopyRows(src, begin, n, &bulk);
            for (size_t i = begin; i < begin + n; ++i) AppendOne(src, i, &ref);
            ExpectSame(bulk, ref);
            EXPECT_EQ(bulk.validity() == nullptr, ref.validity() == nullptr);
            if (type == TypeId::kString) {
              EXPECT_EQ(bulk.arena_size(), ref.arena_size());
            }
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace lakedump
