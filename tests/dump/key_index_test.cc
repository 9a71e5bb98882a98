// The key index's order, runs, sorter and file (dump/iceberg/key_runs.h, key_index.h): integer
// keys make runs, a sorter past its memory bound spills and still gives every run once in
// order, the sorted file reads back as written, an index of the earlier unsorted form is still
// read, and a hostile index (out of order, a key twice, a run past its type) is refused.
#include "dump/iceberg/key_index.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <random>

#include "store/memory/memory_store.h"

namespace lakedump {
namespace {

std::string IntKey(int64_t v, size_t width = 8) {
  std::string k(1, '\1');
  k.append(reinterpret_cast<const char*>(&v), width);  // little-endian, as EncodeIndexKey
  return k;
}

const IndexKeyOrder kBigint({LogicalType{TypeId::kInt64}});
const IndexKeyOrder kText({LogicalType{TypeId::kString}});

std::vector<KeyRun> Drain(KeyRunSorter& sorter) {
  std::vector<KeyRun> out;
  EXPECT_TRUE(sorter.Finish([&](const KeyRun& r) {
    out.push_back(r);
    return Status::OK();
  }).ok());
  return out;
}

TEST(IndexKeyOrderTest, IntegerKeysOrderByValueAndMakeRuns) {
  EXPECT_TRUE(kBigint.integer());
  EXPECT_FALSE(kText.integer());
  EXPECT_LT(kBigint.Compare(IntKey(-5), IntKey(3)), 0);
  EXPECT_GT(kBigint.Compare(IntKey(256), IntKey(255)), 0);
  EXPECT_EQ(kBigint.Distance(IntKey(-2), IntKey(3)), 5);
  EXPECT_EQ(kBigint.Distance(IntKey(INT64_MAX), IntKey(INT64_MIN)), INT64_MIN);  // no wrap
  EXPECT_EQ(kBigint.Distance(IntKey(INT64_MIN), IntKey(INT64_MAX)), INT64_MAX);
  EXPECT_EQ(kBigint.Advance(IntKey(254), 3), IntKey(257));
  const IndexKeyOrder int4({LogicalType{TypeId::kInt32}});
  EXPECT_TRUE(int4.Check(IntKey(7, 4)).ok());
  EXPECT_FALSE(int4.Check(IntKey(7, 8)).ok());
  EXPECT_LT(int4.Compare(IntKey(-1, 4), IntKey(0, 4)), 0);
  EXPECT_TRUE(int4.RunFits(IntKey(2147483646, 4), 2));
  EXPECT_FALSE(int4.RunFits(IntKey(2147483646, 4), 3));
  // Narrower integers are sign-extended from their own width.
  const IndexKeyOrder int2({LogicalType{TypeId::kInt16}}), int1({LogicalType{TypeId::kInt8}});
  EXPECT_LT(int2.Compare(IntKey(-32768, 2), IntKey(32767, 2)), 0);
  EXPECT_EQ(int2.Distance(IntKey(-2, 2), IntKey(3, 2)), 5);
  EXPECT_EQ(int2.IntegerValue(IntKey(-300, 2)), -300);
  EXPECT_LT(int1.Compare(IntKey(-128, 1), IntKey(127, 1)), 0);
  EXPECT_EQ(int1.IntegerValue(IntKey(-1, 1)), -1);
  EXPECT_EQ(int4.IntegerValue(IntKey(-2147483648, 4)), -2147483648);
  EXPECT_FALSE(kText.RunFits("\1abc", 2));
  EXPECT_EQ(kText.Distance("\1abc", "\1abd"), 1);
}

TEST(KeyRunSorterTest, ShuffledRowsOfAnOrderedFileBecomeOneRun) {
  std::vector<int64_t> keys(10000);
  std::iota(keys.begin(), keys.end(), -500);
  std::shuffle(keys.begin(), keys.end(), std::mt19937(7));
  for (size_t budget : {size_t{64} << 20, size_t{4096}}) {  // in memory; spilled many times
    KeyRunSorter sorter(kBigint, budget);
    for (int64_t k : keys) ASSERT_TRUE(sorter.Add(KeyRun{IntKey(k), 3, k + 500, 1}).ok());
    const std::vector<KeyRun> runs = Drain(sorter);
    ASSERT_EQ(runs.size(), 1u) << budget;
    EXPECT_EQ(runs[0].key, IntKey(-500));
    EXPECT_EQ(runs[0].pos, 0);
    EXPECT_EQ(runs[0].rows, 10000);
  }
}

TEST(KeyRunSorterTest, GapsFilesAndPositionsSplitRuns) {
  KeyRunSorter sorter(kBigint, 1024);
  // keys 1..3 at 0..2 of file 0; 4 at 7 of file 0; 5..6 at 0..1 of file 1; 8 at 2 of file 1.
  for (auto [k, f, p] : std::vector<std::tuple<int64_t, uint32_t, int64_t>>{
           {8, 1, 2}, {2, 0, 1}, {5, 1, 0}, {1, 0, 0}, {4, 0, 7}, {6, 1, 1}, {3, 0, 2}}) {
    ASSERT_TRUE(sorter.Add(KeyRun{IntKey(k), f, p, 1}).ok());
  }
  const std::vector<KeyRun> runs = Drain(sorter);
  ASSERT_EQ(runs.size(), 4u);
  EXPECT_EQ(runs[0].rows, 3);
  EXPECT_EQ(runs[1].key, IntKey(4));
  EXPECT_EQ(runs[2].rows, 2);
  EXPECT_EQ(runs[3].key, IntKey(8));
}

TEST(KeyRunSorterTest, AKeyTwiceIsCorruptionInMemoryAndSpilled) {
  for (size_t budget : {size_t{1} << 20, size_t{256}}) {
    KeyRunSorter sorter(kBigint, budget);
    for (int64_t k = 0; k < 100; ++k) ASSERT_TRUE(sorter.Add(KeyRun{IntKey(k), 0, k, 1}).ok());
    ASSERT_TRUE(sorter.Add(KeyRun{IntKey(42), 1, 0, 1}).ok());
    const Status s = sorter.Finish([](const KeyRun&) { return Status::OK(); });
    EXPECT_EQ(s.code(), Code::kCorruption) << budget;
  }
}

TEST(KeyRunSorterTest, OtherKeysSortByBytesOneRowARun) {
  KeyRunSorter sorter(kText, 200);
  const std::vector<std::string> keys = {"\1pear", "\1apple", "\1fig", "\1apples", "\1banana"};
  for (size_t i = 0; i < keys.size(); ++i) {
    ASSERT_TRUE(sorter.Add(KeyRun{keys[i], 0, static_cast<int64_t>(i), 1}).ok());
  }
  const std::vector<KeyRun> runs = Drain(sorter);
  ASSERT_EQ(runs.size(), 5u);
  EXPECT_EQ(runs[0].key, "\1apple");
  EXPECT_EQ(runs[0].pos, 1);
  EXPECT_EQ(runs[4].key, "\1pear");
}

std::vector<KeyRun> ReadRuns(ObjectStore& store, const std::string& key,
                             const IndexKeyOrder& order, IndexFiles* files, Status* status) {
  std::vector<KeyRun> out;
  KeyIndexOrigin origin;
  origin.index_key = key;
  *status = ForEachKeyRun(store, origin, order, files, [&](const KeyRun& r) {
    out.push_back(r);
    return Status::OK();
  });
  return out;
}

TEST(KeyIndexFileTest, WrittenRunsReadBackJoinedListingTheFilesUsed) {
  MemoryStore store;
  IndexFiles written;
  const uint32_t unused = written.Id("t/unused.parquet");
  const uint32_t a = written.Id("t/a.parquet");
  auto w = KeyIndexWriter::Open(store, "t/metadata/keyindex-a.parquet", kBigint, written);
  ASSERT_TRUE(w.ok());
  ASSERT_TRUE((*w)->Add(IntKey(1), a, 0, 10).ok());
  ASSERT_TRUE((*w)->Add(IntKey(11), a, 10, 5).ok());  // continues: joined
  ASSERT_TRUE((*w)->Add(IntKey(17), a, 15, 1).ok());  // a gap in the keys
  const uint32_t inc = written.Id("t/inc.parquet");   // a file named after the writer opened
  ASSERT_TRUE((*w)->Add(IntKey(18), inc, 0, 2).ok());
  EXPECT_EQ((*w)->Add(IntKey(19), a, 0, 1).code(), Code::kInternal);  // inside the run before
  ASSERT_TRUE((*w)->Close().ok());
  EXPECT_NE(unused, a);
  IndexFiles files;
  Status s;
  const std::vector<KeyRun> runs = ReadRuns(store, "t/metadata/keyindex-a.parquet", kBigint,
                                            &files, &s);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[0].rows, 15);
  EXPECT_EQ(files.Key(runs[0].file), "t/a.parquet");
  EXPECT_EQ(files.Key(runs[2].file), "t/inc.parquet");
  EXPECT_EQ(runs[2].rows, 2);
  EXPECT_EQ(files.size(), 2u);  // the unused file is not listed
}

// An index file with the given rows, of the sorted form (`file` the run's place in the list
// `files`) or of the old one (`file` "t/a.parquet", no `rows`).
void WriteIndexFile(MemoryStore& store, const std::string& key, bool sorted,
                    const std::vector<KeyRun>& rows,
                    const std::string& files = R"(["t/a.parquet"])") {
  std::vector<Column> columns = {
      Column{"key", LogicalType{TypeId::kBinary}, false},
      Column{"file", LogicalType{sorted ? TypeId::kInt32 : TypeId::kString}, false},
      Column{"pos", LogicalType{TypeId::kInt64}, false}};
  if (sorted) columns.push_back(Column{"rows", LogicalType{TypeId::kInt64}, false});
  const Schema schema(columns);
  RowBatch batch(schema);
  for (const KeyRun& r : rows) {
    batch.column(0).AppendBytes(r.key);
    if (sorted) {
      batch.column(1).Append<int32_t>(static_cast<int32_t>(r.file));
    } else {
      batch.column(1).AppendBytes("t/a.parquet");
    }
    batch.column(2).Append<int64_t>(r.pos);
    if (sorted) batch.column(3).Append<int64_t>(r.rows);
  }
  auto out = store.NewWriter(key);
  ASSERT_TRUE(out.ok());
  ParquetWriterOptions options;
  if (sorted) {
    options.key_value_metadata = {{"lakedump.key-index", "sorted-runs"},
                                  {"lakedump.key-index.files", files}};
  }
  ParquetWriter writer(schema, options, out->get());
  ASSERT_TRUE(writer.Write(batch).ok());
  ASSERT_TRUE(writer.Close().ok());
  ASSERT_TRUE((*out)->Close().ok());
}

TEST(KeyIndexFileTest, AnIndexOfTheUnsortedFormIsReadSorted) {
  MemoryStore store;
  std::vector<KeyRun> rows;
  for (int64_t k : {5, 3, 4, 1, 2}) rows.push_back(KeyRun{IntKey(k), 0, k - 1, 1});
  WriteIndexFile(store, "old.parquet", false, rows);
  IndexFiles files;
  Status s;
  const std::vector<KeyRun> runs = ReadRuns(store, "old.parquet", kBigint, &files, &s);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].rows, 5);
}

