// Row-group checksums (_table.json format 1.1): the dump records an XXH64 per row group's byte
// range and one for the footer; a load that splits a file's row groups across streams checks
// each range in the stream that reads it, so the file is read once, not a second time to hash
// it whole. Old dumps (no ranges) keep the whole-file hash after the streams.
#include <gtest/gtest.h>

#include <map>
#include <mutex>

#include <nlohmann/json.hpp>

#include "dump/export_service.h"
#include "lake/object_keys.h"
#include "fakes/fake_database.h"
#include "fakes/fake_target_database.h"
#include "load/load_service.h"
#include "store/forwarding_store.h"
#include "store/memory/memory_store.h"

namespace lakedump {
namespace {

using json = nlohmann::json;

// Wraps a store and records every ReadAt (key, offset, length). Thread-safe.
class ReadCountingStore final : public ForwardingStore {
 public:
  explicit ReadCountingStore(ObjectStore* target) : ForwardingStore(target) {}

  // How many times each byte of `key` was read, for bytes [0, size).
  std::vector<int> Coverage(const std::string& key, uint64_t size) const {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<int> times(size, 0);
    auto it = reads_.find(key);
    if (it == reads_.end()) return times;
    for (const auto& [offset, length] : it->second) {
      for (uint64_t b = offset; b < offset + length && b < size; ++b) ++times[b];
    }
    return times;
  }

  Result<std::unique_ptr<ObjectReader>> NewReader(std::string_view key) override {
    LD_ASSIGN_OR_RETURN(auto inner, target()->NewReader(key));
    return std::unique_ptr<ObjectReader>(new Reader(this, std::string(key), std::move(inner)));
  }
  // Through NewReader(), so that whole-object reads are recorded too.
  Result<WholeObject> ReadWhole(std::string_view key, std::optional<uint64_t> max_bytes) override {
    return ObjectStore::ReadWhole(key, max_bytes);
  }

 private:
  class Reader final : public ForwardingReader {
   public:
    Reader(ReadCountingStore* store, std::string key, std::unique_ptr<ObjectReader> inner)
        : ForwardingReader(std::move(inner)), store_(store), key_(std::move(key)) {}
    Status ReadAt(uint64_t offset, uint64_t length, std::string* out) override {
      {
        std::lock_guard<std::mutex> lock(store_->mu_);
        store_->reads_[key_].push_back({offset, length});
      }
      return ForwardingReader::ReadAt(offset, length, out);
    }

   private:
    ReadCountingStore* const store_;
    const std::string key_;
  };

  mutable std::mutex mu_;
  std::map<std::string, std::vector<std::pair<uint64_t, uint64_t>>> reads_;  // guarded by mu_
};

// A dump of main.a: 3000 rows in 2 files of 4 row groups (400 rows each, the last shorter),
// uncompressed and without dictionaries, so that a flipped value byte still decodes.
class RowGroupChecksumTest : public ::testing::Test {
 protected:
  void SetUp() override {
    FakeDatabase db;
    db.AddTable(FakeTable{TableRef{"main", "a"}, 3000, -1, {}, 2});
    DumpOptions o;
    o.table_parallelism = 1;
    o.batch_rows = 400;
    o.parquet.row_group_rows = 400;
    o.parquet.codec = CodecKind::kNone;
    o.parquet.dictionary = false;
    o.progress = ProgressMode::kNone;
    o.sign_key = SignKey();
    ExportService dump(&db, &memory_, o);
    auto r = dump.Run();
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    table_ = json::parse(*memory_.GetObject(TableManifestKey(TableRef{"main", "a"})));
    ASSERT_EQ(table_["files"].size(), 2u);
  }

  // Loads with 2 streams: 2 files < 4 per stream, so the row groups are the units.
  Result<LoadResult> Load(ObjectStore* store, FakeTargetDatabase* target) {
    LoadOptions o;
    o.table_parallelism = 1;
    o.file_parallelism = 2;
    o.batch_rows = 300;
    o.signing_key = SignKey();
    LoadService service(store, target, std::move(o));
    return service.Run();
  }

