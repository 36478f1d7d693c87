// The communication figures cpuft reports under mpirun: `cpuft bench` on 2 ranks (the data-parallel
// step against one rank, the allreduce per step, its exposed part, the share hidden) in its text and
// --json reports, and the trainer's per-logging-step allreduce times. Figures must be present and
// sane (consistent with each other and with the model's size); timings are never asserted.
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include <nlohmann/json.hpp>

#include "parallel/train_e2e.h"

namespace {

// A 1-layer model of hidden 32 over a 100-word vocabulary: 28,258 parameters (word rows 3,200,
// positions 512 x 32, embedding LayerNorm 64, the layer 8,544, qa_outputs 66).
const std::string kTinyBench =
    " bench --hidden 32 --layers 1 --heads 2 --intermediate 64 --vocab 100 --batch 2 --seq 16 --steps 2"
    " --warmup 1 --threads 1";
constexpr double kTinyParams = 28258;
constexpr double kTinyWordRows = 100 * 32;

class CommFigures : public cpuft_test::TrainE2E {
 protected:
  void SetUp() override {
    TrainE2E::SetUp();
    if (HasFatalFailure()) return;
    if (!mpi_usable()) GTEST_SKIP() << "mpirun not found or cpuft built without MPI";
  }
  static cpuft_test::RunResult bench(const std::string& args) {
    return cpuft_test::run_command("timeout 120 mpirun --oversubscribe --bind-to none -np 2 " CPUFT_BINARY + kTinyBench +
                                   " " + args);
  }
};

TEST_F(CommFigures, BenchJsonUnderMpi) {
  cpuft_test::RunResult r = bench("--json --bucket_size_mb 0.01 --allreduce_dtype bf16");
  ASSERT_EQ(r.status, 0) << r.output;
  // The report is the one line that is a JSON object (the ranks' notes on stderr come with it here).
  const size_t at = r.output.find("\n{") + 1;
  ASSERT_NE(at, 0u) << r.output;
  const nlohmann::json j = nlohmann::json::parse(r.output.substr(at, r.output.find('\n', at) - at));
  std::printf("%s\n", j.dump().c_str());
  EXPECT_EQ(j.at("ranks"), 2);
  EXPECT_EQ(j.at("nodes"), 1);
  EXPECT_EQ(j.at("allreduce_dtype"), "bf16");
  EXPECT_EQ(j.at("bucket_size_mb"), 0.01);
  const double step = j.at("step_s"), local = j.at("local_step_s");
  EXPECT_GT(step, 0);
  EXPECT_GT(local, 0);
  EXPECT_NEAR(j.at("samples_per_s").get<double>(), 2 * 2 / step, 1e-9 * (4 / step));  // both ranks' rows
  EXPECT_NEAR(j.at("scaling_efficiency").get<double>(), local / step, 1e-12);
  const double ar = j.at("allreduce_s"), exposed = j.at("allreduce_exposed_s");
  EXPECT_GT(ar, 0);
  EXPECT_GE(exposed, 0);
  const double straggler = j.at("straggler_s");
  EXPECT_NEAR(j.at("allreduce_hidden").get<double>(), 1 - (exposed - straggler) / (ar - straggler), 1e-12);
  EXPECT_GE(straggler, 0);
  EXPECT_LE(straggler, exposed + 1e-12);  // a part of the exposed wait
  EXPECT_GT(j.at("allreduce_alone_s").get<double>(), 0);
  EXPECT_GT(j.at("allreduce_8b_s").get<double>(), 0);
  // Backward's profile: every gradient once, in order, within the step.
  const nlohmann::json& p = j.at("ready_profile");
  double floats = 0, last = 0;
  for (const auto& mark : p.at("ready")) {
    EXPECT_GE(mark[0].get<double>(), last);
    last = mark[0];
    floats += mark[1].get<double>();
  }
  EXPECT_EQ(floats, kTinyParams);
  EXPECT_LE(last, p.at("backward_end_s").get<double>());
  EXPECT_LE(p.at("backward_end_s").get<double>(), p.at("step_s").get<double>());
  // 2,621 floats per bucket: the 25,058 dense parameters make 10 buckets, the word rows one more.
  EXPECT_EQ(j.at("buckets"), 11);
  EXPECT_TRUE(j.at("progress_thread").is_boolean());
  // bf16 on the wire: 2 bytes per dense parameter and per element of the touched word rows (at most all).
  const double mb = j.at("allreduce_mb_per_step");
  EXPECT_GT(mb, 2 * (kTinyParams - kTinyWordRows) / 1e6);
  EXPECT_LE(mb, 2 * kTinyParams / 1e6 + 1e-12);
}

TEST_F(CommFigures, BenchTextReportUnderMpi) {
  cpuft_test::RunResult r = bench("");
  ASSERT_EQ(r.status, 0) << r.output;
  std::printf("%s", r.output.c_str());
  EXPECT_NE(r.output.find("2 ranks on 1 node(s), batch 2 per rank; f32 gradients in 2 buckets of 25 MB"),
            std::string::npos)
      << r.output;
  for (const char* line : {"one-rank step (no allreduce)", "scaling efficiency", "allreduce per step",
                           "allreduce exposed", "of which the slowest rank", "allreduce alone",
                           "allreduce of 8 bytes"})
    EXPECT_NE(r.output.find(line), std::string::npos) << line << "\n" << r.output;
  EXPECT_TRUE(std::regex_search(r.output, std::regex("\n  allreduce hidden -?[0-9]+\\.[0-9]%\n"))) << r.output;
  // Exactly one report: only rank 0 prints.
  EXPECT_EQ(r.output.find("cpuft bench:"), r.output.rfind("cpuft bench:")) << r.output;
}

TEST_F(CommFigures, BenchEvalUnderMpiIsRefused) {
  cpuft_test::RunResult r = bench("--eval");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("--eval: times one process"), std::string::npos) << r.output;
}

TEST_F(CommFigures, TrainerLogsAllreduceTimesPerLoggingStep) {
  const std::string out = dir_ + "/two";
  cpuft_test::RunResult r = cpuft_test::run_command(cpuft_test::train_command(
      2, cpuft_test::common_train_flags(model_) + " --output_dir " + out +
             " --max_train_samples 16 --per_device_train_batch_size 4 --logging_steps 2"));
  ASSERT_EQ(r.status, 0) << r.output;
  const std::regex line("\\{[^\n]*\"allreduce_exposed_s\":([0-9.e-]+)[^\n]*\"allreduce_s\":([0-9.e-]+)[^\n]*\"step\":2\\}");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.output, m, line)) << r.output;
  const double exposed = std::stod(m[1]), total = std::stod(m[2]);
  EXPECT_GE(exposed, 0);
  EXPECT_GT(total, 0);
  // Not in trainer_state.json: it stays comparable with a run of one process.
  const nlohmann::json state = cpuft_test::read_json(out + "/trainer_state.json");
  for (const auto& entry : state.at("log_history")) EXPECT_FALSE(entry.contains("allreduce_s")) << entry.dump();
}

}  // namespace
