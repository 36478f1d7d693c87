// With dropout on, N ranks still train like 1 rank: masks are drawn per row of the GLOBAL batch (each
// rank passes the offset of its slice, QaModel::Batch::row_offset), so the same rows get the same masks
// whatever the world size.
#include <gtest/gtest.h>

#include "parallel/train_e2e.h"

namespace {

class TrainDropout : public cpuft_test::TrainE2E {
 protected:
  void SetUp() override {
    TrainE2E::SetUp();
    if (!mpi_usable()) GTEST_SKIP() << "mpirun not found or cpuft built without MPI";
    model_ = init_model("tiny-bert-dropout.json", "model-dropout");  // hidden and attention dropout 0.1
  }
};

// 25 features and 2 micro-batches per step: uneven slices (a rank with no rows in the last batch).
TEST_F(TrainDropout, TwoAndFourRanksMatchOneRank) {
  const std::string args = "--max_train_samples 25 --num_train_epochs 2 --gradient_accumulation_steps 2";
  const std::string one = train(1, "d1", args + " --per_device_train_batch_size 8");
  const std::string two = train(2, "d2", args + " --per_device_train_batch_size 4");
  const std::string four = train(4, "d4", args + " --per_device_train_batch_size 2");
  cpuft_test::expect_same_training(two, one, 1e-5);
  cpuft_test::expect_same_training(four, one, 1e-5);
}

}  // namespace
