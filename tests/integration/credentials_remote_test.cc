// The HTTP credential providers against local fakes and a closed port, timed with the real
// clock: instance metadata must cost nothing where there is none (a laptop, a CI runner).
#include <gtest/gtest.h>

#include <chrono>
#include <optional>

#include "fakes/fake_credential_servers.h"
#include "fakes/raw_http_server.h"
#include "store/s3/credentials/imds_provider.h"

namespace lakedump {
namespace {

using Clock = std::chrono::steady_clock;

RemoteCredentialContext ContextFor(const std::string& imds_endpoint) {
  RemoteCredentialContext context;
  context.env = [imds_endpoint](const std::string& name) -> std::optional<std::string> {
    if (name == "AWS_EC2_METADATA_SERVICE_ENDPOINT") return imds_endpoint;
    return std::nullopt;
  };
  return context;
}

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

TEST(CredentialsRemoteTest, FirstImdsRequestComesAtOnce) {
  FakeImdsServer imds;
  std::optional<Clock::time_point> first;
  imds.set_on_request([&](const ServedRequest&) {
    if (!first) first = Clock::now();
  });
  auto provider = NewImdsProvider(ContextFor(imds.endpoint()));
  ASSERT_TRUE(provider.ok());
  const auto start = Clock::now();
  auto c = (*provider)->Fetch({});
  const auto end = Clock::now();
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  ASSERT_TRUE(first.has_value());
  EXPECT_LT(Seconds(*first - start), 0.1);
  EXPECT_LT(Seconds(end - start), 1.0);
}

TEST(CredentialsRemoteTest, NoImdsEndsInUnderASecond) {
  const std::string closed = "http://127.0.0.1:" + std::to_string(RawHttpServer::ClosedPort());
  auto provider = NewImdsProvider(ContextFor(closed));
  ASSERT_TRUE(provider.ok());
  const auto start = Clock::now();
  auto c = (*provider)->Fetch({});
  EXPECT_LT(Seconds(Clock::now() - start), 1.0);
  EXPECT_EQ(c.status().code(), Code::kNotFound) << c.status().ToString();
}

// An address that accepts and never answers (IMDS behind a hop limit of 1 in a container):
// given up after about a second, and not tried again.
TEST(CredentialsRemoteTest, SilentImdsIsAbandonedWithoutRetry) {
  RawHttpServer silent(RawHttpServer::kNeverAnswers);
  auto provider = NewImdsProvider(ContextFor(silent.endpoint()));
  ASSERT_TRUE(provider.ok());
  const auto start = Clock::now();
  auto c = (*provider)->Fetch({});
  EXPECT_LT(Seconds(Clock::now() - start), 3.0);
  EXPECT_EQ(c.status().code(), Code::kNotFound) << c.status().ToString();
  EXPECT_EQ(silent.accepted(), 1);
}

}  // namespace
}  // namespace lakedump