  void StripRangeChecksums() {  // as a dump from before format 1.1
    for (json& f : table_["files"]) {
      f.erase("row_groups");
      f.erase("footer");
    }
    ASSERT_TRUE(
        memory_.PutObject(TableManifestKey(TableRef{"main", "a"}), table_.dump()).ok());
  }

  // Non-empty: the dump is signed with it and loaded with --require-signature.
  virtual std::string SignKey() const { return ""; }

  MemoryStore memory_;
  json table_;
};

// A signed dump's sha256 is of the whole file: a load that checks the signature hashes every
// file whole (not by row-group range), even when its row groups are split across streams.
class SignedRowGroupChecksumTest : public RowGroupChecksumTest {
 protected:
  std::string SignKey() const override { return "0123456789abcdef0123456789abcdef-test"; }
};

TEST_F(RowGroupChecksumTest, RangesTileEachFileAndMatchItsBytes) {
  for (const json& f : table_["files"]) {
    const std::string bytes = *memory_.GetObject(f["key"].get<std::string>());
    ASSERT_EQ(f["row_groups"].size(), 4u) << f.dump();
    uint64_t at = 0;
    for (const json& r : f["row_groups"]) {
      EXPECT_EQ(r["offset"].get<uint64_t>(), at);
      const uint64_t n = r["bytes"].get<uint64_t>();
      EXPECT_EQ(r["xxh64"].get<std::string>(), Xxh64Hex(std::string_view(bytes).substr(at, n)));
      at += n;
    }
    const json& footer = f["footer"];
    EXPECT_EQ(footer["offset"].get<uint64_t>(), at);
    EXPECT_EQ(at + footer["bytes"].get<uint64_t>(), bytes.size());
    EXPECT_EQ(footer["xxh64"].get<std::string>(), Xxh64Hex(std::string_view(bytes).substr(at)));
    EXPECT_EQ(bytes.substr(bytes.size() - 4), "PAR1");
  }
}

TEST_F(RowGroupChecksumTest, SplitFilesAreReadOnce) {
  ReadCountingStore store(&memory_);
  FakeTargetDatabase target(/*max_sinks=*/4);
  auto r = Load(&store, &target);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(target.Table("main.a")->ids.size(), 3000u);
  EXPECT_FALSE(target.Table("main.a")->single_sink);  // split across streams
  for (const json& f : table_["files"]) {
    const std::string key = f["key"];
    const uint64_t size = f["bytes"];
    const uint64_t footer = f["footer"]["offset"];
    std::vector<int> times = store.Coverage(key, size);
    // Every byte of the row groups once (the first 4, the magic, are also read with each
    // footer); the footer's bytes once per open of the file, as before.
    for (uint64_t b = 4; b < footer; ++b) ASSERT_EQ(times[b], 1) << key << " byte " << b;
  }
}

TEST_F(RowGroupChecksumTest, OldDumpsAreHashedWholeAfterTheStreams) {
  StripRangeChecksums();
  ReadCountingStore store(&memory_);
  FakeTargetDatabase target(/*max_sinks=*/4);
  auto r = Load(&store, &target);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(target.Table("main.a")->ids.size(), 3000u);
  for (const json& f : table_["files"]) {
    std::vector<int> times = store.Coverage(f["key"], f["bytes"]);
    for (uint64_t b = 4; b < times.size() - 8; ++b) ASSERT_GE(times[b], 2) << b;
  }
}

// Flips one byte, the last of row group `g` of file `file` (a value byte of the last column).
void FlipLastByteOfRowGroup(MemoryStore* memory, const json& file, size_t g) {
  const std::string key = file["key"];
  std::string bytes = *memory->GetObject(key);
  const json& r = file["row_groups"][g];
  const uint64_t at = r["offset"].get<uint64_t>() + r["bytes"].get<uint64_t>() - 1;
  bytes[at] = static_cast<char>(bytes[at] ^ 0x01);
  ASSERT_TRUE(memory->PutObject(key, bytes).ok());
}

TEST_F(RowGroupChecksumTest, AFlippedByteInOneRowGroupIsCaughtByItsStream) {
  FlipLastByteOfRowGroup(&memory_, table_["files"][1], 2);
  FakeTargetDatabase target(/*max_sinks=*/4);
  auto r = Load(&memory_, &target);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kCorruption) << r.status().ToString();
  const std::string key = table_["files"][1]["key"];
  EXPECT_NE(r.status().message().find("data file " + key + " (row group 2, "),
            std::string::npos)
      << r.status().ToString();
  EXPECT_NE(r.status().message().find("does not match its recorded checksum"), std::string::npos)
      << r.status().ToString();
  EXPECT_TRUE(target.Table("main.a")->aborted);
  EXPECT_FALSE(target.Table("main.a")->committed);
}

TEST_F(RowGroupChecksumTest, AFlippedByteInTheFooterIsCaughtAtOpen) {
  const json& file = table_["files"][0];
  const std::string key = file["key"];
  std::string bytes = *memory_.GetObject(key);
  // A byte of the footer's created_by text: the footer still decodes, only the checksum sees it.
  const size_t at = bytes.find("lakedump version");
  ASSERT_NE(at, std::string::npos);
  bytes[at] = 'L';
  ASSERT_TRUE(memory_.PutObject(key, bytes).ok());
  FakeTargetDatabase target(/*max_sinks=*/4);
  auto r = Load(&memory_, &target);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("data file " + key + " (footer) does not match"),
            std::string::npos)
      << r.status().ToString();
}

