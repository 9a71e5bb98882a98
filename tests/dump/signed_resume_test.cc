// `--if-exists resume` with --sign-key-file (issue 29): a table kept from the earlier run is
// signed again only after every file it keeps is hashed again. A data file altered in between
// (same size, one byte) makes its table dumped again, never signed as it is; the other table
// is reused; the resumed dump verifies with the key.
#include <gtest/gtest.h>

#include "dump/export_service.h"
#include "fakes/fake_database.h"
#include "lake/signature.h"
#include "lake/verifier.h"
#include "store/memory/memory_store.h"

namespace lakedump {
namespace {

DumpOptions SignedOptions(IfExists if_exists) {
  DumpOptions o;
  o.table_parallelism = 2;
  o.batch_rows = 500;
  o.parquet.row_group_rows = 1000;
  o.progress = ProgressMode::kNone;
  o.if_exists = if_exists;
  o.sign_key = std::string(32, 'k');
  return o;
}

FakeDatabase TwoTables() {
  FakeDatabase db;
  db.AddTable(FakeTable{TableRef{"main", "a"}, 3000});
  db.AddTable(FakeTable{TableRef{"main", "b"}, 1500});
  db.set_identity("signed-resume");
  return db;
}

// The data file keys of `table` in the committed, signed dump.
std::vector<std::string> DataKeys(MemoryStore& store, const std::string& table) {
  auto m = ReadSignedManifest(store, std::string(32, 'k'));
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  std::vector<std::string> keys;
  if (!m.ok()) return keys;
  for (const TableSummary& s : m->tables) {
    if (s.table.name != table) continue;
    auto t = ReadSignedTableManifest(store, s);
    EXPECT_TRUE(t.ok()) << t.status().ToString();
    if (!t.ok()) return keys;
    for (const DataFile& f : t->files) keys.push_back(f.key);
  }
  return keys;
}

TEST(SignedResumeTest, AReusedFileAlteredSinceTheEarlierRunIsDumpedAgainNotSigned) {
  MemoryStore store("signed-resume");
  FakeDatabase db = TwoTables();
  ASSERT_TRUE(ExportService(&db, &store, SignedOptions(IfExists::kFail)).Run().ok());
  const std::vector<std::string> a_before = DataKeys(store, "a");
  const std::vector<std::string> b_before = DataKeys(store, "b");
  ASSERT_FALSE(a_before.empty());
  // An attacker with write access flips one byte of a's first file (same size).
  auto data = store.GetObject(a_before[0]);
  ASSERT_TRUE(data.ok());
  std::string altered = *data;
  altered[altered.size() / 2] ^= 0x01;
  ASSERT_TRUE(store.PutObject(a_before[0], altered).ok());

  auto r = ExportService(&db, &store, SignedOptions(IfExists::kResume)).Run();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->reused_tables, 1u);               // b, whose files still match
  EXPECT_EQ(DataKeys(store, "b"), b_before);
  const std::vector<std::string> a_after = DataKeys(store, "a");
  ASSERT_FALSE(a_after.empty());
  EXPECT_NE(a_after, a_before);                  // a dumped again
  VerifyOptions options;
  options.signing_key = std::string(32, 'k');
  auto report = Verify(store, options);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_TRUE(report->ok()) << report->problems.front().ToString();
}

}  // namespace
}  // namespace lakedump
