// Checkpoints written by N ranks resume on M ranks: a checkpoint holds the model, the optimizer moments
// and the position in the epoch's order, none of which depends on the world size.
#include <gtest/gtest.h>

#include "parallel/train_e2e.h"

namespace {

class TrainResume : public cpuft_test::TrainE2E {
 protected:
  void SetUp() override {
    TrainE2E::SetUp();
    if (!mpi_usable()) GTEST_SKIP() << "mpirun not found or cpuft built without MPI";
  }
};

// 30 features, global batch 8: 4 steps per epoch, 8 in all; checkpoint-3 sits inside the first epoch.
TEST_F(TrainResume, TwoRanksToOneFinishesLikeTheUninterruptedRun) {
  const std::string args = "--max_train_samples 30 --num_train_epochs 2 --save_steps 3";
  const std::string two = train(2, "r2", args + " --per_device_train_batch_size 4");
  const std::string resumed =
      train(1, "r2to1", args + " --per_device_train_batch_size 8 --resume_from_checkpoint " + two + "/checkpoint-3");
  // The resumed run logs steps 4..8 only: compare those entries with the uninterrupted run's.
  const nlohmann::json full = cpuft_test::read_json(two + "/trainer_state.json")["log_history"];
  const nlohmann::json tail = cpuft_test::read_json(resumed + "/trainer_state.json")["log_history"];
  ASSERT_FALSE(tail.empty());
  EXPECT_EQ(tail.back().value("step", 0), 8);
  double grad_norm_rel = 0;
  for (const nlohmann::json& e : tail) {
    if (!e.contains("grad_norm")) continue;
    const nlohmann::json& ref = full.at(e["step"].get<int>() - 1);
    ASSERT_EQ(ref["step"], e["step"]);
    EXPECT_NEAR(e["loss"].get<double>(), ref["loss"].get<double>(), 1e-4 + 1e-9) << e.dump();
    grad_norm_rel = std::max(grad_norm_rel, cpuft_test::rel_diff(e["grad_norm"], ref["grad_norm"]));
  }
  const double w = cpuft_test::weights_rel_diff(resumed, two);
  std::printf("[ 2 ranks -> checkpoint-3 -> 1 rank vs 2 ranks uninterrupted: weights %.2e, grad_norm %.2e ]\n", w,
              grad_norm_rel);
  EXPECT_LE(w, 1e-5);
  EXPECT_LE(grad_norm_rel, 1e-5);
}

}  // namespace
