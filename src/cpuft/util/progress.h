// Training progress. On a terminal: one line redrawn in place with \r (bar, step/total, epoch, loss,
// lr, samples/s, elapsed, ETA). Otherwise (a log file, a batch job): a plain line every N seconds or
// N steps, and at the last step. Only rank 0 prints.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace cpuft {

struct ProgressOptions {
  bool live = false;            // redraw one line (use Progress::stderr_is_terminal())
  double plain_every_s = 30;    // plain mode: at most one line per this many seconds...
  int64_t plain_every_steps = 0;  // ...or every this many steps (0: by time only)
  std::function<double()> clock;  // seconds, monotonic; empty: now_s() (util/clock.h)
};

class Progress {
 public:
  // Steps start_step+1 .. total_steps will be reported (start_step > 0 when resuming).
  Progress(int64_t total_steps, int64_t start_step, ProgressOptions options);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // After optimizer step `step`; samples: training windows processed since this Progress began.
  void update(int64_t step, double epoch, double loss, double learning_rate, int64_t samples);
  // Ends a live line with a newline (also done by the destructor).
  void finish();

  // The text shown for the latest update (without \r or escape codes).
  const std::string& last_line() const { return line_; }

  static bool stderr_is_terminal();

 private:
  double now() const;
  std::string format(int64_t step, double epoch, double loss, double lr, int64_t samples, double elapsed) const;

  int64_t total_, start_;
  ProgressOptions opt_;
  double t0_;
  double last_print_t_ = -1;
  int64_t last_print_step_ = -1;
  bool live_shown_ = false;
  std::string line_;
};

// "MM:SS" below an hour, "H:MM:SS" above.
std::string format_duration(double seconds);

}  // namespace cpuft
