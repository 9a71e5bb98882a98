// Against a real S3 endpoint (Ceph radosgw in CI): skipped unless
// LD_TEST_S3_ENDPOINT, LD_TEST_S3_ACCESS_KEY, LD_TEST_S3_SECRET_KEY,
// LD_TEST_S3_REGION and LD_TEST_S3_BUCKET are set. awscli (/usr/bin/aws) is the
// oracle for what we wrote. Data is kept small (memstore keeps it in RAM).
#include "store/s3/s3_store.h"

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <thread>

#include "store/prefix_store.h"
#include "store/s3/s3_multipart_writer.h"
#include "store/s3/sigv4.h"
#include "integration/fault_proxy_process.h"
#include "integration/s3_test_env.h"

namespace lakedump {
namespace {

struct Env {
  std::string endpoint, access_key, secret_key, region, bucket;
};

std::optional<Env> TestEnv() {
  const char* names[] = {"LD_TEST_S3_ENDPOINT", "LD_TEST_S3_ACCESS_KEY", "LD_TEST_S3_SECRET_KEY",
                         "LD_TEST_S3_REGION", "LD_TEST_S3_BUCKET"};
  std::array<std::string, 5> v;
  for (int i = 0; i < 5; ++i) {
    const char* e = std::getenv(names[i]);
    if (e == nullptr || *e == '\0') return std::nullopt;
    v[static_cast<size_t>(i)] = e;
  }
  return Env{v[0], v[1], v[2], v[3], v[4]};
}

std::string RunShell(const std::string& cmd, int* exit_code = nullptr) {
  std::string out;
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) out.append(buf, n);
  int rc = pclose(p);
  if (exit_code != nullptr) *exit_code = WEXITSTATUS(rc);
  return out;
}

using testing_s3::RandomBytes;

class S3StoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto env = TestEnv();
    if (!env) GTEST_SKIP() << "LD_TEST_S3_* not set";
    env_ = *env;
    static int counter = 0;
    prefix_ = "it-" + std::to_string(::getpid()) + "-" + std::to_string(++counter);
  }

  StoreOptions Options(int parallelism = 4) const {
    StoreOptions o;
    o.s3.endpoint = env_.endpoint;
    o.s3.region = env_.region;
    o.s3.access_key_id = env_.access_key;
    o.s3.secret_access_key = env_.secret_key;
    o.s3.part_size = 5ull << 20;
    o.s3.upload_parallelism = parallelism;
    o.s3.max_connections = 8;
    o.s3.max_attempts = 3;
    return o;
  }

  std::string Url() const { return "s3://" + env_.bucket + "/" + prefix_; }

  std::string Aws(const std::string& args, int* rc = nullptr) const {
    return RunShell("AWS_ACCESS_KEY_ID=" + env_.access_key + " AWS_SECRET_ACCESS_KEY=" +
                        env_.secret_key + " AWS_DEFAULT_REGION=" + env_.region +
                        " AWS_PAGER= /usr/bin/aws --endpoint-url " + env_.endpoint + " " + args,
                    rc);
  }

  std::string OpenUploads() const {
    return Aws("s3api list-multipart-uploads --bucket " + env_.bucket + " --prefix " + prefix_ +
               " --query 'Uploads[].Key' --output text");
  }

  Env env_;
  std::string prefix_;
};

