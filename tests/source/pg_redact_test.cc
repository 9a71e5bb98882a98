// libpq messages never carry the password or the whole URI (issue 16): libpq's URI parser
// quotes what it failed on, password included. RedactConnSecrets is the one filter every
// libpq message goes through; the real libpq is used (a parse error needs no server).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "source/postgres/pg_conn.h"

namespace lakedump {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// The finding: `invalid percent-encoded token: "Pw%zz..."` quoted the password.
TEST(PgRedactTest, BadPercentEncodingInThePasswordIsNotQuoted) {
  const std::string uri = "postgresql://alice:Pw%zzS3cretTail@localhost:1/db";
  auto conn = PgConn::Connect(uri, 1);
  ASSERT_FALSE(conn.ok());
  const std::string m(conn.status().message());
  EXPECT_THAT(m, Not(HasSubstr("Pw%zz")));
  EXPECT_THAT(m, Not(HasSubstr("S3cret")));
  EXPECT_THAT(m, Not(HasSubstr(uri)));
  EXPECT_THAT(m, HasSubstr("percent"));  // still says what is wrong
}

// The finding: a typo in an IPv6 host quoted the whole URI, password included.
TEST(PgRedactTest, BadIpv6HostDoesNotQuoteTheUri) {
  const std::string uri = "postgresql://alice:S3cretPw@[::1/db";
  auto conn = PgConn::Connect(uri, 1);
  ASSERT_FALSE(conn.ok());
  const std::string m(conn.status().message());
  EXPECT_THAT(m, Not(HasSubstr("S3cretPw")));
  EXPECT_THAT(m, Not(HasSubstr(uri)));
}

TEST(PgRedactTest, RedactsPasswordsInEveryForm) {
  EXPECT_EQ(RedactConnSecrets("invalid percent-encoded token: \"Pw%zzab\"",
                              "postgres://u:Pw%zzab@h/d"),
            "invalid percent-encoded token: \"(redacted)\"");
  EXPECT_EQ(RedactConnSecrets("bad \"postgres://u:pw1234@[::1/d\"", "postgres://u:pw1234@[::1/d"),
            "bad \"(redacted)\"");
  EXPECT_EQ(RedactConnSecrets("x pass word y", "host=h password='pass word'"),
            "x (redacted) y");
  EXPECT_EQ(RedactConnSecrets("saw p@ss!", "postgres://u:p%40ss!@h/d"), "saw (redacted)");
  EXPECT_EQ(RedactConnSecrets("saw qpw1", "postgres://h/d?user=u&password=qpw1"),
            "saw (redacted)");
  // Nothing to hide: the message is kept, quoted host names included.
  EXPECT_EQ(RedactConnSecrets("could not translate host name \"db.example\" to address",
                              "postgres://u@db.example/d"),
            "could not translate host name \"db.example\" to address");
}

}  // namespace
}  // namespace lakedump
