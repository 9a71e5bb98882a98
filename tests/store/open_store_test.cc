#include "store/open_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "fakes/temp_dir.h"
#include "store/memory/memory_store.h"

namespace lakedump {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::unique_ptr<ObjectStore> OpenOrDie(const std::string& url) {
  auto store = OpenStore(url, StoreOptions{});
  EXPECT_TRUE(store.ok()) << url << ": " << store.status().ToString();
  return store.ok() ? std::move(store).value() : nullptr;
}

TEST(OpenStoreTest, PlainAbsolutePathAndFileUrl) {
  TempDir dir;
  auto plain = OpenOrDie(dir.Sub("out"));
  ASSERT_TRUE(plain->PutObject("a/b", "1").ok());
  auto url = OpenOrDie("file://" + dir.Sub("out"));
  EXPECT_EQ(*url->GetObject("a/b"), "1");
  auto localhost = OpenOrDie("file://localhost" + dir.Sub("out/"));
  EXPECT_EQ(localhost->Head("a/b")->size, 1u);
}

TEST(OpenStoreTest, FileUrlIsPercentDecoded) {
  TempDir dir;
  auto store = OpenOrDie("file://" + dir.path() + "/with%20space");
  ASSERT_TRUE(store->PutObject("k", "v").ok());
  EXPECT_TRUE(std::filesystem::exists(dir.Sub("with space/k")));
  EXPECT_EQ(OpenStore("file://" + dir.path() + "/bad%2", {}).status().code(),
            Code::kInvalidArgument);
  EXPECT_EQ(OpenStore("file://" + dir.path() + "/nul%00", {}).status().code(),
            Code::kInvalidArgument);
}

TEST(OpenStoreTest, RelativePlainPath) {
  TempDir dir;
  const auto old_cwd = std::filesystem::current_path();
  std::filesystem::current_path(dir.path());
  {
    auto store = OpenOrDie("rel/out");
    ASSERT_TRUE(store->PutObject("x", "1").ok());
  }
  std::filesystem::current_path(old_cwd);
  EXPECT_TRUE(std::filesystem::exists(dir.Sub("rel/out/x")));
}

TEST(OpenStoreTest, RelativeFileUrlIsRejectedWithAHint) {
  auto r = OpenStore("file://relative/dir", {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
  EXPECT_THAT(r.status().message(), HasSubstr("file:///"));
  EXPECT_THAT(r.status().message(), HasSubstr("plain path"));
}

TEST(OpenStoreTest, DestinationThatIsAFile) {
  TempDir dir;
  std::ofstream(dir.Sub("f")) << "x";
  auto r = OpenStore(dir.Sub("f"), {});
  EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(r.status().message(), "destination is a file: " + dir.Sub("f"));
}

TEST(OpenStoreTest, MemoryUrlsShareANamedStore) {
  ClearNamedMemoryStores();
  auto a = OpenOrDie("memory://shared");
  auto b = OpenOrDie("memory://shared");
  auto other = OpenOrDie("memory://other");
  ASSERT_TRUE(a->PutObject("k", "v").ok());
  EXPECT_EQ(*b->GetObject("k"), "v");
  EXPECT_EQ(other->Head("k").status().code(), Code::kNotFound);
  EXPECT_EQ(a->Describe(), "memory://shared");
  EXPECT_EQ(NamedMemoryStore("shared")->Keys().size(), 1u);
  EXPECT_EQ(OpenStore("memory://", {}).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(OpenStore("memory://a/b", {}).status().code(), Code::kInvalidArgument);
  ClearNamedMemoryStores();
}

TEST(OpenStoreTest, S3GoesToTheS3Store) {
  auto r = OpenStore("s3://bucket/prefix", {});
  // Until the S3 store lands this is Unimplemented; afterwards it may open or
  // fail on credentials, but never as an unknown scheme.
  if (!r.ok()) {
    EXPECT_THAT(r.status().message(), Not(HasSubstr("unsupported destination")));
  }
}

TEST(OpenStoreTest, UnknownSchemesNameTheSchemeAndTheSupportedOnes) {
  for (const char* url : {"gs://bucket/x", "http://host/x", "HDFS://nn/x"}) {
    auto r = OpenStore(url, {});
    ASSERT_FALSE(r.ok()) << url;
    EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
    const std::string scheme = std::string(url).substr(0, std::string(url).find("://"));
    EXPECT_THAT(r.status().message(), HasSubstr("'" + scheme + "://'"));
    EXPECT_THAT(r.status().message(), HasSubstr("s3://bucket/prefix"));
    EXPECT_THAT(r.status().message(), HasSubstr("file:///"));
  }
  auto secret = OpenStore("https://user:hunter2@host/x", {});
  EXPECT_THAT(secret.status().message(), Not(HasSubstr("hunter2")));
  EXPECT_EQ(OpenStore("", {}).status().code(), Code::kInvalidArgument);
}

TEST(OpenStoreTest, SchemeWithoutSlashesIsATypoNotAFolder) {
  for (const char* url : {"s3:/bucket/x", "file:/tmp/x", "s3:bucket"}) {
    auto r = OpenStore(url, {});
    EXPECT_EQ(r.status().code(), Code::kInvalidArgument) << url;
    EXPECT_THAT(r.status().message(), HasSubstr("missing '//'")) << url;
  }
}

}  // namespace
}  // namespace lakedump