TEST_F(S3StoreTest, SmallPutGetHeadListDelete) {
  auto store = OpenS3Store(Url(), Options());
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  ASSERT_TRUE((*store)->PutObject("a/one.txt", "hello").ok());
  ASSERT_TRUE((*store)->PutObject("a/odd key+%ü.txt", "odd").ok());
  ASSERT_TRUE((*store)->PutObject("b/empty", "").ok());

  auto data = (*store)->GetObject("a/one.txt");
  ASSERT_TRUE(data.ok()) << data.status().ToString();
  EXPECT_EQ(*data, "hello");
  auto odd = (*store)->GetObject("a/odd key+%ü.txt");
  ASSERT_TRUE(odd.ok()) << odd.status().ToString();
  EXPECT_EQ(*odd, "odd");
  auto head = (*store)->Head("b/empty");
  ASSERT_TRUE(head.ok()) << head.status().ToString();
  EXPECT_EQ(head->size, 0u);

  auto reader = (*store)->NewReader("a/one.txt");
  ASSERT_TRUE(reader.ok());
  std::string part;
  ASSERT_TRUE((*reader)->ReadAt(1, 3, &part).ok());
  EXPECT_EQ(part, "ell");
  EXPECT_EQ((*reader)->ReadAt(3, 10, &part).code(), Code::kCorruption);

  auto list = (*store)->List("a/");
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  ASSERT_EQ(list->size(), 2u);
  EXPECT_EQ((*list)[0].key, "a/odd key+%ü.txt");
  EXPECT_EQ((*list)[1].key, "a/one.txt");
  EXPECT_EQ((*list)[1].size, 5u);
  // A one-PUT object's ETag is the MD5 of its bytes, in the listing and from HEAD: what
  // CheckBeforeCommit confirms a _table.json by without reading it back.
  EXPECT_EQ((*list)[1].etag, Md5Etag("hello"));
  EXPECT_EQ((*store)->Head("a/one.txt")->etag, Md5Etag("hello"));

  auto missing = (*store)->Head("nope");
  EXPECT_EQ(missing.status().code(), Code::kNotFound);
  EXPECT_EQ((*store)->NewReader("nope").status().code(), Code::kNotFound);

  std::vector<std::string> keys = {"a/one.txt", "a/odd key+%ü.txt", "b/empty", "never-existed"};
  ASSERT_TRUE((*store)->Delete(keys).ok());
  auto after = (*store)->List("");
  ASSERT_TRUE(after.ok());
  EXPECT_TRUE(after->empty());
}

TEST_F(S3StoreTest, WholeObjectReadsAreOneRequestAndBounded) {
  auto store = OpenS3Store(Url(), Options());
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  ObjectStore& s = **store;
  ASSERT_TRUE(s.PutObject("meta/small.json", "{\"a\":1}").ok());
  ASSERT_TRUE(s.PutObject("meta/empty", "").ok());
  ASSERT_TRUE(s.PutObject("meta/big", std::string(100000, 'x')).ok());

  auto requests = [&] { return s.Stats().requests; };
  uint64_t before = requests();
  auto small = s.GetObject("meta/small.json", 1000);
  ASSERT_TRUE(small.ok()) << small.status().ToString();
  EXPECT_EQ(*small, "{\"a\":1}");
  EXPECT_EQ(requests() - before, 1u);  // one GET, no HEAD first

  before = requests();
  auto exact = s.GetObject("meta/big", 100000);
  ASSERT_TRUE(exact.ok()) << exact.status().ToString();
  EXPECT_EQ(exact->size(), 100000u);
  EXPECT_EQ(requests() - before, 1u);

  before = requests();
  auto big = s.GetObject("meta/big", 99999);
  EXPECT_EQ(big.status().code(), Code::kCorruption);
  EXPECT_THAT(big.status().message(),
              ::testing::HasSubstr("meta/big is 100000 bytes, more than the 99999 bytes"));
  EXPECT_EQ(requests() - before, 1u);

  auto empty = s.GetObject("meta/empty", 10);  // radosgw answers the range with 416
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_EQ(*empty, "");
  auto empty_unbounded = s.GetObject("meta/empty");
  ASSERT_TRUE(empty_unbounded.ok()) << empty_unbounded.status().ToString();
  EXPECT_EQ(*empty_unbounded, "");
  auto whole = s.GetObject("meta/big");
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  EXPECT_EQ(*whole, std::string(100000, 'x'));

  EXPECT_EQ(s.GetObject("meta/missing", 10).status().code(), Code::kNotFound);
  EXPECT_EQ(s.GetObject("meta/missing").status().code(), Code::kNotFound);

  // Through a folder of the store (incremental dumps read their metadata this way).
  PrefixStore folder(&s, "meta/");
  before = requests();
  auto via = folder.GetObject("small.json", 1000);
  ASSERT_TRUE(via.ok()) << via.status().ToString();
  EXPECT_EQ(*via, "{\"a\":1}");
  EXPECT_EQ(requests() - before, 1u);
  std::vector<std::string> keys = {"meta/small.json", "meta/empty", "meta/big"};
  ASSERT_TRUE(s.Delete(keys).ok());
}

