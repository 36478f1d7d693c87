#include "cpuft/train/step_plan.h"

#include <gtest/gtest.h>

#include "cpuft/util/error.h"

namespace {
cpuft::TrainArgs args_with(int64_t batch, int64_t accum = 1) {
  cpuft::TrainArgs a;
  a.per_device_train_batch_size = batch;
  a.gradient_accumulation_steps = accum;
  return a;
}
}  // namespace

// Figures of run_qa's reference training: 88,524 SQuAD v1.1 training features (384/128), 3 epochs.
TEST(StepPlan, MatchesPublishedTrainerCounts) {
  auto p8 = cpuft::plan_steps(args_with(8), 88524, 1);
  EXPECT_EQ(p8.steps_per_epoch, 11066);
  EXPECT_EQ(p8.max_steps, 33198);
  EXPECT_EQ(p8.num_epochs, 3);
  auto p16 = cpuft::plan_steps(args_with(16), 88524, 1);
  EXPECT_EQ(p16.steps_per_epoch, 5533);
  EXPECT_EQ(p16.max_steps, 16599);
  auto p64 = cpuft::plan_steps(args_with(64), 88524, 1);
  EXPECT_EQ(p64.steps_per_epoch, 1384);
  EXPECT_EQ(p64.max_steps, 4152);
  EXPECT_EQ(p64.total_train_batch_size, 64);
  EXPECT_EQ(p64.num_train_samples, 88524.0 * 3);
}

TEST(StepPlan, WorldSizeAndAccumulationCountGlobalBatches) {
  // 100 features, batch 8: 13 batches; over 2 ranks 7 rounds; accumulating 2: 4 updates per epoch.
  EXPECT_EQ(cpuft::batches_per_epoch(100, 8, 2), 7);
  auto p = cpuft::plan_steps(args_with(8, 2), 100, 2);
  EXPECT_EQ(p.batches_per_epoch, 7);
  EXPECT_EQ(p.steps_per_epoch, 4);
  EXPECT_EQ(p.max_steps, 12);
  EXPECT_EQ(p.total_train_batch_size, 32);
}

TEST(StepPlan, FractionalEpochsAndMaxSteps) {
  auto a = args_with(8);
  a.num_train_epochs = 1.5;
  auto p = cpuft::plan_steps(a, 80, 1);  // 10 steps per epoch
  EXPECT_EQ(p.max_steps, 15);
  EXPECT_EQ(p.num_epochs, 2);
  a.max_steps = 25;
  p = cpuft::plan_steps(a, 80, 1);
  EXPECT_EQ(p.max_steps, 25);
  EXPECT_EQ(p.num_epochs, 3);
  EXPECT_EQ(p.num_train_samples, 200.0);  // max_steps x global batch
}

TEST(StepPlan, WarmupAndIntervals) {
  auto a = args_with(8);
  a.warmup_ratio = 0.1;
  EXPECT_EQ(cpuft::resolve_warmup_steps(a, 33198), 3320);  // ceil(3319.8)
  a.warmup_steps = 0.05;                                    // v5: a ratio, takes precedence
  EXPECT_EQ(cpuft::resolve_warmup_steps(a, 100), 5);
  a.warmup_steps = 7;
  EXPECT_EQ(cpuft::resolve_warmup_steps(a, 100), 7);
  EXPECT_EQ(cpuft::resolve_interval(500, 10), 500);
  EXPECT_EQ(cpuft::resolve_interval(0.25, 10), 3);
  EXPECT_EQ(cpuft::resolve_interval(0.01, 10), 1);
}

TEST(StepPlan, EpochProgressAsTrainerLogsIt) {
  EXPECT_DOUBLE_EQ(cpuft::epoch_progress(0, 1, 4), 0.25);
  EXPECT_DOUBLE_EQ(cpuft::epoch_progress(2, 4, 4), 3.0);
}

TEST(StepPlan, EmptyTrainingSetIsAnError) { EXPECT_THROW(cpuft::plan_steps(args_with(8), 0, 1), cpuft::Error); }

TEST(StepPlan, EvalStepsFallBackToLoggingStepsAsTheTrainers) {
  cpuft::TrainArgs a = args_with(8);
  a.max_steps = 40;
  a.logging_steps = 0.25;  // a ratio: every 10 steps
  EXPECT_EQ(cpuft::plan_steps(a, 100, 1).eval_steps, 500);  // no evaluation: TrainerState's default
  a.eval_strategy = cpuft::EvalStrategy::kSteps;
  EXPECT_EQ(cpuft::plan_steps(a, 100, 1).eval_steps, 10);  // --logging_steps, resolved
  a.eval_steps = 0.1;
  EXPECT_EQ(cpuft::plan_steps(a, 100, 1).eval_steps, 4);
  a.eval_steps = 7;
  EXPECT_EQ(cpuft::plan_steps(a, 100, 1).eval_steps, 7);
  a.eval_strategy = cpuft::EvalStrategy::kEpoch;  // given but not used: trainer_state.json still says it
  EXPECT_EQ(cpuft::plan_steps(a, 100, 1).eval_steps, 7);
}
