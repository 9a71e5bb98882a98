// Credentials never reach the manifest: RedactCredentials on source descriptions, and its text
// filter checked against the regular expressions it replaces (std::regex, ECMAScript) on
// generated text.
#include "base/redact_credentials.h"

#include <gtest/gtest.h>

#include <random>
#include <regex>
#include <string>

namespace lakedump {
namespace {

// The definition RedactSecretsInText implements without <regex> in the library.
std::string RegexRedact(const std::string& text) {
  static const std::regex kUserInfo(R"(([A-Za-z][A-Za-z0-9+.-]*://[^/:@\s]*):[^@/\s]*@)");
  static const std::regex kKeyword(R"((password|secret|sslpassword)\s*=\s*('[^']*'|\S+))",
                                   std::regex::icase);
  return std::regex_replace(std::regex_replace(text, kUserInfo, "$1@"), kKeyword, "$1=***");
}

TEST(RedactCredentialsTest, UrlPasswordsGo) {
  EXPECT_EQ(RedactSecretsInText("postgresql://alice:S3cret@db.example:5432/app"),
            "postgresql://alice@db.example:5432/app");
  EXPECT_EQ(RedactSecretsInText("a s3://k:v@h/x and postgres://u:p@h2/y"),
            "a s3://k@h/x and postgres://u@h2/y");
  EXPECT_EQ(RedactSecretsInText("postgresql://alice@host/db"), "postgresql://alice@host/db");
  EXPECT_EQ(RedactSecretsInText("postgresql://:pw@host/db"), "postgresql://@host/db");
  EXPECT_EQ(RedactSecretsInText("1x://u:p@h"), "1x://u@h");  // the scheme starts at the letter
  EXPECT_EQ(RedactSecretsInText("12://u:p@h"), "12://u:p@h");  // no letter: not a URL
}

TEST(RedactCredentialsTest, ConninfoPasswordsGo) {
  EXPECT_EQ(RedactSecretsInText("host=h password=S3cret dbname=d"),
            "host=h password=*** dbname=d");
  EXPECT_EQ(RedactSecretsInText("PassWord = 'two words' user=u"), "PassWord=*** user=u");
  EXPECT_EQ(RedactSecretsInText("sslpassword='x' secret=y"), "sslpassword=*** secret=***");
  EXPECT_EQ(RedactSecretsInText("password='unterminated rest"), "password=*** rest");
  EXPECT_EQ(RedactSecretsInText("password= "), "password= ");  // nothing to hide
}

TEST(RedactCredentialsTest, DescriptionsLoseSecretKeysAndPasswords) {
  const nlohmann::json in = {
      {"kind", "postgresql"},
      {"dsn", "postgresql://alice:S3cret@h/db"},
      {"options", {{"Password", "x"}, {"client_secret", "y"}, {"token", "z"}, {"port", 5432}}},
      {"hosts", {"host=a password=p1", "host=b"}}};
  const nlohmann::json out = RedactCredentials(in);
  EXPECT_EQ(out["kind"], "postgresql");
  EXPECT_EQ(out["dsn"], "postgresql://alice@h/db");
  EXPECT_EQ(out["options"], (nlohmann::json{{"port", 5432}}));
  EXPECT_EQ(out["hosts"], (nlohmann::json{"host=a password=***", "host=b"}));
  EXPECT_EQ(out.dump().find("S3cret"), std::string::npos);
}

// Random text built from the patterns' pieces: the same output as the regular expressions.
TEST(RedactCredentialsTest, AgreesWithTheRegularExpressions) {
  static const char* const kPieces[] = {
      "password", "PASSWORD", "secret", "sslpassword", "SslPassWord", "passwor", "://", ":",
      "/",        "@",        "=",      " ",           "\t",          "\n",      "'",   "a",
      "Z",        "7",        "+",      ".",           "-",           "x://",    "s3",  "\xc3\xa9",
      "pw",       "u:p@",     "'q w'",  "==",          "http",        "\x80",    "",    ";"};
  std::mt19937 rng(14);
  std::uniform_int_distribution<size_t> piece(0, std::size(kPieces) - 1), length(0, 14);
  for (int n = 0; n < 20000; ++n) {
    std::string text;
    for (size_t k = length(rng); k > 0; --k) text += kPieces[piece(rng)];
    ASSERT_EQ(RedactSecretsInText(text), RegexRedact(text)) << "text: [" << text << "]";
  }
}

}  // namespace
}  // namespace lakedump