TEST_F(S3StoreTest, ListPaginatesBeyondOneThousandKeys) {
  auto store = OpenS3Store(Url(), Options());
  ASSERT_TRUE(store.ok());
  // 1,005 tiny objects so that ListObjectsV2 needs two pages.
  std::vector<std::string> keys;
  for (int i = 0; i < 1005; ++i) keys.push_back("k/" + std::to_string(10000 + i));
  for (const auto& k : keys) ASSERT_TRUE((*store)->PutObject(k, "x").ok());
  auto list = (*store)->List("k/");
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  EXPECT_EQ(list->size(), 1005u);
  ASSERT_TRUE((*store)->Delete(keys).ok());  // two DeleteObjects batches
  auto after = (*store)->List("k/");
  ASSERT_TRUE(after.ok());
  EXPECT_TRUE(after->empty());
}

class S3MultipartTest : public S3StoreTest, public ::testing::WithParamInterface<int> {};

TEST_P(S3MultipartTest, MultipartObjectIsReadableByAwsCli) {
  const int parallelism = GetParam();
  auto store = OpenS3Store(Url(), Options(parallelism));
  ASSERT_TRUE(store.ok());
  const std::string data = RandomBytes((15ull << 20) + 12345, 42 + parallelism);
  {
    auto writer = (*store)->NewWriter("big.bin");
    ASSERT_TRUE(writer.ok());
    // Uneven appends, as an encoder produces them.
    size_t pos = 0, step = 777777;
    while (pos < data.size()) {
      size_t n = std::min(step, data.size() - pos);
      ASSERT_TRUE((*writer)->Append(std::string_view(data).substr(pos, n)).ok());
      pos += n;
      step = step * 3 % 2000003 + 1;
    }
    Status s = (*writer)->Close();
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_EQ(static_cast<S3MultipartWriter*>(writer->get())->parts(), 4);
  }
  std::string etag = Aws("s3api head-object --bucket " + env_.bucket + " --key " + prefix_ +
                         "/big.bin --query ETag --output text");
  EXPECT_NE(etag.find("-4"), std::string::npos) << etag;
  std::string file = "/tmp/ld-s3-it-" + prefix_ + ".bin";
  int rc = 0;
  std::string out = Aws("s3 cp s3://" + env_.bucket + "/" + prefix_ + "/big.bin " + file, &rc);
  ASSERT_EQ(rc, 0) << out;
  std::ifstream in(file, std::ios::binary);
  std::string got((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::remove(file.c_str());
  EXPECT_EQ(got.size(), data.size());
  EXPECT_TRUE(got == data);
  auto back = (*store)->GetObject("big.bin");
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(*back == data);
  EXPECT_EQ(OpenUploads().find("big.bin"), std::string::npos);
  std::vector<std::string> keys = {"big.bin"};
  ASSERT_TRUE((*store)->Delete(keys).ok());
}

INSTANTIATE_TEST_SUITE_P(Parallelism, S3MultipartTest, ::testing::Values(0, 1, 4));

TEST_F(S3StoreTest, SizesAroundThePartSize) {
  auto store = OpenS3Store(Url(), Options(3));
  ASSERT_TRUE(store.ok());
  const uint64_t part = 5ull << 20;
  for (uint64_t size : {uint64_t{0}, uint64_t{1}, part - 1, part, part + 1}) {
    std::string data = RandomBytes(size, size);
    std::string key = "s/" + std::to_string(size);
    Status s = (*store)->PutObject(key, data);
    ASSERT_TRUE(s.ok()) << size << ": " << s.ToString();
    auto back = (*store)->GetObject(key);
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_TRUE(*back == data) << size;
  }
  auto list = (*store)->List("s/");
  ASSERT_TRUE(list.ok());
  EXPECT_EQ(list->size(), 5u);
  for (const ObjectInfo& o : *list) {
    // Above the part size the object is multipart: its ETag ("<hex>-N") is not an MD5.
    if (o.size < part) {
      EXPECT_EQ(o.etag, Md5Etag(RandomBytes(o.size, o.size))) << o.key;
    } else if (o.size > part) {
      EXPECT_NE(o.etag, Md5Etag(RandomBytes(o.size, o.size))) << o.key;
    }
  }
  std::vector<std::string> keys;
  for (auto& o : *list) keys.push_back(o.key);
  ASSERT_TRUE((*store)->Delete(keys).ok());
}

TEST_F(S3StoreTest, WrongSecretKeyIsPermissionDeniedAndWritesNothing) {
  StoreOptions o = Options();
  o.s3.secret_access_key = "definitely-not-the-secret-0000000000000";
  auto store = OpenS3Store(Url(), o);
  ASSERT_TRUE(store.ok());
  Status s = (*store)->PutObject("denied.txt", "x");
  EXPECT_EQ(s.code(), Code::kPermissionDenied) << s.ToString();
  EXPECT_NE(s.message().find("check the credentials"), std::string::npos) << s.message();
  EXPECT_EQ(s.message().find("definitely-not-the-secret"), std::string::npos);
  // Multipart path too.
  auto writer = (*store)->NewWriter("denied-big.bin");
  ASSERT_TRUE(writer.ok());
  std::string data = RandomBytes(6 << 20, 1);
  Status a = (*writer)->Append(data);
  Status c = a.ok() ? (*writer)->Close() : a;
  EXPECT_EQ(c.code(), Code::kPermissionDenied) << c.ToString();
  auto good = OpenS3Store(Url(), Options());
  ASSERT_TRUE(good.ok());
  EXPECT_EQ((*good)->Head("denied.txt").status().code(), Code::kNotFound);
  EXPECT_EQ((*good)->Head("denied-big.bin").status().code(), Code::kNotFound);
}

TEST_F(S3StoreTest, UnknownAccessKeyIsPermissionDenied) {
  StoreOptions o = Options();
  o.s3.access_key_id = "AKIANOSUCHKEY0000000";
  auto store = OpenS3Store(Url(), o);
  ASSERT_TRUE(store.ok());
  Status s = (*store)->PutObject("denied.txt", "x");
  EXPECT_EQ(s.code(), Code::kPermissionDenied) << s.ToString();
}

// A missing bucket is an error naming it, never "not found" (which callers read
// as "no such object": "no dump"), on writes, listings and HEADs alike.
TEST_F(S3StoreTest, NonexistentBucketIsAnErrorNamingIt) {
  auto store = OpenS3Store("s3://no-such-bucket-ld-" + prefix_ + "/x", Options());
  ASSERT_TRUE(store.ok());
  Status s = (*store)->PutObject("a.txt", "x");
  EXPECT_EQ(s.code(), Code::kIOError) << s.ToString();
  EXPECT_NE(s.message().find("does not exist"), std::string::npos) << s.message();
  auto list = (*store)->List("");
  EXPECT_EQ(list.status().code(), Code::kIOError);
  auto head = (*store)->Head("_manifest.json");
  EXPECT_EQ(head.status().code(), Code::kIOError) << head.status().ToString();
  EXPECT_NE(head.status().message().find("does not exist"), std::string::npos);
}

TEST_F(S3StoreTest, UnreachableEndpointFailsQuickly) {
  StoreOptions o = Options();
  o.s3.endpoint = "http://127.0.0.1:1";  // nothing listens there
  o.s3.max_attempts = 2;
  auto store = OpenS3Store(Url(), o);
  ASSERT_TRUE(store.ok());
  auto t0 = std::chrono::steady_clock::now();
  Status s = (*store)->PutObject("a.txt", "x");
  EXPECT_EQ(s.code(), Code::kUnavailable) << s.ToString();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(10));
}

TEST_F(S3StoreTest, WriterDestroyedWithoutCloseLeavesNoUpload) {
  auto store = OpenS3Store(Url(), Options(2));
  ASSERT_TRUE(store.ok());
  {
    auto writer = (*store)->NewWriter("abandoned.bin");
    ASSERT_TRUE(writer.ok());
    std::string data = RandomBytes(12 << 20, 7);  // two parts sent, one buffered
    ASSERT_TRUE((*writer)->Append(data).ok());
    EXPECT_FALSE(static_cast<S3MultipartWriter*>(writer->get())->upload_id().empty());
  }
  EXPECT_EQ(OpenUploads(), "None\n");
  EXPECT_EQ((*store)->Head("abandoned.bin").status().code(), Code::kNotFound);
}

TEST_F(S3StoreTest, CancelledWriterAbortsItsUpload) {
  std::stop_source stop;
  StoreOptions o = Options(2);
  o.stop = stop.get_token();
  auto store = OpenS3Store(Url(), o);
  ASSERT_TRUE(store.ok());
  auto writer = (*store)->NewWriter("cancelled.bin");
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE((*writer)->Append(RandomBytes(11 << 20, 3)).ok());
  stop.request_stop();
  Status s = (*writer)->Append("more");
  EXPECT_EQ(s.code(), Code::kCancelled) << s.ToString();
  EXPECT_EQ(OpenUploads(), "None\n");
  writer->reset();
}

TEST_F(S3StoreTest, UploadsUnderThePrefixAreListedAndAborted) {
  // An upload awscli started: gc's listing finds it (key relative to the prefix, its id), and
  // the abort leaves awscli listing none.
  std::string out = Aws("s3api create-multipart-upload --bucket " + env_.bucket + " --key " +
                        prefix_ + "/left.bin --query UploadId --output text");
  ASSERT_FALSE(out.empty());
  auto listed = ListUploadsUnder(Url(), Options());
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].key, "left.bin");
  EXPECT_EQ((*listed)[0].upload_id + "\n", out);
  Status s = AbortUploadsUnder(Url(), Options(), *listed);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(OpenUploads(), "None\n");
}

