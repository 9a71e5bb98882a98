// End-to-end tests of signed dumps with the lakedump binary: `dump --sign-key-file`, then
// `verify` / `load --require-signature` on the dump, and on copies of it with one byte
// flipped in a data file, a _table.json or the manifest; unsigned dumps, wrong keys and bad
// key files are refused with one line: load exits 2 (a refused input) when nothing was loaded,
// verify 1 (problems found), a bad key file 2. Key files: private regular files only (a FIFO or
// a file other users may read is refused), trailing newlines not part of the key (as the
// documented openssl check takes it); the signed manifest says where and when it was written.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cstdio>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "fakes/cli_run.h"
#include "fakes/temp_dir.h"

namespace lakedump {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace testing_cli;

class SignedDumpCliTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    tmp_ = new TempDir();
    const std::string db = tmp_->Sub("demo.sqlite");
    RunResult r = RunLakedump("demo " + db + " --rows 3000 --small-tables 2 --seed 5", *tmp_);
    ASSERT_EQ(r.code, 0) << r.err;
    WriteKey(tmp_->Sub("key"), std::string(32, 'k'));
    WriteKey(tmp_->Sub("other-key"), std::string(40, 'o'));
    r = RunLakedump("dump " + db + " " + tmp_->Sub("signed") + " --sign-key-file " +
                        tmp_->Sub("key") + " --progress none",
                    *tmp_);
    ASSERT_EQ(r.code, 0) << r.err;
    r = RunLakedump("dump " + db + " " + tmp_->Sub("unsigned") + " --progress none", *tmp_);
    ASSERT_EQ(r.code, 0) << r.err;
  }
  // A key file as the docs say to make one: private to its owner.
  static void WriteKey(const std::string& path, const std::string& key) {
    WriteFile(path, key);
    ::chmod(path.c_str(), 0600);
  }
  static void TearDownTestSuite() {
    delete tmp_;
    tmp_ = nullptr;
  }
  std::string Copy(const std::string& which) {
    const std::string dest = dir_.Sub(which);
    fs::copy(tmp_->Sub(which), dest, fs::copy_options::recursive);
    return dest;
  }
  static void FlipByte(const std::string& path, size_t offset) {
    std::string data = ReadFile(path);
    ASSERT_LT(offset, data.size());
    data[offset] = static_cast<char>(data[offset] ^ 0x01);
    WriteFile(path, data);
  }
  static std::string FirstTableJson(const std::string& dest) {
    const json m = json::parse(ReadFile(dest + "/_manifest.json"));
    return dest + "/" + m["tables"][0]["key"].get<std::string>();
  }
  static std::string FirstDataFile(const std::string& dest) {
    const json t = json::parse(ReadFile(FirstTableJson(dest)));
    return dest + "/" + t["files"][0]["key"].get<std::string>();
  }
  RunResult Verify(const std::string& dest, const std::string& key = "key") {
    return RunLakedump("verify " + dest + " --require-signature " + tmp_->Sub(key), dir_);
  }
  RunResult Load(const std::string& dest, const std::string& key = "key") {
    return RunLakedump("load " + dest + " " + dir_.Sub("out.sqlite") +
                           " --progress none --require-signature " + tmp_->Sub(key),
                       dir_);
  }
  static TempDir* tmp_;
  TempDir dir_;
};
TempDir* SignedDumpCliTest::tmp_ = nullptr;

TEST_F(SignedDumpCliTest, SignedDumpVerifiesAndLoads) {
  const std::string dest = Copy("signed");
  EXPECT_TRUE(fs::exists(dest + "/_manifest.sig"));
  const std::string sig = ReadFile(dest + "/_manifest.sig");
  EXPECT_EQ(sig.find(std::string(32, 'k')), std::string::npos);  // never the key
  RunResult v = Verify(dest);
  EXPECT_EQ(v.code, 0) << v.out << v.err;
  EXPECT_NE(v.out.find("signature"), std::string::npos) << v.out;
  // A plain verify (no key) is fine with a signed dump too: _manifest.sig is no stray.
  EXPECT_EQ(RunLakedump("verify " + dest, dir_).code, 0);
  RunResult l = Load(dest);
  EXPECT_EQ(l.code, 0) << l.err;
  EXPECT_NE(l.out.find("loaded"), std::string::npos);
}

TEST_F(SignedDumpCliTest, FlippedDataFileByteIsRefused) {
  const std::string dest = Copy("signed");
  FlipByte(FirstDataFile(dest), 100);
  RunResult v = Verify(dest);
  EXPECT_EQ(v.code, 1);
  EXPECT_NE(v.out.find("PROBLEM signature"), std::string::npos) << v.out;
  RunResult l = Load(dest);
  ExpectOneLineError(l, 1, "altered");
}

TEST_F(SignedDumpCliTest, FlippedTableJsonByteIsRefused) {
  const std::string dest = Copy("signed");
  const std::string path = FirstTableJson(dest);
  std::string text = ReadFile(path);
  const size_t at = text.find("\"seconds\": ");  // a digit: still valid JSON
  ASSERT_NE(at, std::string::npos);
  FlipByte(path, at + 11);
  RunResult v = Verify(dest);
  EXPECT_EQ(v.code, 1);
  EXPECT_NE(v.out.find("PROBLEM signature"), std::string::npos) << v.out;
  RunResult l = Load(dest);
  ExpectOneLineError(l, 2, "altered");
  EXPECT_FALSE(fs::exists(dir_.Sub("out.sqlite")) &&
               fs::file_size(dir_.Sub("out.sqlite")) > 8192);
}

