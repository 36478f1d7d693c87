// Evaluation during training over several ranks: every rank evaluates its share of the features (as
// train --do_eval does), all ranks take rank 0's metrics for the best model, and only rank 0 writes
// TensorBoard event files.
#include <gtest/gtest.h>

#include <filesystem>

#include "parallel/train_e2e.h"

namespace fs = std::filesystem;

namespace {

class TrainWatch : public cpuft_test::TrainE2E {
 protected:
  void SetUp() override {
    TrainE2E::SetUp();
    if (!mpi_usable()) GTEST_SKIP() << "mpirun not found or cpuft built without MPI";
  }
};

TEST_F(TrainWatch, TwoRanksEvaluateLikeOneAndOnlyRankZeroReports) {
  const std::string args = "--max_train_samples 32 --max_steps 6 --validation_file " CPUFT_SOURCE_DIR
                           "/data/squad-mini/dev-mini-v1.1.json --max_eval_samples 20 --eval_strategy steps "
                           "--eval_steps 2 --save_steps 2 --load_best_model_at_end --metric_for_best_model f1 "
                           "--report_to tensorboard";
  const std::string one = train(1, "w1", args + " --per_device_train_batch_size 8");
  const std::string two = train(2, "w2", args + " --per_device_train_batch_size 4");
  cpuft_test::expect_same_training(two, one, 1e-5);  // the evaluations changed nothing in either

  const nlohmann::json s1 = cpuft_test::read_json(one + "/trainer_state.json");
  const nlohmann::json s2 = cpuft_test::read_json(two + "/trainer_state.json");
  std::vector<int64_t> steps1, steps2;
  for (const nlohmann::json& e : s1["log_history"])
    if (e.contains("eval_f1")) steps1.push_back(e["step"]);
  for (const nlohmann::json& e : s2["log_history"])
    if (e.contains("eval_f1")) {
      steps2.push_back(e["step"]);
      EXPECT_EQ(e["eval_runtime"].is_number(), true);
    }
  EXPECT_EQ(steps1, (std::vector<int64_t>{2, 4, 6}));
  EXPECT_EQ(steps2, steps1);
  ASSERT_TRUE(s2["best_model_checkpoint"].is_string());
  const std::string best = s2["best_model_checkpoint"];
  EXPECT_TRUE(cpuft_test::weights_rel_diff(two, best) == 0.0) << "the output holds the best checkpoint's weights";

  // One event file, rank 0's, under output_dir/runs/<date>_<host>/.
  size_t files = 0;
  for (const auto& e : fs::recursive_directory_iterator(two + "/runs"))
    if (e.is_regular_file()) {
      ++files;
      EXPECT_NE(e.path().filename().string().find("events.out.tfevents."), std::string::npos) << e.path();
    }
  EXPECT_EQ(files, 1u);
}

}  // namespace