TEST(KeyIndexFileTest, AHostileIndexIsRefused) {
  const std::vector<std::vector<KeyRun>> hostile = {
      {KeyRun{IntKey(5), 0, 0, 1}, KeyRun{IntKey(3), 0, 1, 1}},   // out of order
      {KeyRun{IntKey(1), 0, 0, 10}, KeyRun{IntKey(5), 0, 20, 1}},  // 5 inside the run before
      {KeyRun{IntKey(1), 0, -1, 1}},                               // a negative position
      {KeyRun{IntKey(1), 0, 0, 0}},                                // an empty run
      {KeyRun{IntKey(INT64_MAX - 1), 0, 0, 3}},                    // past bigint
      {KeyRun{IntKey(1, 4), 0, 0, 1}},                             // an int4 key for bigint
      {KeyRun{IntKey(1), 0, INT64_MAX - 1, 5}},                    // positions past int64
  };
  for (size_t i = 0; i < hostile.size(); ++i) {
    MemoryStore store;
    WriteIndexFile(store, "bad.parquet", true, hostile[i]);
    IndexFiles files;
    Status s;
    ReadRuns(store, "bad.parquet", kBigint, &files, &s);
    EXPECT_EQ(s.code(), Code::kCorruption) << i;
  }
  // A file the list does not have; a list that is not one.
  for (const auto& [file, list] : std::vector<std::pair<uint32_t, std::string>>{
           {1, R"(["t/a.parquet"])"}, {0, R"({"t/a.parquet": 0})"}, {0, "[1]"}, {0, "["}}) {
    MemoryStore store;
    WriteIndexFile(store, "bad.parquet", true, {KeyRun{IntKey(1), file, 0, 1}}, list);
    IndexFiles files;
    Status s;
    ReadRuns(store, "bad.parquet", kBigint, &files, &s);
    EXPECT_EQ(s.code(), Code::kCorruption) << list;
  }
}

