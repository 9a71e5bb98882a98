#include "store/s3/s3_xml.h"

#include <gtest/gtest.h>

namespace lakedump {
namespace {

TEST(S3XmlTest, ParsesError) {
  auto e = ParseS3Error(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>NoSuchBucket</Code>"
      "<Message>The specified bucket does not exist</Message><BucketName>b</BucketName></Error>");
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->code, "NoSuchBucket");
  EXPECT_EQ(e->message, "The specified bucket does not exist");
  EXPECT_FALSE(ParseS3Error("").has_value());
  EXPECT_FALSE(ParseS3Error("<html>oops</html>").has_value());
}

TEST(S3XmlTest, ParsesListObjectsV2) {
  auto page = ParseListObjectsV2(
      "<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Name>b</Name>"
      "<Contents><Key>p/a &amp; b</Key><Size>12</Size>"
      "<ETag>&quot;9E107D9D372BB6826BD81D3542A419D6&quot;</ETag></Contents>"
      "<Contents><Key>p/c</Key><Size>5368709120</Size></Contents>"
      "<IsTruncated>true</IsTruncated><NextContinuationToken>tok/1</NextContinuationToken>"
      "</ListBucketResult>");
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  ASSERT_EQ(page->objects.size(), 2u);
  EXPECT_EQ(page->objects[0].key, "p/a & b");
  EXPECT_EQ(page->objects[0].etag, "9e107d9d372bb6826bd81d3542a419d6");  // unquoted, lower
  EXPECT_EQ(page->objects[1].size, 5368709120ull);
  EXPECT_EQ(page->objects[1].etag, "");  // none listed
  EXPECT_TRUE(page->truncated);
  EXPECT_EQ(page->next_continuation_token, "tok/1");
  EXPECT_EQ(ParseListObjectsV2("<html/>").status().code(), Code::kCorruption);
}

TEST(S3XmlTest, ParsesUploadsAndDates) {
  auto page = ParseListMultipartUploads(
      "<ListMultipartUploadsResult><Upload><Key>k</Key><UploadId>id1</UploadId>"
      "<Initiated>2026-11-29T23:52:17.000Z</Initiated></Upload>"
      "<IsTruncated>false</IsTruncated></ListMultipartUploadsResult>");
  ASSERT_TRUE(page.ok());
  ASSERT_EQ(page->uploads.size(), 1u);
  EXPECT_EQ(page->uploads[0].upload_id, "id1");
  EXPECT_EQ(std::chrono::system_clock::to_time_t(page->uploads[0].initiated), 1795996337);
  EXPECT_FALSE(ParseIso8601("yesterday").has_value());
}

TEST(S3XmlTest, CompleteWithErrorBodyIsAnError) {
  EXPECT_TRUE(ParseCompleteResult("<CompleteMultipartUploadResult><ETag></ETag>"
                                  "</CompleteMultipartUploadResult>")
                  .ok());
  Status s = ParseCompleteResult("<Error><Code>InternalError</Code><Message>x</Message></Error>");
  EXPECT_EQ(s.code(), Code::kUnavailable);
  s = ParseCompleteResult("<Error><Code>InvalidPart</Code><Message>x</Message></Error>");
  EXPECT_EQ(s.code(), Code::kIOError);
  EXPECT_NE(s.message().find("InvalidPart"), std::string::npos);
  EXPECT_EQ(ParseCompleteResult("").code(), Code::kCorruption);
}

TEST(S3XmlTest, DeleteResultErrors) {
  EXPECT_TRUE(ParseDeleteResult("<DeleteResult></DeleteResult>").ok());
  Status s = ParseDeleteResult(
      "<DeleteResult><Error><Key>a</Key><Code>AccessDenied</Code></Error></DeleteResult>");
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("a (AccessDenied)"), std::string::npos);
}

TEST(S3XmlTest, BuildsEscapedBodies) {
  EXPECT_EQ(BuildCompleteMultipartXml({{"\"e1\"", ""}, {"\"e2\"", ""}}),
            "<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>&quot;e1&quot;</ETag>"
            "</Part><Part><PartNumber>2</PartNumber><ETag>&quot;e2&quot;</ETag></Part>"
            "</CompleteMultipartUpload>");
  EXPECT_EQ(BuildDeleteObjectsXml({"a<b&c"}),
            "<Delete><Quiet>true</Quiet><Object><Key>a&lt;b&amp;c</Key></Object></Delete>");
}

TEST(S3XmlTest, CompleteListsEachPartsCrc32cWhenThereIsOne) {
  EXPECT_EQ(BuildCompleteMultipartXml({{"\"e1\"", "4waSgw=="}}),
            "<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>&quot;e1&quot;</ETag>"
            "<ChecksumCRC32C>4waSgw==</ChecksumCRC32C></Part></CompleteMultipartUpload>");
}

TEST(S3XmlTest, HttpDates) {
  auto t = ParseHttpDate("Tue, 01 Dec 2026 12:30:05 GMT");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(*t, *ParseIso8601("2026-12-01T12:30:05Z"));
  EXPECT_FALSE(ParseHttpDate("yesterday").has_value());
  EXPECT_FALSE(ParseHttpDate("").has_value());
}

}  // namespace
}  // namespace lakedump
