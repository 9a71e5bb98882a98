#include "base/subprocess.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "base/byte_sink.h"

namespace lakedump {
namespace {

TEST(SubprocessTest, EnvironmentGoesToTheChildOnly) {
  SubprocessSpec spec;
  spec.argv = {"/bin/sh", "-c", "printf %s \"$LD_SUBPROCESS_TEST\""};
  spec.env = {{"LD_SUBPROCESS_TEST", "secret value"}};
  StringSink out;
  auto run = RunSubprocess(spec, &out);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  EXPECT_EQ(out.str(), "secret value");
  EXPECT_EQ(std::getenv("LD_SUBPROCESS_TEST"), nullptr);
}

}  // namespace
}  // namespace lakedump
