#include "base/progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include "base/units.h"

namespace lakedump {

Result<ProgressMode> ParseProgressMode(std::string_view text) {
  if (text == "auto") return ProgressMode::kAuto;
  if (text == "plain") return ProgressMode::kPlain;
  if (text == "none") return ProgressMode::kNone;
  return Status::InvalidArgument(
      fmt::format("--progress \"{}\": expected auto, plain or none", text));
}

ProgressReporter::ProgressReporter(const DumpProgress* progress, ProgressMode mode,
                                   std::FILE* out, Clock* clock)
    : progress_(progress), out_(out), clock_(clock) {
  tty_ = isatty(fileno(out)) != 0;
  enabled_ = mode != ProgressMode::kNone;
  if (mode == ProgressMode::kPlain) tty_ = false;
  interval_ = tty_ ? std::chrono::milliseconds(500) : std::chrono::milliseconds(5000);
}

ProgressReporter::~ProgressReporter() { Stop(); }

void ProgressReporter::Start() {
  start_ = clock_->Now();
  if (!enabled_ || thread_.joinable()) return;
  thread_ = std::thread([this] { Loop(); });
}

std::string ProgressReporter::Line(double elapsed) const {
  const uint64_t rows = progress_->rows.load();
  const uint64_t bytes = progress_->bytes.load();
  const uint64_t est = progress_->estimated_rows.load();
  const double mbps = elapsed > 0 ? bytes / elapsed / 1e6 : 0;
  const double remaining_seconds =
      (est > rows && rows > 0 && elapsed > 0) ? (est - rows) / (rows / elapsed) : -1.0;
  const std::string eta = remaining_seconds >= 0 ? FormatSeconds(remaining_seconds)
                          : (est > 0 && rows >= est) ? std::string("0s")
                                                      : std::string("?");
  return fmt::format("tables {}/{}  rows {}  {}  {:.1f} MB/s  elapsed {}  eta {}",
                     progress_->tables_done.load(), progress_->tables_total.load(),
                     FormatCount(static_cast<double>(rows)), FormatBytes(bytes), mbps,
                     FormatSeconds(elapsed), eta);
}

void ProgressReporter::Loop() {
  const std::stop_token stop = stop_source_.get_token();
  while (clock_->SleepFor(interval_, stop)) {
    const std::string line = Line(clock_->SecondsSince(start_));
    if (tty_) {
      std::fprintf(out_, "\r\033[K%s", line.c_str());
    } else {
      std::fprintf(out_, "lakedump: %s\n", line.c_str());
    }
    std::fflush(out_);
  }
}

void ProgressReporter::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stop_) return;
    stop_ = true;
  }
  stop_source_.request_stop();
  if (thread_.joinable()) thread_.join();
  if (enabled_ && tty_) {
    std::fprintf(out_, "\r\033[K");
    std::fflush(out_);
  }
}

}  // namespace lakedump