// The stop comes while the CreateMultipartUpload is on its way (every request and reply through
// the proxy takes 400 ms): the server still creates the upload, so the writer must learn its id
// and abort it, not drop the request (which left an upload nobody knew of, listed until gc).
TEST_F(S3StoreTest, CancelledWhileItsUploadIsBeingCreatedStillAbortsIt) {
  ProxyProcess proxy(env_.endpoint, {"--delay-ms", "400"});
  ASSERT_TRUE(proxy.ok());
  for (int parallelism : {2, 0}) {
    SCOPED_TRACE(parallelism);
    std::stop_source stop;
    StoreOptions o = Options(parallelism);
    o.s3.endpoint = proxy.endpoint();
    o.stop = stop.get_token();
    auto store = OpenS3Store(Url(), o);
    ASSERT_TRUE(store.ok());
    auto writer = (*store)->NewWriter("creating.bin");
    ASSERT_TRUE(writer.ok());
    std::jthread stopper([&stop] {
      std::this_thread::sleep_for(std::chrono::milliseconds(150));
      stop.request_stop();
    });
    // Two parts' worth: the first goes out (with parallelism 2 on a task, inline with 0) and
    // its CreateMultipartUpload is in flight when the stop comes.
    Status s = (*writer)->Append(RandomBytes(9 << 20, 5));
    if (s.ok()) {
      stopper.join();
      s = (*writer)->Append("more");
    }
    EXPECT_EQ(s.code(), Code::kCancelled) << s.ToString();
    writer->reset();
    // Whatever the proxy still had on its way has landed.
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    EXPECT_EQ(OpenUploads(), "None\n");
  }
}

