// The pgoutput message decoder (source/postgres/pgoutput.h) on crafted messages: every field
// read, and a message cut short or malformed is Corruption, never a read past its end.
#include "source/postgres/pgoutput.h"

#include <gtest/gtest.h>

#include <string>

namespace lakedump {
namespace {

void Be(std::string* out, uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

std::string Relation() {
  std::string m = "R";
  Be(&m, 16390, 4);
  m += std::string("public\0t\0", 9);
  m += 'd';
  Be(&m, 2, 2);
  m += '\1';
  m += std::string("id\0", 3);
  Be(&m, 23, 4);
  Be(&m, 0xffffffffu, 4);
  m += '\0';
  m += std::string("v\0", 2);
  Be(&m, 25, 4);
  Be(&m, 0xffffffffu, 4);
  return m;
}

TEST(PgoutputTest, ParsesBeginRelationAndChanges) {
  PgoutputMessage m;
  std::string begin = "B";
  Be(&begin, 0x1234567890ull, 8);
  Be(&begin, 777, 8);
  Be(&begin, 42, 4);
  ASSERT_TRUE(ParsePgoutputMessage(begin, &m).ok());
  EXPECT_EQ(m.type, 'B');
  EXPECT_EQ(m.final_lsn, 0x1234567890ull);
  EXPECT_EQ(m.commit_ts, 777);
  EXPECT_EQ(m.xid, 42u);

  ASSERT_TRUE(ParsePgoutputMessage(Relation(), &m).ok());
  EXPECT_EQ(m.relation.oid, 16390u);
  EXPECT_EQ(m.relation.schema, "public");
  EXPECT_EQ(m.relation.name, "t");
  ASSERT_EQ(m.relation.columns.size(), 2u);
  EXPECT_TRUE(m.relation.columns[0].key);
  EXPECT_EQ(m.relation.columns[1].name, "v");
  EXPECT_EQ(m.relation.columns[1].type_oid, 25u);
  EXPECT_EQ(m.relation.columns[1].typmod, -1);

  // An update whose key changed: old key tuple, then the new tuple with an unchanged value.
  std::string update = "U";
  Be(&update, 16390, 4);
  update += 'K';
  Be(&update, 2, 2);
  update += 'b';
  Be(&update, 4, 4);
  Be(&update, 7, 4);
  update += 'n';
  update += 'N';
  Be(&update, 2, 2);
  update += 'b';
  Be(&update, 4, 4);
  Be(&update, 8, 4);
  update += 'u';
  ASSERT_TRUE(ParsePgoutputMessage(update, &m).ok());
  EXPECT_EQ(m.old_kind, 'K');
  ASSERT_EQ(m.old_tuple.size(), 2u);
  EXPECT_EQ(m.old_tuple[0].kind, 'b');
  EXPECT_EQ(m.old_tuple[0].bytes, std::string("\0\0\0\7", 4));
  ASSERT_EQ(m.new_tuple.size(), 2u);
  EXPECT_EQ(m.new_tuple[1].kind, 'u');

  std::string truncate = "T";
  Be(&truncate, 2, 4);
  truncate += '\0';
  Be(&truncate, 1, 4);
  Be(&truncate, 2, 4);
  ASSERT_TRUE(ParsePgoutputMessage(truncate, &m).ok());
  EXPECT_EQ(m.truncated, (std::vector<uint32_t>{1, 2}));
}

TEST(PgoutputTest, EveryCutShortMessageIsCorruption) {
  std::string insert = "I";
  Be(&insert, 16390, 4);
  insert += 'N';
  Be(&insert, 1, 2);
  insert += 'b';
  Be(&insert, 3, 4);
  insert += "abc";
  PgoutputMessage m;
  ASSERT_TRUE(ParsePgoutputMessage(insert, &m).ok());
  for (const std::string& whole : {insert, Relation()}) {
    for (size_t n = 1; n < whole.size(); ++n) {
      Status s = ParsePgoutputMessage(whole.substr(0, n), &m);
      EXPECT_EQ(s.code(), Code::kCorruption) << whole[0] << " cut at " << n;
    }
  }
  // A value length past the end, an unknown value kind, an unknown message type.
  std::string bad = "I";
  Be(&bad, 1, 4);
  bad += 'N';
  Be(&bad, 1, 2);
  bad += 'b';
  Be(&bad, 0xfffffff0u, 4);
  EXPECT_EQ(ParsePgoutputMessage(bad, &m).code(), Code::kCorruption);
  bad = "I";
  Be(&bad, 1, 4);
  bad += 'N';
  Be(&bad, 1, 2);
  bad += 'x';
  EXPECT_EQ(ParsePgoutputMessage(bad, &m).code(), Code::kCorruption);
  EXPECT_EQ(ParsePgoutputMessage("Z", &m).code(), Code::kUnimplemented);
}

TEST(PgoutputTest, LsnTextRoundTrips) {
  EXPECT_EQ(FormatLsn(0x16B3748ull), "0/16B3748");
  EXPECT_EQ(FormatLsn((5ull << 32) | 0xABCull), "5/ABC");
  EXPECT_EQ(*ParseLsn("5/abc"), (5ull << 32) | 0xABCull);
  EXPECT_FALSE(ParseLsn("5").ok());
  EXPECT_FALSE(ParseLsn("/1").ok());
  EXPECT_FALSE(ParseLsn("123456789/1").ok());
  EXPECT_FALSE(ParseLsn("1/g").ok());
}

}  // namespace
}  // namespace lakedump