TEST_F(RowGroupChecksumTest, RangesThatDoNotTileTheFileAreRefused) {
  table_["files"][0]["row_groups"][1]["offset"] = 5;
  ASSERT_TRUE(memory_.PutObject(TableManifestKey(TableRef{"main", "a"}), table_.dump()).ok());
  FakeTargetDatabase target(/*max_sinks=*/4);
  auto r = Load(&memory_, &target);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kCorruption) << r.status().ToString();
  EXPECT_NE(r.status().message().find("row group 1 checksum range"), std::string::npos)
      << r.status().ToString();
}

TEST_F(RowGroupChecksumTest, OldDumpWithAFlippedByteIsStillCaught) {
  FlipLastByteOfRowGroup(&memory_, table_["files"][1], 2);
  StripRangeChecksums();
  FakeTargetDatabase target(/*max_sinks=*/4);
  auto r = Load(&memory_, &target);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("does not match its recorded checksum"), std::string::npos)
      << r.status().ToString();
  EXPECT_FALSE(target.Table("main.a")->committed);
}

TEST_F(SignedRowGroupChecksumTest, SplitFilesOfASignedDumpAreHashedWhole) {
  ASSERT_FALSE(table_["files"][0].value("sha256", "").empty()) << table_.dump();
  ReadCountingStore store(&memory_);
  FakeTargetDatabase target(/*max_sinks=*/4);
  auto r = Load(&store, &target);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(target.Table("main.a")->ids.size(), 3000u);
  EXPECT_FALSE(target.Table("main.a")->single_sink);  // split across streams
  for (const json& f : table_["files"]) {
    std::vector<int> times = store.Coverage(f["key"], f["bytes"]);
    // Read by the streams, then once more whole for XXH64 + SHA-256.
    for (uint64_t b = 4; b < times.size() - 8; ++b) ASSERT_GE(times[b], 2) << b;
  }
}

TEST_F(SignedRowGroupChecksumTest, AFlippedByteIsRefusedAsAlteredBySha256) {
  FlipLastByteOfRowGroup(&memory_, table_["files"][1], 2);
  FakeTargetDatabase target(/*max_sinks=*/4);
  auto r = Load(&memory_, &target);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kPermissionDenied) << r.status().ToString();
  const std::string key = table_["files"][1]["key"];
  EXPECT_NE(r.status().message().find("data file " + key + " was altered after the dump"),
            std::string::npos)
      << r.status().ToString();
  EXPECT_FALSE(target.Table("main.a")->committed);
}

}  // namespace
}  // namespace lakedump