TEST_F(S3StoreTest, ThrottlingAndServerErrorsOnSomePartsAreRetried) {
  for (int status : {503, 500}) {
    ProxyProcess proxy(env_.endpoint,
                       {"--fail-requests", "3,5", "--fail-status", std::to_string(status)});
    ASSERT_TRUE(proxy.ok());
    StoreOptions o = Options(3);
    o.s3.endpoint = proxy.endpoint();
    o.s3.max_attempts = 5;
    auto store = OpenS3Store(Url(), o);
    ASSERT_TRUE(store.ok());
    std::string data = RandomBytes((15ull << 20) + 1, static_cast<uint64_t>(status));
    Status s = (*store)->PutObject("retried.bin", data);
    ASSERT_TRUE(s.ok()) << s.ToString();
    proxy.Kill();
    EXPECT_NE(proxy.output().find("injected 2"), std::string::npos) << proxy.output();
    auto direct = OpenS3Store(Url(), Options());
    auto back = (*direct)->GetObject("retried.bin");
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_TRUE(*back == data);
  }
  EXPECT_EQ(OpenUploads(), "None\n");
}

TEST_F(S3StoreTest, ConnectionResetMidPartIsRetried) {
  ProxyProcess proxy(env_.endpoint, {"--reset-conn", "2", "--reset-after", "2000000"});
  ASSERT_TRUE(proxy.ok());
  StoreOptions o = Options(2);
  o.s3.endpoint = proxy.endpoint();
  auto store = OpenS3Store(Url(), o);
  ASSERT_TRUE(store.ok());
  std::string data = RandomBytes((15ull << 20) + 3, 11);
  Status s = (*store)->PutObject("reset.bin", data);
  ASSERT_TRUE(s.ok()) << s.ToString();
  proxy.Kill();
  EXPECT_NE(proxy.output().find("resets 1"), std::string::npos) << proxy.output();
  auto back = (*store)->Head("reset.bin");
  auto direct = OpenS3Store(Url(), Options());
  auto got = (*direct)->GetObject("reset.bin");
  ASSERT_TRUE(got.ok());
  EXPECT_TRUE(*got == data);
  EXPECT_EQ(OpenUploads(), "None\n");
}

