// Names checked before any S3 request (store/s3/s3_names.h): a bucket name that breaks S3's
// naming rules and an endpoint without http(s):// are usage errors at once, with one line.
#include "store/s3/s3_names.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "store/open_store.h"

namespace lakedump {
namespace {

using ::testing::HasSubstr;

TEST(S3NamesTest, GoodBucketNames) {
  for (const char* name : {"abc", "test-bucket", "my.bucket.v2", "1bucket9", "a-b.c-d",
                           "ap-alias-abcdefgh-s3alias", "olap--ol-s3",
                           "a23456789012345678901234567890123456789012345678901234567890123"}) {
    EXPECT_TRUE(CheckBucketName(name).ok()) << name << ": " << CheckBucketName(name).ToString();
  }
}

TEST(S3NamesTest, BadBucketNamesNameTheRule) {
  const std::pair<std::string, std::string> cases[] = {
      {"ab", "3 to 63 characters"},
      {std::string(64, 'a'), "3 to 63 characters"},
      {"My-Bucket", "lower-case letters"},
      {"my_bucket", "lower-case letters"},
      {"-bucket", "begin and end"},
      {"bucket.", "begin and end"},
      {"my..bucket", "\"..\""},
      {"192.168.5.4", "IP address"},
      {"xn--bucket", "prefix \"xn--\""},
      {"sthree-bucket", "prefix \"sthree-\""},
      {"amzn-s3-demo-bucket", "prefix \"amzn-s3-demo-\""},
      {"mybucket--x-s3", "suffix \"--x-s3\""},
      {"mybucket--table-s3", "suffix \"--table-s3\""},
      {"mybucket.mrap", "suffix \".mrap\""},
  };
  for (const auto& [name, rule] : cases) {
    Status s = CheckBucketName(name);
    EXPECT_EQ(s.code(), Code::kInvalidArgument) << name;
    EXPECT_THAT(s.message(), HasSubstr(rule)) << name;
    EXPECT_THAT(s.message(), HasSubstr("invalid S3 bucket name")) << name;
  }
  // A name with control bytes is not echoed.
  EXPECT_EQ(CheckBucketName("a\x1b[2Jb").message().find('\x1b'), std::string::npos);
}

TEST(S3NamesTest, EndpointNeedsAScheme) {
  EXPECT_TRUE(CheckEndpointUrl("", "--endpoint").ok());
  EXPECT_TRUE(CheckEndpointUrl("http://127.0.0.1:9000", "--endpoint").ok());
  EXPECT_TRUE(CheckEndpointUrl("https://s3.example.com/base", "--endpoint").ok());
  for (const char* bad : {"127.0.0.1:9000", "s3.example.com", "ftp://host", "HTTP//host",
                          "http://", "https://:9000", "localhost:9000/x"}) {
    Status s = CheckEndpointUrl(bad, "AWS_ENDPOINT_URL");
    EXPECT_EQ(s.code(), Code::kInvalidArgument) << bad;
    EXPECT_THAT(s.message(), HasSubstr("AWS_ENDPOINT_URL")) << bad;
  }
  // The URL is not echoed (it may carry user:password@).
  EXPECT_THAT(CheckEndpointUrl("user:secret@host:9000", "--endpoint").message(),
              ::testing::Not(HasSubstr("secret")));
}

StoreOptions WithCredentials(std::string endpoint) {
  StoreOptions o;
  o.s3.endpoint = std::move(endpoint);
  o.s3.access_key_id = "AKIDTEST";
  o.s3.secret_access_key = "supersecretkey";
  o.s3.region = "us-east-1";
  return o;
}

TEST(S3NamesTest, OpenStoreRefusesBeforeAnyRequest) {
  // Nothing listens on port 9 of 127.0.0.1; a request would be refused, not InvalidArgument.
  auto bad_bucket = OpenStore("s3://Bad_Bucket/dump", WithCredentials("http://127.0.0.1:9"));
  ASSERT_FALSE(bad_bucket.ok());
  EXPECT_EQ(bad_bucket.status().code(), Code::kInvalidArgument);
  EXPECT_THAT(bad_bucket.status().message(), HasSubstr("\"Bad_Bucket\""));
  auto no_scheme = OpenStore("s3://good-bucket/dump", WithCredentials("127.0.0.1:9000"));
  ASSERT_FALSE(no_scheme.ok());
  EXPECT_EQ(no_scheme.status().code(), Code::kInvalidArgument);
  EXPECT_THAT(no_scheme.status().message(), HasSubstr("http:// or https://"));
  EXPECT_THAT(no_scheme.status().message(), HasSubstr("--endpoint"));
}

}  // namespace
}  // namespace lakedump
