// Compaction's key order (dump/iceberg/compact_key_order.h): the surviving rows of data files
// (deletes applied) come out in key order with their other values; files already in key order
// are read as they are, the others sorted (in many temporary files past the memory bound, then
// merged in passes); a text or composite key orders by its bytes; a key in two files, or a file
// whose rows go backwards, is Corruption.
#include "dump/iceberg/compact_key_order.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "dump/iceberg/key_index.h"
#include "format/parquet/parquet_writer.h"
#include "store/memory/memory_store.h"

namespace lakedump {
namespace {

const Schema kIdValue({Column{"id", LogicalType{TypeId::kInt64}, false},
                       Column{"v", LogicalType{TypeId::kString}, true}});

// `batch` as the Parquet data file `key`.
void WriteBatch(MemoryStore& store, const std::string& key, const Schema& schema,
                const RowBatch& batch, uint64_t row_group_rows = 122880) {
  auto out = store.NewWriter(key);
  ASSERT_TRUE(out.ok());
  ParquetWriterOptions options;
  options.row_group_rows = row_group_rows;
  ParquetWriter writer(schema, options, out->get());
  ASSERT_TRUE(writer.Write(batch).ok());
  ASSERT_TRUE(writer.Close().ok());
  ASSERT_TRUE((*out)->Close().ok());
}

// A data file of (id, "v<id>") rows in the given order; every seventh value null.
void WriteFile(MemoryStore& store, const std::string& key, const std::vector<int64_t>& ids,
               uint64_t row_group_rows = 122880) {
  RowBatch batch(kIdValue);
  for (int64_t id : ids) {
    batch.column(0).Append<int64_t>(id);
    if (id % 7 == 0) {
      batch.column(1).AppendNull();
    } else {
      batch.column(1).AppendBytes("v" + std::to_string(id));
    }
  }
  WriteBatch(store, key, kIdValue, batch, row_group_rows);
}

// Every row Finish hands on, as (id, value or "null"), checking each range's size.
Status Drain(KeyOrderedRows& rows, std::vector<std::pair<int64_t, std::string>>* out) {
  return rows.Finish([&](const RowBatch& b, size_t begin, size_t n) {
    EXPECT_GT(n, 0u);
    for (size_t r = begin; r < begin + n; ++r) {
      out->emplace_back(b.column(0).ValueAt<int64_t>(r),
                        b.column(1).IsNull(r) ? "null" : std::string(b.column(1).BytesAt(r)));
    }
    return Status::OK();
  });
}

std::pair<int64_t, std::string> Row(int64_t id) {
  return {id, id % 7 == 0 ? "null" : "v" + std::to_string(id)};
}

TEST(KeyOrderedRowsTest, FilesInKeyOrderAreMergedWithTheirDeletesApplied) {
  MemoryStore store;
  std::vector<int64_t> base(1000);
  std::iota(base.begin(), base.end(), 0);
  WriteFile(store, "base.parquet", base, 300);  // several row groups
  // Two increments, each in key order, holding new versions of keys the base's deletes drop.
  WriteFile(store, "inc1.parquet", {10, 20, 500, 1000, 1001});
  WriteFile(store, "inc2.parquet", {21, 499, 1002});
  const std::vector<int64_t> base_deleted = {10, 20, 21, 499, 500};
  const std::vector<int64_t> inc1_deleted = {};
  const std::vector<int64_t> inc2_deleted = {2};  // 1002 deleted again
  KeyOrderedRows rows(store, kIdValue, {0});
  ASSERT_TRUE(rows.AddFile("base.parquet", &base_deleted).ok());
  ASSERT_TRUE(rows.AddFile("inc1.parquet", &inc1_deleted).ok());
  ASSERT_TRUE(rows.AddFile("inc2.parquet", &inc2_deleted).ok());
  EXPECT_EQ(rows.files_in_order(), 3u);
  EXPECT_EQ(rows.files_sorted(), 0u);
  std::vector<std::pair<int64_t, std::string>> got;
  Status s = Drain(rows, &got);
  ASSERT_TRUE(s.ok()) << s.ToString();
  std::vector<std::pair<int64_t, std::string>> want;
  for (int64_t id = 0; id <= 1001; ++id) want.push_back(Row(id));
  EXPECT_EQ(got, want);
  EXPECT_EQ(rows.temporary_files(), 0u);
}

TEST(KeyOrderedRowsTest, FilesOutOfOrderAreSortedInChunksAndMergedInPasses) {
  MemoryStore store;
  std::vector<int64_t> ids(20000);
  std::iota(ids.begin(), ids.end(), -10000);
  std::shuffle(ids.begin(), ids.end(), std::mt19937(11));
  // Two shuffled files and one in order; the bound makes many chunks (> kMaxMergeWidth).
  std::vector<std::vector<int64_t>> parts(3);
  for (size_t i = 0; i < ids.size(); ++i) parts[i % 3].push_back(ids[i]);
  std::sort(parts[2].begin(), parts[2].end());
  // Small row groups: the reader's batches never cross one, so chunks are a few hundred rows.
  for (size_t i = 0; i < 3; ++i) WriteFile(store, "f" + std::to_string(i), parts[i], 200);
  const std::vector<int64_t> none;
  const std::vector<int64_t> some = {0, 5, 6, 7, 1000};  // positions, not ids
  KeyOrderedRows rows(store, kIdValue, {0}, 16 << 10);
  ASSERT_TRUE(rows.AddFile("f0", &some).ok());
  ASSERT_TRUE(rows.AddFile("f1", &none).ok());
  ASSERT_TRUE(rows.AddFile("f2", &none).ok());
  EXPECT_EQ(rows.files_in_order(), 1u);
  EXPECT_EQ(rows.files_sorted(), 2u);
  std::vector<std::pair<int64_t, std::string>> got;
  Status s = Drain(rows, &got);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_GT(rows.temporary_files(), kMaxMergeWidth + 1);  // chunks, then a merge pass's file
  std::vector<int64_t> kept;
  for (size_t p = 0; p < parts[0].size(); ++p) {
    if (std::find(some.begin(), some.end(), static_cast<int64_t>(p)) == some.end()) {
      kept.push_back(parts[0][p]);
    }
  }
  kept.insert(kept.end(), parts[1].begin(), parts[1].end());
  kept.insert(kept.end(), parts[2].begin(), parts[2].end());
  std::sort(kept.begin(), kept.end());
  std::vector<std::pair<int64_t, std::string>> want;
  for (int64_t id : kept) want.push_back(Row(id));
  ASSERT_EQ(got.size(), want.size());
  EXPECT_EQ(got, want);
}

TEST(KeyOrderedRowsTest, ATextAndCompositeKeyOrdersByItsBytes) {
  const Schema schema({Column{"a", LogicalType{TypeId::kString}, false},
                       Column{"b", LogicalType{TypeId::kInt32}, false}});
  MemoryStore store;
  auto write = [&](const std::string& key, const std::vector<std::pair<std::string, int32_t>>& rs) {
    RowBatch batch(schema);
    for (const auto& [a, b] : rs) {
      batch.column(0).AppendBytes(a);
      batch.column(1).Append<int32_t>(b);
    }
    WriteBatch(store, key, schema, batch);
  };
  write("x", {{"pear", 1}, {"apple", 2}, {"fig", 3}, {"apple", 1}});
  write("y", {{"banana", 9}, {"pear", 0}});
  const std::vector<int64_t> none;
  KeyOrderedRows rows(store, schema, {0, 1});
  ASSERT_TRUE(rows.AddFile("x", &none).ok());
  ASSERT_TRUE(rows.AddFile("y", &none).ok());
  std::vector<std::pair<std::string, int32_t>> got;
  Status s = rows.Finish([&](const RowBatch& b, size_t begin, size_t n) {
    for (size_t r = begin; r < begin + n; ++r) {
      got.emplace_back(std::string(b.column(0).BytesAt(r)), b.column(1).ValueAt<int32_t>(r));
    }
    return Status::OK();
  });
  ASSERT_TRUE(s.ok()) << s.ToString();
  // EncodeIndexKey's bytes: each value length-prefixed, so the order is the encoding's,
  // the same one the key index uses; what matters is one total order with every row once.
  ASSERT_EQ(got.size(), 6u);
  std::vector<std::pair<std::string, int32_t>> sorted_got = got;
  std::sort(sorted_got.begin(), sorted_got.end());
  EXPECT_EQ(sorted_got, (std::vector<std::pair<std::string, int32_t>>{
                            {"apple", 1}, {"apple", 2}, {"banana", 9}, {"fig", 3}, {"pear", 0},
                            {"pear", 1}}));
  // The rows of one key prefix come together, in the index's order of their encodings.
  const IndexKeyOrder order(schema, {0, 1});
  for (size_t i = 1; i < got.size(); ++i) {
    RowBatch pair(schema);
    for (size_t k : {i - 1, i}) {
      pair.column(0).AppendBytes(got[k].first);
      pair.column(1).Append<int32_t>(got[k].second);
    }
    std::string a, b;
    ASSERT_TRUE(EncodeIndexKey(pair, {0, 1}, 0, &a).ok());
    ASSERT_TRUE(EncodeIndexKey(pair, {0, 1}, 1, &b).ok());
    EXPECT_LT(order.Compare(a, b), 0) << i;
  }
}

TEST(KeyOrderedRowsTest, AKeyInTwoFilesIsCorruption) {
  MemoryStore store;
  WriteFile(store, "a.parquet", {1, 2, 3});
  WriteFile(store, "b.parquet", {3, 4});
  const std::vector<int64_t> none;
  KeyOrderedRows rows(store, kIdValue, {0});
  ASSERT_TRUE(rows.AddFile("a.parquet", &none).ok());
  ASSERT_TRUE(rows.AddFile("b.parquet", &none).ok());
  std::vector<std::pair<int64_t, std::string>> got;
  Status s = Drain(rows, &got);
  EXPECT_EQ(s.code(), Code::kCorruption) << s.ToString();
  EXPECT_NE(s.ToString().find("two live rows have the same key"), std::string::npos)
      << s.ToString();
  // Within one file, twice: the file is sorted first and the merge finds the two.
  MemoryStore twice;
  WriteFile(twice, "c.parquet", {5, 1, 5});
  KeyOrderedRows again(twice, kIdValue, {0});
  ASSERT_TRUE(again.AddFile("c.parquet", &none).ok());
  EXPECT_EQ(again.files_sorted(), 1u);
  got.clear();
  s = Drain(again, &got);
  EXPECT_EQ(s.code(), Code::kCorruption) << s.ToString();
}

TEST(KeyOrderedRowsTest, AFileThatChangesBetweenThePassesIsRefused) {
  MemoryStore store;
  WriteFile(store, "a.parquet", {1, 2, 3});
  const std::vector<int64_t> none;
  KeyOrderedRows rows(store, kIdValue, {0});
  ASSERT_TRUE(rows.AddFile("a.parquet", &none).ok());
  WriteFile(store, "a.parquet", {3, 2, 1});  // replaced after the order was checked
  std::vector<std::pair<int64_t, std::string>> got;
  Status s = Drain(rows, &got);
  EXPECT_EQ(s.code(), Code::kCorruption) << s.ToString();
  EXPECT_NE(s.ToString().find("a.parquet: its rows are not in key order"), std::string::npos)
      << s.ToString();
}

}  // namespace
}  // namespace lakedump
