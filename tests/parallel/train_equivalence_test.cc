// Data parallelism is exact: N ranks with per-device batch b train like 1 rank with batch N*b (the
// global batch is split across ranks and the gradient buckets sum each rank's share of the mean), so
// per-step losses, gradient norms and final weights agree up to summation order.
#include <gtest/gtest.h>

#include "parallel/train_e2e.h"

namespace {

using cpuft_test::expect_same_training;

class TrainEquivalence : public cpuft_test::TrainE2E {
 protected:
  void SetUp() override {
    TrainE2E::SetUp();
    if (!mpi_usable()) GTEST_SKIP() << "mpirun not found or cpuft built without MPI";
  }
};

// FP32 reaches 3e-7 to 2e-6 on the weights and under 1e-7 on grad norms and train_loss here (summation
// order only); the issue asks for 1e-5.
constexpr double kFp32Tol = 1e-5;

// 32 features: four full global batches of 8 per epoch, two epochs.
TEST_F(TrainEquivalence, TwoAndFourRanksMatchOneRankFp32) {
  const std::string args = "--max_train_samples 32 --num_train_epochs 2";
  const std::string one = train(1, "r1", args + " --per_device_train_batch_size 8");
  const std::string two = train(2, "r2", args + " --per_device_train_batch_size 4");
  const std::string four = train(4, "r4", args + " --per_device_train_batch_size 2");
  expect_same_training(two, one, kFp32Tol);
  expect_same_training(four, one, kFp32Tol);
}

// 25 features: the last global batch of each epoch has one row, so with 2 or 4 ranks some ranks get
// none and contribute zero gradients while rank 0's share is the whole mean.
TEST_F(TrainEquivalence, UnevenLastGlobalBatch) {
  const std::string args = "--max_train_samples 25 --num_train_epochs 2";
  const std::string one = train(1, "u1", args + " --per_device_train_batch_size 8");
  const std::string two = train(2, "u2", args + " --per_device_train_batch_size 4");
  const std::string four = train(4, "u4", args + " --per_device_train_batch_size 2");
  expect_same_training(two, one, kFp32Tol);
  expect_same_training(four, one, kFp32Tol);
}

// Two micro-batches per step; 36 features make the last step's second micro-batch short (4 of 8 rows).
TEST_F(TrainEquivalence, GradientAccumulation) {
  const std::string args = "--max_train_samples 36 --num_train_epochs 2 --gradient_accumulation_steps 2";
  const std::string one = train(1, "g1", args + " --per_device_train_batch_size 8");
  const std::string two = train(2, "g2", args + " --per_device_train_batch_size 4");
  const std::string four = train(4, "g4", args + " --per_device_train_batch_size 2");
  expect_same_training(two, one, kFp32Tol);
  expect_same_training(four, one, kFp32Tol);
}

// --pad_to_max_length false --group_by_length: every rank pads its share to the longest window of the
// global batch, so the batches (and the loss over their positions) are one process's; with accumulation.
TEST_F(TrainEquivalence, DynamicPaddingAndLengthGroups) {
  const std::string args = "--max_train_samples 36 --num_train_epochs 2 --gradient_accumulation_steps 2"
                           " --pad_to_max_length false --group_by_length";
  const std::string one = train(1, "d1", args + " --per_device_train_batch_size 8");
  const std::string two = train(2, "d2", args + " --per_device_train_batch_size 4");
  const std::string four = train(4, "d4", args + " --per_device_train_batch_size 2");
  expect_same_training(two, one, kFp32Tol);
  expect_same_training(four, one, kFp32Tol);
}

// BF16 matrix products round each rank's smaller batch differently from one big batch, so only
// closeness is expected: 1e-2 relative (measured on Zen 3: weights 3e-5, grad norms 6e-6).
TEST_F(TrainEquivalence, Bf16) {
  const std::string args = "--max_train_samples 32 --num_train_epochs 2 --bf16";
  const std::string one = train(1, "b1", args + " --per_device_train_batch_size 8");
  const std::string two = train(2, "b2", args + " --per_device_train_batch_size 4");
  expect_same_training(two, one, 1e-2);
}

// Each classification head (docs/tasks.md): 2 ranks with batch 4 train like 1 rank with batch 8, the
// token head weighing each rank's mean by its share of the global batch's labelled tokens
// (docs/parity.md, Classification heads), with accumulation.
TEST_F(TrainEquivalence, ClassificationHeads) {
  const std::string glue = " --task text-classification --train_file " CPUFT_SOURCE_DIR "/data/snli-mini/train.csv";
  const std::string ner = " --task token-classification --train_file " CPUFT_SOURCE_DIR "/data/wnut17-mini/train.json";
  const std::string args = " --max_train_samples 36 --num_train_epochs 1 --gradient_accumulation_steps 2";
  for (const auto& [name, task] : {std::pair<std::string, std::string>{"glue", glue}, {"ner", ner}}) {
    const std::string one = train(1, name + "1", args + task + " --per_device_train_batch_size 8");
    const std::string two = train(2, name + "2", args + task + " --per_device_train_batch_size 4");
    expect_same_training(two, one, kFp32Tol);
  }
}

}  // namespace
