// Helpers for integration tests against a real PostgreSQL (LD_TEST_PG_DSN).
#pragma once

#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <atomic>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <unistd.h>

#include "source/postgres/pg_conn.h"
#include "source/postgres/postgres_database.h"

namespace lakedump::testing_pg {

inline const char* TestDsn() { return std::getenv("LD_TEST_PG_DSN"); }

#define LD_REQUIRE_PG()                                              \
  do {                                                               \
    if (::lakedump::testing_pg::TestDsn() == nullptr)                \
      GTEST_SKIP() << "LD_TEST_PG_DSN is not set";                   \
  } while (0)

// The test DSN as a keyword string with some parameters replaced.
inline std::string ConninfoWith(const std::map<std::string, std::string>& overrides) {
  char* err = nullptr;
  PQconninfoOption* opts = PQconninfoParse(TestDsn(), &err);
  if (err) PQfreemem(err);
  std::map<std::string, std::string> kv;
  for (PQconninfoOption* o = opts; o && o->keyword; ++o) {
    if (o->val && *o->val) kv[o->keyword] = o->val;
  }
  PQconninfoFree(opts);
  for (const auto& [k, v] : overrides) kv[k] = v;
  std::string out;
  for (const auto& [k, v] : kv) {
    std::string quoted;
    for (char c : v) {
      if (c == '\'' || c == '\\') quoted += '\\';
      quoted += c;
    }
    out += k + "='" + quoted + "' ";
  }
  return out;
}

inline std::unique_ptr<PgConn> AdminConn(const std::string& conninfo = TestDsn()) {
  auto c = PgConn::Connect(conninfo, 10);
  EXPECT_TRUE(c.ok()) << c.status().ToString();
  if (!c.ok()) return nullptr;
  EXPECT_TRUE((*c)->Exec("SET application_name = 'ld_test_admin'; SET search_path = public; SET client_min_messages = warning").ok());
  return std::move(c).value();
}

inline std::string QueryOne(PgConn& conn, const std::string& sql) {
  auto r = conn.Query(sql);
  EXPECT_TRUE(r.ok()) << sql << ": " << r.status().ToString();
  if (!r.ok() || PQntuples(r->get()) == 0) return "";
  return std::string(PgValue(r->get(), 0, 0));
}

// A schema with a unique name, dropped (CASCADE) at the end of the test.
class ScratchSchema {
 public:
  explicit ScratchSchema(PgConn* admin, std::string base = "ld_test") : admin_(admin) {
    static std::atomic<int> counter{0};
    name_ = base + "_" + std::to_string(getpid()) + "_" + std::to_string(counter++);
    Status s = admin_->Exec("DROP SCHEMA IF EXISTS " + QuoteIdent(name_) + " CASCADE; CREATE SCHEMA " +
                            QuoteIdent(name_));
    EXPECT_TRUE(s.ok()) << s.ToString();
  }
  ~ScratchSchema() {
    admin_->Exec("DROP SCHEMA IF EXISTS " + QuoteIdent(name_) + " CASCADE").IgnoreError();
  }
  const std::string& name() const { return name_; }
  std::string q() const { return QuoteIdent(name_); }

 private:
  PgConn* admin_;
  std::string name_;
};

}  // namespace lakedump::testing_pg
