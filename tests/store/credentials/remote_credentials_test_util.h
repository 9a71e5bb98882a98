// What the tests of the HTTP credential providers share: an environment in a map, a context
// whose clock is a FakeClock that moves at each sleep (the retries' backoff costs no time),
// and checks that an error is one line without a secret.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <string>

#include "fakes/fake_clock.h"
#include "store/s3/credentials/remote_credentials.h"

namespace lakedump {

struct RemoteTestEnv {
  std::map<std::string, std::string> vars;
  FakeClock clock{FakeClock::kAutoAdvance};

  RemoteCredentialContext Context(std::string region = "us-east-1") {
    RemoteCredentialContext context;
    context.env = [this](const std::string& name) -> std::optional<std::string> {
      auto it = vars.find(name);
      if (it == vars.end()) return std::nullopt;
      return it->second;
    };
    context.region = std::move(region);
    context.clock = &clock;
    return context;
  }
};

inline void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

// One line that says `expected` and none of `secrets`.
inline void ExpectOneLine(const Status& status, const std::string& expected,
                          std::initializer_list<std::string> secrets = {}) {
  EXPECT_FALSE(status.ok());
  const std::string& m = status.message();
  EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  EXPECT_NE(m.find(expected), std::string::npos) << m;
  for (const std::string& secret : secrets) {
    EXPECT_EQ(m.find(secret), std::string::npos) << "secret in: " << m;
  }
}

}  // namespace lakedump