// An index read a block at a time and copied into another, as an increment's merge does: the
// runs before each "changed" key go through in bulk (AddBlock), the changed key's run one at a
// time; blocks are batches of 8,192 rows, so the copy crosses blocks, and the files are listed
// again by the writer.
TEST(KeyIndexFileTest, BlocksCopiedThroughReadBackAsWritten) {
  MemoryStore store;
  IndexFiles written;
  const std::vector<uint32_t> ids = {written.Id("t/a.parquet"), written.Id("t/b.parquet"),
                                     written.Id("t/c.parquet")};
  std::vector<KeyRun> expected;
  {
    auto w = KeyIndexWriter::Open(store, "in.parquet", kBigint, written);
    ASSERT_TRUE(w.ok());
    for (int64_t i = 0; i < 20000; ++i) {  // runs of 1-3 keys, a gap after each
      const KeyRun r{IntKey(10 * i), ids[static_cast<size_t>(i % 3)], 5 * i, 1 + i % 3};
      ASSERT_TRUE((*w)->Add(r.key, r.file, r.pos, r.rows).ok());
      expected.push_back(r);
    }
    ASSERT_TRUE((*w)->Close().ok());
  }
  // "Changed" keys: inside a run, in a gap, and the keys of runs at and near block edges.
  const std::vector<int64_t> changed = {1, 75, 81910, 81920, 81930, 163845, 199990};
  IndexFiles files;
  auto w = KeyIndexWriter::Open(store, "out.parquet", kBigint, files);
  ASSERT_TRUE(w.ok());
  size_t next = 0, blocks = 0, single = 0;
  KeyIndexOrigin origin;
  origin.index_key = "in.parquet";
  const Status s = ForEachKeyRunBlock(
      store, origin, kBigint, &files,
      [&](const KeyRunBlock& block) -> Status {
        ++blocks;
        for (size_t i = 0; i < block.size();) {
          const size_t reach = next < changed.size()
                                   ? block.FirstReaching(i, IntKey(changed[next]), kBigint)
                                   : block.size();
          LD_RETURN_IF_ERROR((*w)->AddBlock(block, i, reach));
          i = reach;
          if (i == block.size()) break;
          const KeyRun r = block.run(i++);  // copied whole: only the copy is under test
          LD_RETURN_IF_ERROR((*w)->Add(r.key, r.file, r.pos, r.rows));
          ++single;
          while (next < changed.size() &&
                 kBigint.IntegerValue(r.key) + r.rows - 1 >= changed[next]) {
            ++next;
          }
        }
        return Status::OK();
      },
      [](const KeyRun&) { return Status::Internal("a sorted index is read in blocks"); });
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_TRUE((*w)->Close().ok());
  EXPECT_EQ(blocks, 3u);
  EXPECT_EQ(single, 7u);  // a key in a gap (1, 75, 163845): the run after it
  IndexFiles again;
  Status read;
  const std::vector<KeyRun> runs = ReadRuns(store, "out.parquet", kBigint, &again, &read);
  ASSERT_TRUE(read.ok()) << read.ToString();
  ASSERT_EQ(runs.size(), expected.size());
  for (size_t i = 0; i < runs.size(); ++i) {
    ASSERT_EQ(runs[i].key, expected[i].key) << i;
    ASSERT_EQ(again.Key(runs[i].file), written.Key(expected[i].file)) << i;
    ASSERT_EQ(runs[i].pos, expected[i].pos) << i;
    ASSERT_EQ(runs[i].rows, expected[i].rows) << i;
  }
}

