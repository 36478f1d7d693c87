// `cpuft bench`: the --json report that bench/compare.sh reads, and its one-line errors for bad flags
// and a step beyond memory.
#include "cli/e2e_fixture.h"

namespace cpuft_e2e {
namespace {

class Bench : public E2eTest {
 protected:
  // A tiny model so that a step takes milliseconds.
  static Args tiny(const Args& extra) {
    return concat({"bench", "--hidden", "32", "--layers", "1", "--heads", "2", "--intermediate", "64", "--vocab",
                   "100", "--batch", "2", "--seq", "16", "--steps", "2", "--threads", "1"},
                  extra);
  }
};

TEST_F(Bench, JsonReportHasTheFiguresOfTheTextReport) {
  ProcessResult r = cpuft(tiny({"--json", "--warmup", "0"}));
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("side"), "cpuft");
  EXPECT_EQ(j.at("mode"), "train");
  EXPECT_EQ(j.at("dtype"), "fp32");
  EXPECT_EQ(j.at("batch"), 2);
  EXPECT_EQ(j.at("seq"), 16);
  const double step = j.at("step_s");
  EXPECT_GT(step, 0);
  EXPECT_NEAR(j.at("samples_per_s").get<double>(), 2 / step, 1e-9 * (2 / step));
  EXPECT_NEAR(j.at("tokens_per_s").get<double>(), 32 / step, 1e-9 * (32 / step));
  EXPECT_GT(j.at("peak_gflops").get<double>(), 0);
  EXPECT_NEAR(j.at("mfu").get<double>(), j.at("gflops").get<double>() / j.at("peak_gflops").get<double>(), 1e-12);
  EXPECT_GT(j.at("peak_rss_mib").get<double>(), 0);
}

TEST_F(Bench, EvalBf16TextReport) {
  ProcessResult r = cpuft(tiny({"--eval", "--bf16"}));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("cpuft bench: forward bf16"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("samples/s"), std::string::npos) << r.out;
}

TEST_F(Bench, ProfileSharesCoverTheStep) {
  ProcessResult r = cpuft(tiny({"--json", "--profile", "--warmup", "1"}));
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  const nlohmann::json& p = j.at("profile_s_per_step");
  for (const char* op : {"embedding", "matmul", "attention", "layernorm", "gelu", "dropout", "loss", "grad_norm",
                         "optimizer", "other"})
    EXPECT_TRUE(p.contains(op)) << op << " missing from " << p.dump();
  EXPECT_FALSE(p.contains("bf16_round")) << "fp32 steps round nothing: " << p.dump();
  double sum = 0;
  for (const auto& [op, s] : p.items()) {
    EXPECT_GE(s.get<double>(), 0) << op;
    sum += s.get<double>();
  }
  // The ops and "other" add up to the mean step, which is at least the median's order of magnitude.
  EXPECT_GT(sum, 0.5 * j.at("step_s").get<double>());
  EXPECT_LT(sum, 2.0 * j.at("step_s").get<double>());
}

TEST_F(Bench, ProfileTextReportListsShares) {
  ProcessResult r = cpuft(tiny({"--profile", "--bf16"}));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("profile (mean over the 2 timed steps)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("matmul"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("bf16_round"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("%"), std::string::npos) << r.out;
}

TEST_F(Bench, NegativeWarmupIsRejected) {
  ProcessResult r = cpuft(tiny({"--warmup", "-1"}));
  EXPECT_ONE_LINE_ERROR(r, "--warmup: found '-1', expected an integer in [0, 1000000]");
}

TEST_F(Bench, ZeroStepsIsRejected) {
  ProcessResult r = cpuft(tiny({"--steps", "0"}));
  EXPECT_ONE_LINE_ERROR(r, "--steps: found '0', expected an integer in [1, 1000000]");
}

TEST_F(Bench, HiddenNotAMultipleOfHeads) {
  ProcessResult r = cpuft(tiny({"--heads", "3"}));
  EXPECT_ONE_LINE_ERROR(r, "--hidden: found 32", "multiple of --heads (3)");
}

// The step's memory is checked as train checks it (run/setup's reserve_activations), naming bench's flags,
// before anything of that size is allocated.
TEST_F(Bench, BatchBeyondMemoryIsRefused) {
  ProcessResult r = cpuft(tiny({"--batch", "1000000", "--seq", "512"}));
  EXPECT_ONE_LINE_ERROR(r, "--batch 1000000 with --seq 512: training this model (", "of memory, more than the");
}

TEST_F(Bench, UnknownFlag) {
  ProcessResult r = cpuft(tiny({"--batches", "4"}));
  EXPECT_ONE_LINE_ERROR(r, "unknown flag --batches; did you mean --batch?", "cpuft bench --help");
}

}  // namespace
}  // namespace cpuft_e2e
