#include "cpuft/util/progress.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "cpuft/util/log.h"

namespace {

// Captures everything the log module writes; restores stderr afterwards.
struct Capture {
  std::string text;
  Capture() {
    cpuft::set_log_sink([this](const std::string& t) { text += t; });
  }
  ~Capture() {
    cpuft::set_log_sink(nullptr);
    cpuft::set_log_rank(0, 1);
  }
};

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

}  // namespace

TEST(Progress, FormatsDurations) {
  EXPECT_EQ(cpuft::format_duration(0), "00:00");
  EXPECT_EQ(cpuft::format_duration(125), "02:05");
  EXPECT_EQ(cpuft::format_duration(3725), "1:02:05");
  EXPECT_EQ(cpuft::format_duration(NAN), "?");
}

TEST(Progress, PlainModePrintsFirstEveryNStepsAndLast) {
  Capture cap;
  double t = 0;
  cpuft::ProgressOptions opt;
  opt.live = false;
  opt.plain_every_s = 1e9;
  opt.plain_every_steps = 4;
  opt.clock = [&] { return t; };
  cpuft::Progress p(10, 0, opt);
  for (int step = 1; step <= 10; ++step) {
    t += 2.0;  // 2 s per step, 16 samples per step
    p.update(step, step / 10.0, 1.5, 5e-5, 16 * step);
  }
  // Steps 1, 5, 9 (every 4) and 10 (the last).
  EXPECT_EQ(count(cap.text, "\n"), 4u) << cap.text;
  EXPECT_EQ(cap.text.find('\r'), std::string::npos);
  EXPECT_NE(cap.text.find("cpuft: step 5/10 (50%) | epoch 0.50 | loss 1.5000 | lr 5e-05 | 8.0 samples/s | "
                          "elapsed 00:10 | eta 00:10\n"),
            std::string::npos)
      << cap.text;
  EXPECT_NE(cap.text.find("step 10/10"), std::string::npos);
}

TEST(Progress, PlainModePrintsByTime) {
  Capture cap;
  double t = 0;
  cpuft::ProgressOptions opt;
  opt.plain_every_s = 30;
  opt.clock = [&] { return t; };
  cpuft::Progress p(100, 0, opt);
  for (int step = 1; step <= 50; ++step) {
    t += 1.0;
    p.update(step, 0.0, 1.0, 1e-5, step);
  }
  // Step 1 (t=1), step 31 (t=31): two lines.
  EXPECT_EQ(count(cap.text, "\n"), 2u) << cap.text;
}

TEST(Progress, LiveModeRedrawsOneLineAndLogsClearIt) {
  Capture cap;
  double t = 0;
  cpuft::ProgressOptions opt;
  opt.live = true;
  opt.clock = [&] { return t; };
  {
    cpuft::Progress p(4, 2, opt);  // resumed at step 2
    t = 10;
    p.update(3, 1.5, 0.75, 2.5e-6, 8);
    EXPECT_EQ(p.last_line(),
              "step 3/4 (75%) | epoch 1.50 | loss 0.7500 | lr 2.5e-06 | 0.8 samples/s | elapsed 00:10 | eta 00:10");
    cpuft::log_info("saved checkpoint-3");
    t = 20;
    p.update(4, 2.0, 0.5, 0.0, 16);
  }
  EXPECT_EQ(cap.text.substr(0, 2), "\r[");
  EXPECT_NE(cap.text.find("[###############.....] step 3/4"), std::string::npos) << cap.text;
  EXPECT_NE(cap.text.find("\r\033[Kcpuft: saved checkpoint-3\n"), std::string::npos) << cap.text;
  EXPECT_EQ(cap.text.back(), '\n');  // the destructor ends the live line
  EXPECT_EQ(count(cap.text, "\n"), 2u);
}

TEST(Progress, OnlyRankZeroPrints) {
  Capture cap;
  cpuft::set_log_rank(1, 2);
  cpuft::ProgressOptions opt;
  cpuft::Progress p(2, 0, opt);
  p.update(1, 0.5, 1.0, 1e-5, 8);
  p.update(2, 1.0, 1.0, 1e-5, 16);
  EXPECT_EQ(cap.text, "");
}

TEST(Log, PrefixesLevelsAndRanks) {
  Capture cap;
  cpuft::log_info("reading ", 3, " files");
  cpuft::log_notice("--no_cuda has no effect");
  cpuft::log_warn("slow");
  EXPECT_EQ(cap.text, "cpuft: reading 3 files\ncpuft: notice: --no_cuda has no effect\ncpuft: warning: slow\n");
  cap.text.clear();
  cpuft::set_log_rank(2, 4);
  cpuft::log_info("hidden on rank 2");
  cpuft::log_warn_all_ranks("only 3 cores");
  EXPECT_EQ(cap.text, "cpuft[rank 2/4]: warning: only 3 cores\n");
}

// Every message is one line: what a message quotes (a path, a tensor name from a file) may hold a
// newline or an escape byte, and comes out escaped.
TEST(Log, MessagesStayOneLine) {
  Capture cap;
  cpuft::log_warn("cannot read /runs/a\nb: ", "\x1b[2J");
  cpuft::log_fatal("rank 1 on host\r\nx: stopped");
  EXPECT_EQ(cap.text, "cpuft: warning: cannot read /runs/a\\nb: \\x1b[2J\ncpuft: rank 1 on host\\r\\nx: stopped\n");
}
