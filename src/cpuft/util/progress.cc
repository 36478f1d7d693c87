#include "cpuft/util/progress.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>

#include "cpuft/util/clock.h"
#include "cpuft/util/log.h"

namespace cpuft {

namespace {
constexpr int kBarWidth = 20;
}

std::string format_duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  const int64_t s = static_cast<int64_t>(seconds + 0.5);
  char buf[32];
  if (s < 3600)
    std::snprintf(buf, sizeof buf, "%02lld:%02lld", static_cast<long long>(s / 60), static_cast<long long>(s % 60));
  else
    std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", static_cast<long long>(s / 3600),
                  static_cast<long long>(s / 60 % 60), static_cast<long long>(s % 60));
  return buf;
}

bool Progress::stderr_is_terminal() { return ::isatty(STDERR_FILENO) == 1; }

Progress::Progress(int64_t total_steps, int64_t start_step, ProgressOptions options)
    : total_(total_steps), start_(start_step), opt_(std::move(options)) {
  t0_ = now();
}

Progress::~Progress() { finish(); }

double Progress::now() const {
  if (opt_.clock) return opt_.clock();
  return now_s();
}

std::string Progress::format(int64_t step, double epoch, double loss, double lr, int64_t samples,
                             double elapsed) const {
  const double done = static_cast<double>(step - start_);
  const double eta = done > 0 ? elapsed / done * static_cast<double>(total_ - step) : NAN;
  const double rate = elapsed > 0 ? static_cast<double>(samples) / elapsed : 0.0;
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "step %lld/%lld (%.0f%%) | epoch %.2f | loss %.4f | lr %.3g | %.1f samples/s | elapsed %s | eta %s",
                static_cast<long long>(step), static_cast<long long>(total_),
                total_ > 0 ? 100.0 * static_cast<double>(step) / static_cast<double>(total_) : 0.0, epoch, loss,
                lr, rate, format_duration(elapsed).c_str(), format_duration(eta).c_str());
  return buf;
}

void Progress::update(int64_t step, double epoch, double loss, double learning_rate, int64_t samples) {
  if (log_rank() != 0) return;
  const double t = now();
  line_ = format(step, epoch, loss, learning_rate, samples, t - t0_);
  if (opt_.live) {
    const int64_t filled = total_ > 0 ? kBarWidth * step / total_ : 0;
    std::string bar = "[" + std::string(static_cast<size_t>(filled), '#') +
                      std::string(static_cast<size_t>(kBarWidth - filled), '.') + "] ";
    log_write_raw("\r" + bar + line_ + "\033[K");
    set_live_line_active(true);
    live_shown_ = true;
    return;
  }
  const bool first = last_print_step_ < 0;
  const bool by_steps = opt_.plain_every_steps > 0 && step - last_print_step_ >= opt_.plain_every_steps;
  const bool by_time = t - last_print_t_ >= opt_.plain_every_s;
  if (first || by_steps || by_time || step >= total_) {
    log_write_raw("cpuft: " + line_ + "\n");
    last_print_t_ = t;
    last_print_step_ = step;
  }
}

void Progress::finish() {
  if (!live_shown_) return;
  log_write_raw("\n");
  set_live_line_active(false);
  live_shown_ = false;
}

}  // namespace cpuft
