#include "load/postgres/pg_matview_refresh.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <thread>

namespace lakedump {
namespace {

// The views of `matviews` that `from` depends on through the archive's dependencies, stopping
// at each such view (its own dependencies are its wave's concern).
std::set<size_t> MatviewsBelow(const std::vector<PgArchiveTocEntry>& entries,
                               const std::map<int, size_t>& by_dump_id,
                               const std::set<size_t>& matviews, size_t from) {
  std::set<size_t> found, seen = {from};
  std::vector<size_t> stack = {from};
  while (!stack.empty()) {
    const size_t i = stack.back();
    stack.pop_back();
    for (int dep : entries[i].dependencies) {
      const auto it = by_dump_id.find(dep);
      if (it == by_dump_id.end() || !seen.insert(it->second).second) continue;
      if (matviews.count(it->second)) {
        found.insert(it->second);
      } else {
        stack.push_back(it->second);
      }
    }
  }
  return found;
}

}  // namespace

std::vector<std::vector<size_t>> PgMatviewRefreshWaves(
    const std::vector<PgArchiveTocEntry>& entries, const std::vector<size_t>& matviews) {
  std::map<int, size_t> by_dump_id;
  for (size_t i = 0; i < entries.size(); ++i) by_dump_id[entries[i].dump_id] = i;
  const std::set<size_t> set(matviews.begin(), matviews.end());
  std::map<size_t, size_t> wave_of;
  std::vector<std::vector<size_t>> waves;
  // The archive's order is a dependency order: a view's views come before it (a cycle, which
  // pg_dump never writes, would put the view in the first wave).
  for (size_t m : matviews) {
    size_t wave = 0;
    for (size_t below : MatviewsBelow(entries, by_dump_id, set, m)) {
      const auto it = wave_of.find(below);
      if (it != wave_of.end()) wave = std::max(wave, it->second + 1);
    }
    wave_of[m] = wave;
    if (waves.size() <= wave) waves.resize(wave + 1);
    waves[wave].push_back(m);
  }
  return waves;
}

Status RefreshMatviewWaves(const std::vector<PgConn*>& conns,
                           const std::vector<PgArchiveTocEntry>& entries,
                           const std::vector<std::vector<size_t>>& waves) {
  auto refresh = [&entries](PgConn& conn, size_t i) {
    const PgArchiveTocEntry& e = entries[i];
    return conn.Exec("REFRESH MATERIALIZED VIEW " + QuoteQualified(e.schema, e.tag))
        .WithContext("refreshing materialized view " + e.schema + "." + e.tag);
  };
  std::vector<size_t> left;  // after a failure: the views not refreshed, in archive order
  for (size_t w = 0; w < waves.size() && left.empty(); ++w) {
    const std::vector<size_t>& wave = waves[w];
    std::atomic<size_t> next{0};
    std::mutex mu;
    std::vector<size_t> failed;  // guarded by mu
    auto work = [&](PgConn* conn) {
      for (size_t k = next++; k < wave.size(); k = next++) {
        if (refresh(*conn, wave[k]).ok()) continue;
        std::lock_guard lock(mu);
        failed.push_back(wave[k]);
      }
    };
    const size_t n = std::min(conns.size(), wave.size());
    std::vector<std::thread> helpers;
    for (size_t c = 1; c < n; ++c) helpers.emplace_back(work, conns[c]);
    work(conns.front());
    for (std::thread& t : helpers) t.join();
    if (failed.empty()) continue;
    // A view can read another through what the archive does not record (a function's body):
    // what is left is refreshed one by one in the archive's order, as before the waves, and
    // the first failure then is the load's.
    left = failed;
    for (size_t later = w + 1; later < waves.size(); ++later) {
      left.insert(left.end(), waves[later].begin(), waves[later].end());
    }
    std::sort(left.begin(), left.end());
  }
  for (size_t i : left) LD_RETURN_IF_ERROR(refresh(*conns.front(), i));
  return Status::OK();
}

}  // namespace lakedump
