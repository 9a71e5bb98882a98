#include "base/clock.h"

#include <condition_variable>
#include <mutex>

namespace lakedump {
namespace {

class RealClock final : public Clock {
 public:
  TimePoint Now() override { return std::chrono::steady_clock::now(); }
  WallTime WallNow() override { return std::chrono::system_clock::now(); }
  bool SleepUntil(TimePoint deadline, std::stop_token stop) override {
    // A private condition variable: only `stop` (through its callback) wakes it early.
    std::mutex mu;
    std::condition_variable_any cv;
    std::unique_lock<std::mutex> lock(mu);
    cv.wait_until(lock, stop, deadline, [] { return false; });
    return !stop.stop_requested();
  }
};

}  // namespace

Clock& SystemClock() {
  static RealClock* const clock = new RealClock();  // never destroyed: used until exit
  return *clock;
}

}  // namespace lakedump
