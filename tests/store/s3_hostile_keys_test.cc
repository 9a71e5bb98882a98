// Hostile keys on S3 (issue 16), without a server: keys are validated by segment as the
// local store does (a ".." key is refused with a message saying so, before any request), and
// DeleteObjects carries "\r" and other control characters exactly (or sends such a key alone).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fakes/fake_http_transport.h"
#include "store/s3/s3_store.h"
#include "store/s3/s3_xml.h"

namespace lakedump {
namespace {

using ::testing::HasSubstr;

std::unique_ptr<ObjectStore> OpenFake(FakeHttpTransport** out) {
  auto transport = std::make_unique<FakeHttpTransport>(
      [](const RecordedRequest&) -> Result<HttpResponse> {
        HttpResponse r;
        r.status = 200;
        r.body = "<DeleteResult></DeleteResult>";
        return r;
      });
  *out = transport.get();
  StoreOptions o;
  o.s3.endpoint = "http://fake:1";
  o.s3.access_key_id = "AKID";
  o.s3.secret_access_key = "secret";
  o.s3.max_attempts = 1;
  auto store = OpenS3StoreWithTransport("s3://bkt/pre", o, std::move(transport));
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  return std::move(*store);
}

// The finding: ".." keys failed only by accident, as a misleading "check the credentials".
TEST(S3HostileKeysTest, DotDotKeysAreRefusedBeforeAnyRequest) {
  FakeHttpTransport* transport = nullptr;
  auto store = OpenFake(&transport);
  for (const char* key : {"main/../../other/_table.json", "../x", "a/./b", "/abs", "a//b"}) {
    auto reader = store->NewReader(key);
    ASSERT_FALSE(reader.ok()) << key;
    EXPECT_EQ(reader.status().code(), Code::kInvalidArgument) << key;
    EXPECT_THAT(reader.status().message(), ::testing::Not(HasSubstr("credentials")));
    EXPECT_FALSE(store->NewWriter(key).ok()) << key;
    EXPECT_FALSE(store->Head(key).ok()) << key;
  }
  auto reader = store->NewReader("main/../x");
  EXPECT_THAT(reader.status().message(), HasSubstr("'..' segment"));
  EXPECT_TRUE(transport->requests().empty());
  // Deleting addresses a listed key literally (a stray "main/../x" can be removed).
  EXPECT_TRUE(store->Delete(std::vector<std::string>{"main/../x"}).ok());
  ASSERT_EQ(transport->requests().size(), 1u);
  EXPECT_THAT(transport->requests()[0].body, HasSubstr("<Key>pre/main/../x</Key>"));
  // A name with ".." inside a segment is an ordinary key.
  EXPECT_NE(store->Head("main/ab..cd/x=1..2/p.parquet").status().code(),
            Code::kInvalidArgument);
}

// The finding: DeleteObjects did not escape "\r", which XML turns into "\n": the stray object
// stayed while the delete "succeeded". Escaped as character references; a key XML cannot carry
// at all goes alone as a DELETE.
TEST(S3HostileKeysTest, DeleteObjectsCarriesControlCharactersExactly) {
  EXPECT_EQ(BuildDeleteObjectsXml({"a\rb\nc\td"}),
            "<Delete><Quiet>true</Quiet><Object><Key>a&#13;b&#10;c&#9;d</Key></Object>"
            "</Delete>");
  EXPECT_TRUE(XmlCanCarry("a\rb"));
  EXPECT_FALSE(XmlCanCarry("a\x01" "b"));
  EXPECT_FALSE(XmlCanCarry("a\xff"));
  EXPECT_FALSE(XmlCanCarry("\xef\xbf\xbe"));

  FakeHttpTransport* transport = nullptr;
  auto store = OpenFake(&transport);
  ASSERT_TRUE(store->Delete(std::vector<std::string>{"d/a\rb", "d/x\x01y", "d/plain"}).ok());
  int posts = 0, deletes = 0;
  for (const RecordedRequest& r : transport->requests()) {
    if (r.method == "POST") {
      ++posts;
      EXPECT_THAT(r.body, HasSubstr("pre/d/a&#13;b"));
      EXPECT_THAT(r.body, HasSubstr("pre/d/plain"));
      EXPECT_THAT(r.body, ::testing::Not(HasSubstr("x\x01y")));
    } else if (r.method == "DELETE") {
      ++deletes;
      EXPECT_THAT(r.url, HasSubstr("/pre/d/x%01y"));
    }
  }
  EXPECT_EQ(posts, 1);
  EXPECT_EQ(deletes, 1);
}

}  // namespace
}  // namespace lakedump