// Keys out of order across two blocks (the 8,193rd row before the 8,192nd) are refused.
TEST(KeyIndexFileTest, KeysOutOfOrderAcrossBlocksAreRefused) {
  std::vector<KeyRun> rows;
  for (int64_t i = 0; i < 9000; ++i) rows.push_back(KeyRun{IntKey(10 * i), 0, i, 1});
  rows[8192].key = IntKey(10 * 8191 - 5);
  MemoryStore store;
  WriteIndexFile(store, "bad.parquet", true, rows);
  IndexFiles files;
  Status s;
  ReadRuns(store, "bad.parquet", kBigint, &files, &s);
  EXPECT_EQ(s.code(), Code::kCorruption);
  EXPECT_NE(s.ToString().find("row 8192 is out of key order"), std::string::npos) << s.ToString();
}

}  // namespace
}  // namespace lakedump

namespace lakedump {
namespace {

// A snapshot without an index: runs from its data files' key columns, consecutive values at
// consecutive positions joined, no run across the int64 wrap, sorted across files; the same
// runs written as an index read back as they were.
TEST(KeyIndexFileTest, DataFilesGiveSortedRunsOfTheirKeys) {
  MemoryStore store;
  const Schema schema({Column{"id", LogicalType{TypeId::kInt64}, false},
                       Column{"v", LogicalType{TypeId::kString}, true}});
  auto write = [&](const std::string& key, const std::vector<int64_t>& ids) {
    RowBatch batch(schema);
    for (int64_t id : ids) {
      batch.column(0).Append<int64_t>(id);
      batch.column(1).AppendBytes("x");
    }
    auto out = store.NewWriter(key);
    ASSERT_TRUE(out.ok());
    ParquetWriter writer(schema, ParquetWriterOptions{}, out->get());
    ASSERT_TRUE(writer.Write(batch).ok());
    ASSERT_TRUE(writer.Close().ok());
    ASSERT_TRUE((*out)->Close().ok());
  };
  write("t/b.parquet", {10, 11, INT64_MAX - 1, INT64_MAX, INT64_MIN});
  write("t/a.parquet", {1, 2, 3, 5});
  KeyIndexOrigin origin;
  origin.data_files = {"t/b.parquet", "t/a.parquet"};
  origin.key_columns = {"id"};
  IndexFiles files;
  std::vector<KeyRun> runs;
  ASSERT_TRUE(ForEachKeyRun(store, origin, kBigint, &files, [&](const KeyRun& r) {
                runs.push_back(r);
                return Status::OK();
              }).ok());
  ASSERT_EQ(runs.size(), 5u);
  EXPECT_EQ(runs[0].key, IntKey(INT64_MIN));
  EXPECT_EQ(runs[0].pos, 4);
  EXPECT_EQ(runs[1].key, IntKey(1));
  EXPECT_EQ(runs[1].rows, 3);
  EXPECT_EQ(files.Key(runs[1].file), "t/a.parquet");
  EXPECT_EQ(runs[2].key, IntKey(5));
  EXPECT_EQ(runs[3].key, IntKey(10));
  EXPECT_EQ(runs[3].rows, 2);
  EXPECT_EQ(runs[4].key, IntKey(INT64_MAX - 1));
  EXPECT_EQ(runs[4].rows, 2);
  EXPECT_EQ(runs[4].pos, 2);

  // An incremental base writes these runs as its snapshot's index (WriteDataFilesKeyIndex):
  // read back from it, the same runs naming the same files.
  auto bytes = WriteDataFilesKeyIndex(store, origin.data_files, origin.key_columns, kBigint,
                                      "t/metadata/keyindex-base.parquet");
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  EXPECT_GT(*bytes, 0u);
  KeyIndexOrigin index;
  index.index_key = "t/metadata/keyindex-base.parquet";
  IndexFiles read_files;
  size_t i = 0;
  ASSERT_TRUE(ForEachKeyRun(store, index, kBigint, &read_files, [&](const KeyRun& r) {
                EXPECT_LT(i, runs.size());
                if (i >= runs.size()) return Status::OK();
                EXPECT_EQ(r.key, runs[i].key) << i;
                EXPECT_EQ(read_files.Key(r.file), files.Key(runs[i].file)) << i;
                EXPECT_EQ(r.pos, runs[i].pos) << i;
                EXPECT_EQ(r.rows, runs[i].rows) << i;
                ++i;
                return Status::OK();
              }).ok());
  EXPECT_EQ(i, runs.size());
  // A key in two of the files is the data's Corruption, and no index is left half-written.
  write("t/c.parquet", {3});
  auto twice = WriteDataFilesKeyIndex(store, {"t/a.parquet", "t/c.parquet"}, {"id"}, kBigint,
                                      "t/metadata/keyindex-twice.parquet");
  EXPECT_EQ(twice.status().code(), Code::kCorruption) << twice.status().ToString();
  EXPECT_EQ(store.Head("t/metadata/keyindex-twice.parquet").status().code(), Code::kNotFound);
}

}  // namespace
}  // namespace lakedump
