#include "source/postgres/pg_connection_pool.h"

namespace lakedump {

PgConnectionPool::PgConnectionPool(std::string conninfo, int max_connections,
                                   int connect_timeout_s)
    : conninfo_(std::move(conninfo)),
      max_(max_connections < 1 ? 1 : max_connections),
      connect_timeout_s_(connect_timeout_s) {}

PgConnectionPool::~PgConnectionPool() {
  std::lock_guard lock(mu_);
  idle_.clear();
}

int PgConnectionPool::opened() const {
  std::lock_guard lock(mu_);
  return opened_;
}

Result<std::unique_ptr<PgConn>> PgConnectionPool::Acquire() {
  {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return !idle_.empty() || live_ < max_; });
    if (!idle_.empty()) {
      std::unique_ptr<PgConn> conn = std::move(idle_.back());
      idle_.pop_back();
      return conn;
    }
    ++live_;
    ++opened_;
  }
  // Connect outside the lock: it can take up to the connect timeout.
  auto conn = PgConn::Connect(conninfo_, connect_timeout_s_);
  if (!conn.ok()) {
    std::lock_guard lock(mu_);
    --live_;
    cv_.notify_one();
  }
  return conn;
}

std::unique_ptr<PgConn> PgConnectionPool::TryAcquireIdle() {
  std::lock_guard lock(mu_);
  if (idle_.empty()) return nullptr;
  std::unique_ptr<PgConn> conn = std::move(idle_.back());
  idle_.pop_back();
  return conn;
}

void PgConnectionPool::Release(std::unique_ptr<PgConn> conn) {
  if (!conn) return;
  const PGTransactionStatusType state = PQtransactionStatus(conn->raw());
  const bool reusable =
      !conn->broken() && (state == PQTRANS_IDLE ||
                          (state == PQTRANS_INTRANS && !conn->open_snapshot().empty()));
  if (!reusable) conn.reset();  // closes the socket outside the lock
  std::lock_guard lock(mu_);
  if (reusable) {
    idle_.push_back(std::move(conn));
  } else {
    --live_;
  }
  cv_.notify_one();
}

}  // namespace lakedump