TEST_F(SignedDumpCliTest, FlippedManifestByteIsRefused) {
  const std::string dest = Copy("signed");
  const std::string path = dest + "/_manifest.json";
  const size_t at = ReadFile(path).find("\"seconds\": ");
  ASSERT_NE(at, std::string::npos);
  FlipByte(path, at + 11);
  RunResult v = Verify(dest);
  EXPECT_EQ(v.code, 1);
  EXPECT_NE(v.out.find("PROBLEM signature"), std::string::npos) << v.out;
  RunResult l = Load(dest);
  ExpectOneLineError(l, 2, "altered");
  EXPECT_FALSE(fs::exists(dir_.Sub("out.sqlite")));
}

TEST_F(SignedDumpCliTest, UnsignedDumpAndWrongKeyAreRefused) {
  const std::string unsigned_dump = Copy("unsigned");
  RunResult l = Load(unsigned_dump);
  ExpectOneLineError(l, 2, "not signed");
  EXPECT_EQ(Verify(unsigned_dump).code, 1);
  const std::string dest = Copy("signed");
  l = Load(dest, "other-key");
  ExpectOneLineError(l, 2, "another key");
  EXPECT_EQ(l.err.find(std::string(40, 'o')), std::string::npos);
  EXPECT_EQ(Verify(dest, "other-key").code, 1);
}

TEST_F(SignedDumpCliTest, BadKeyFilesAreRefusedWithoutPrintingThem) {
  WriteFile(dir_.Sub("empty"), "");
  WriteFile(dir_.Sub("short"), "secret-but-short");
  for (const std::string& key : {dir_.Sub("empty"), dir_.Sub("short"), dir_.Sub("missing")}) {
    RunResult r = RunLakedump("dump " + tmp_->Sub("demo.sqlite") + " " + dir_.Sub("d") +
                                  " --sign-key-file " + key,
                              dir_);
    ExpectOneLineError(r, 2, key);
    EXPECT_EQ(r.err.find("secret-but-short"), std::string::npos);
    EXPECT_FALSE(fs::exists(dir_.Sub("d/_manifest.json")));
  }
}

// Where and when: inside the signed manifest, printed by verify; a copy elsewhere still says
// where it was written.
TEST_F(SignedDumpCliTest, VerifyPrintsWhereAndWhenTheSignedDumpWasWritten) {
  const std::string dest = Copy("signed");
  const json m = json::parse(ReadFile(dest + "/_manifest.json"));
  ASSERT_TRUE(m.contains("written_to")) << m.dump();
  EXPECT_NE(m["written_to"].get<std::string>().find(tmp_->Sub("signed")), std::string::npos);
  RunResult v = Verify(dest);
  ASSERT_EQ(v.code, 0) << v.out << v.err;
  EXPECT_NE(v.out.find("written to " + m["written_to"].get<std::string>() + " at " +
                       m["finished_at"].get<std::string>()),
            std::string::npos)
      << v.out;
}

// The documented check: `openssl dgst -sha256 -hmac "$(cat K)" _manifest.json` gives the
// recorded HMAC, also for a key file ending in a newline (`echo KEY > K`), which "$(cat K)"
// drops; lakedump drops it too (and the key with and without it is the same key).
TEST_F(SignedDumpCliTest, KeyFileWithATrailingNewlineChecksWithOpenssl) {
  const std::string key = dir_.Sub("key-nl");
  WriteKey(key, std::string(32, 'n') + "\n");
  const std::string dest = dir_.Sub("nl");
  RunResult r = RunLakedump("dump " + tmp_->Sub("demo.sqlite") + " " + dest +
                                " --sign-key-file " + key + " --progress none",
                            dir_);
  ASSERT_EQ(r.code, 0) << r.err;
  const json sig = json::parse(ReadFile(dest + "/_manifest.sig"));
  const std::string out = dir_.Sub("openssl.out");
  const std::string cmd = "openssl dgst -sha256 -hmac \"$(cat " + key + ")\" " + dest +
                          "/_manifest.json > " + out + " 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << ReadFile(out);
  EXPECT_NE(ReadFile(out).find(sig["hmac_sha256"].get<std::string>()), std::string::npos)
      << ReadFile(out);
  const std::string bare = dir_.Sub("key-bare");
  WriteKey(bare, std::string(32, 'n'));
  RunResult v = RunLakedump("verify " + dest + " --require-signature " + bare, dir_);
  EXPECT_EQ(v.code, 0) << v.out << v.err;
}

// A key file other users may read, or a FIFO (which could feed any bytes, or block), is
// refused with one line naming it, before anything is written.
TEST_F(SignedDumpCliTest, SharedKeyFilesAndFifosAreRefused) {
  const std::string readable = dir_.Sub("readable-key");
  WriteFile(readable, std::string(32, 'r'));
  const std::string fifo = dir_.Sub("fifo-key");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (mode_t mode : {0644, 0640, 0604, 0620}) {
    ::chmod(readable.c_str(), mode);
    RunResult r = RunLakedump("dump " + tmp_->Sub("demo.sqlite") + " " + dir_.Sub("d") +
                                  " --sign-key-file " + readable,
                              dir_);
    ExpectOneLineError(r, 2, readable);
    EXPECT_NE(r.err.find("other users"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir_.Sub("d/_manifest.json")));
  }
  for (const std::string& key : {readable, fifo}) {
    RunResult v = RunLakedump("verify " + tmp_->Sub("signed") + " --require-signature " + key,
                              dir_);
    ExpectOneLineError(v, 2, key);
    RunResult d = RunLakedump("dump " + tmp_->Sub("demo.sqlite") + " " + dir_.Sub("d") +
                                  " --sign-key-file " + key,
                              dir_);
    ExpectOneLineError(d, 2, key);
  }
}

}  // namespace
}  // namespace lakedump
