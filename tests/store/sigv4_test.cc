#include "store/s3/sigv4.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace lakedump {
namespace {

constexpr char kEmptyHash[] = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

std::chrono::system_clock::time_point At(int y, int mo, int d, int h, int mi, int s) {
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = s;
  return std::chrono::system_clock::from_time_t(timegm(&tm));
}

std::string Authorization(const SigningRequest& r) {
  for (const auto& [k, v] : r.headers) {
    if (k == "Authorization") return v;
  }
  return "";
}

Credentials S3Example() {
  return {"AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "", "test"};
}

// The examples of the S3 API reference ("Signature calculations for the
// Authorization header"), golden strings.
TEST(SigV4Test, S3ExampleGetObjectWithRange) {
  SigningRequest r;
  r.method = "GET";
  r.canonical_uri = "/test.txt";
  r.headers = {{"Host", "examplebucket.s3.amazonaws.com"},
               {"Range", "bytes=0-9"},
               {"x-amz-content-sha256", kEmptyHash}};
  r.payload_hash = kEmptyHash;
  SigningRequest copy = r;
  copy.headers.emplace_back("x-amz-date", "20130524T000000Z");
  std::string signed_headers;
  EXPECT_EQ(CanonicalRequest(copy, &signed_headers),
            "GET\n/test.txt\n\nhost:examplebucket.s3.amazonaws.com\nrange:bytes=0-9\n"
            "x-amz-content-sha256:" +
                std::string(kEmptyHash) +
                "\nx-amz-date:20130524T000000Z\n\nhost;range;x-amz-content-sha256;x-amz-date\n" +
                kEmptyHash);
  EXPECT_EQ(StringToSign("20130524T000000Z", "20130524/us-east-1/s3/aws4_request",
                         CanonicalRequest(copy, &signed_headers)),
            "AWS4-HMAC-SHA256\n20130524T000000Z\n20130524/us-east-1/s3/aws4_request\n"
            "7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972");
  SignRequest(&r, S3Example(), "us-east-1", "s3", At(2013, 5, 24, 0, 0, 0));
  EXPECT_EQ(Authorization(r),
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
            "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
            "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
}

TEST(SigV4Test, S3ExamplePutObjectWithOddKey) {
  const std::string body = "Welcome to Amazon S3.";
  SigningRequest r;
  r.method = "PUT";
  r.canonical_uri = "/" + UriEncode("test$file.text", false);
  EXPECT_EQ(r.canonical_uri, "/test%24file.text");
  r.payload_hash = Sha256Hex(body);
  EXPECT_EQ(r.payload_hash, "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072");
  r.headers = {{"Host", "examplebucket.s3.amazonaws.com"},
               {"Date", "Fri, 24 May 2013 00:00:00 GMT"},
               {"x-amz-storage-class", "REDUCED_REDUNDANCY"},
               {"x-amz-content-sha256", r.payload_hash}};
  SignRequest(&r, S3Example(), "us-east-1", "s3", At(2013, 5, 24, 0, 0, 0));
  EXPECT_THAT(Authorization(r),
              testing::EndsWith("SignedHeaders=date;host;x-amz-content-sha256;x-amz-date;"
                                "x-amz-storage-class, Signature=98ad721746da40c64f1a55b78f14c238d"
                                "841ea1380cd77a1b5971af0ece108bd"));
}

TEST(SigV4Test, S3ExampleListObjectsQuery) {
  SigningRequest r;
  r.method = "GET";
  r.canonical_uri = "/";
  r.canonical_query = CanonicalQueryString({{"prefix", "J"}, {"max-keys", "2"}});
  EXPECT_EQ(r.canonical_query, "max-keys=2&prefix=J");
  r.payload_hash = kEmptyHash;
  r.headers = {{"Host", "examplebucket.s3.amazonaws.com"}, {"x-amz-content-sha256", kEmptyHash}};
  SignRequest(&r, S3Example(), "us-east-1", "s3", At(2013, 5, 24, 0, 0, 0));
  EXPECT_THAT(Authorization(r),
              testing::EndsWith(
                  "Signature=34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7"));
}

// aws-sig-v4-test-suite: get-vanilla and get-vanilla-query-order-key-case.
TEST(SigV4Test, TestSuiteGetVanilla) {
  Credentials c{"AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "", "test"};
  SigningRequest r;
  r.method = "GET";
  r.canonical_uri = "/";
  r.payload_hash = kEmptyHash;
  r.headers = {{"Host", "example.amazonaws.com"}};
  SigningRequest q = r;
  SignRequest(&r, c, "us-east-1", "service", At(2015, 8, 30, 12, 36, 0));
  EXPECT_EQ(Authorization(r),
            "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, "
            "SignedHeaders=host;x-amz-date, "
            "Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31");
  q.canonical_query = CanonicalQueryString({{"Param2", "value2"}, {"Param1", "value1"}});
  SignRequest(&q, c, "us-east-1", "service", At(2015, 8, 30, 12, 36, 0));
  EXPECT_THAT(Authorization(q),
              testing::EndsWith(
                  "Signature=b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500"));
}

TEST(SigV4Test, SessionTokenIsSigned) {
  Credentials c{"AKID", "secret", "token123", "test"};
  SigningRequest r;
  r.method = "GET";
  r.canonical_uri = "/";
  r.payload_hash = kEmptyHash;
  r.headers = {{"Host", "h"}};
  SignRequest(&r, c, "us-east-1", "s3", At(2020, 1, 1, 0, 0, 0));
  EXPECT_THAT(Authorization(r),
              testing::HasSubstr("SignedHeaders=host;x-amz-date;x-amz-security-token"));
  EXPECT_THAT(r.headers, testing::Contains(testing::Pair("x-amz-security-token", "token123")));
}

TEST(SigV4Test, UriEncodeOfOddKeys) {
  EXPECT_EQ(UriEncode("a b/c+d%e", false), "a%20b/c%2Bd%25e");
  EXPECT_EQ(UriEncode("a/b", true), "a%2Fb");
  EXPECT_EQ(UriEncode("ü~-._", false), "%C3%BC~-._");
  EXPECT_EQ(UriEncode("k=v&x", true), "k%3Dv%26x");
  EXPECT_EQ(CanonicalQueryString({{"uploads", ""}, {"prefix", "a b"}}), "prefix=a%20b&uploads=");
}

TEST(SigV4Test, Hashes) {
  EXPECT_EQ(Sha256Hex(""), kEmptyHash);
  EXPECT_EQ(Md5Base64(""), "1B2M2Y8AsgTpgAmY7PhCfg==");
  EXPECT_EQ(Md5Base64("hello"), "XUFAKrxLKna5cZ2REBfFkg==");
  EXPECT_EQ(AmzDate(At(2013, 5, 24, 1, 2, 3)), "20130524T010203Z");
}

}  // namespace
}  // namespace lakedump