TEST_F(S3StoreTest, ServerGoneFailsInBoundedTimeAndGcCleansUp) {
  auto proxy = std::make_unique<ProxyProcess>(env_.endpoint, std::vector<std::string>{});
  ASSERT_TRUE(proxy->ok());
  StoreOptions o = Options(2);
  o.s3.endpoint = proxy->endpoint();
  o.s3.max_attempts = 3;
  auto store = OpenS3Store(Url(), o);
  ASSERT_TRUE(store.ok());
  auto writer = (*store)->NewWriter("gone.bin");
  ASSERT_TRUE((*writer)->Append(RandomBytes(6 << 20, 5)).ok());
  // The first part's task creates the upload in the background: wait until it exists.
  const auto created_by = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (OpenUploads() == "None\n" && std::chrono::steady_clock::now() < created_by) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_NE(OpenUploads(), "None\n") << "the multipart upload was never created";
  proxy->Kill();  // the endpoint disappears for good
  auto t0 = std::chrono::steady_clock::now();
  Status s = (*writer)->Append(RandomBytes(10 << 20, 6));
  if (s.ok()) s = (*writer)->Close();
  EXPECT_EQ(s.code(), Code::kUnavailable) << s.ToString();
  EXPECT_NE(s.message().find("lakedump gc"), std::string::npos) << s.message();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(30));
  writer->reset();
  // The upload could not be aborted through the dead endpoint: gc does it.
  EXPECT_NE(OpenUploads(), "None\n");
  auto left = ListUploadsUnder(Url(), Options());
  ASSERT_TRUE(left.ok()) << left.status().ToString();
  EXPECT_EQ(left->size(), 1u);
  ASSERT_TRUE(AbortUploadsUnder(Url(), Options(), *left).ok());
  EXPECT_EQ(OpenUploads(), "None\n");
}

}  // namespace
}  // namespace lakedump
