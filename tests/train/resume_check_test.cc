// Resuming compares the checkpoint's recorded flags with this run's: a change that moves the meaning
// of "batch N of epoch E" is refused (a changed batch size used to jump silently to another epoch),
// any other change is named flag by flag (the warning used to say only "flags differ").
#include "cpuft/train/resume_check.h"

#include <gtest/gtest.h>

#include "cpuft/train/checkpoint.h"
#include "cpuft/train/step_plan.h"

namespace {

cpuft::CheckpointState written_by(const cpuft::TrainArgs& a, int64_t world) {
  cpuft::CheckpointState s;
  s.world_size = world;
  s.args_hash = cpuft::training_args_hash(a);
  s.flags = cpuft::training_flags(a);
  return s;
}

TEST(ResumeCheck, SameFlagsAndSameGlobalBatchContinue) {
  cpuft::TrainArgs a;
  a.per_device_train_batch_size = 4;
  const cpuft::ResumeCheck same = cpuft::check_resume(written_by(a, 2), a, 2);
  EXPECT_EQ(same.refusal, "");
  EXPECT_EQ(same.changes, "");
  // 2 processes x 4 -> 1 process x 8: the same global batches, the same data order.
  cpuft::TrainArgs b = a;
  b.per_device_train_batch_size = 8;
  const cpuft::ResumeCheck fewer = cpuft::check_resume(written_by(a, 2), b, 1);
  EXPECT_EQ(fewer.refusal, "");
  EXPECT_EQ(fewer.changes, "");
  cpuft::TrainArgs c = a;
  c.output_dir = "elsewhere";  // where results go does not change the trajectory
  EXPECT_EQ(cpuft::training_args_hash(a), cpuft::training_args_hash(c));
}

TEST(ResumeCheck, AChangedGlobalBatchOrDataIsRefused) {
  cpuft::TrainArgs a;
  cpuft::TrainArgs b = a;
  b.per_device_train_batch_size = 16;
  EXPECT_EQ(cpuft::check_resume(written_by(a, 1), b, 1).refusal,
            "the global batch (--per_device_train_batch_size x processes) is 16 x 1 = 16 but the checkpoint was "
            "written with 8 x 1 = 8; its position in the epoch would not carry over; resume with the same values, "
            "or train afresh with --overwrite_output_dir");
  EXPECT_NE(cpuft::check_resume(written_by(a, 1), a, 2).refusal.find("is 8 x 2 = 16"), std::string::npos);
  b = a;
  b.max_seq_length = 256;
  EXPECT_EQ(cpuft::check_resume(written_by(a, 1), b, 1).refusal.rfind("--max_seq_length 384 -> 256 changes the "
                                                                     "training data",
                                                                     0),
            0u);
  b = a;
  b.data_seed = 7;
  EXPECT_EQ(cpuft::check_resume(written_by(a, 1), b, 1).refusal.rfind("--data_seed 42 -> 7", 0), 0u);
}

// The recorded flags are read from a file: a value that is not a number, or a product that would
// overflow, is a refusal like any other mismatch, never an exception or undefined arithmetic.
TEST(ResumeCheck, HostileRecordedValuesAreRefused) {
  cpuft::TrainArgs a;
  cpuft::CheckpointState s = written_by(a, 1);
  s.flags["per_device_train_batch_size"] = "x";
  EXPECT_NE(cpuft::check_resume(s, a, 1).refusal.find("written with x x 1; its position"), std::string::npos);
  s = written_by(a, 1);
  s.world_size = INT64_MAX;
  EXPECT_NE(cpuft::check_resume(s, a, 1).refusal.find("written with 8 x 9223372036854775807; its"), std::string::npos);
}

TEST(ResumeCheck, OtherChangesAreNamed) {
  cpuft::TrainArgs a;
  cpuft::TrainArgs b = a;
  b.learning_rate = 1e-4;
  b.max_steps = 200;
  const cpuft::ResumeCheck c = cpuft::check_resume(written_by(a, 1), b, 1);
  EXPECT_EQ(c.refusal, "");
  EXPECT_EQ(c.changes, "--learning_rate 5e-05 -> 0.0001, --max_steps -1 -> 200");
  EXPECT_NE(cpuft::training_args_hash(a), cpuft::training_args_hash(b));
}

// A changed accumulation count changes what a step is: the counters of the checkpoint would land
// elsewhere in the epoch (it was only named as a changed flag).
TEST(ResumeCheck, AChangedAccumulationCountIsRefused) {
  cpuft::TrainArgs a;
  cpuft::TrainArgs b = a;
  b.gradient_accumulation_steps = 2;
  EXPECT_EQ(cpuft::check_resume(written_by(a, 1), b, 1).refusal,
            "--gradient_accumulation_steps 1 -> 2 changes how many batches one step takes; the checkpoint's position "
            "in the epoch would not carry over; resume with the same values, or train afresh with "
            "--overwrite_output_dir");
}

// 48 windows in batches of 8: 6 batches per epoch; with 4 batches a step, 2 steps per epoch (4 + 2).
cpuft::StepPlan plan_of(int64_t accumulation, int64_t max_steps) {
  cpuft::TrainArgs a;
  a.gradient_accumulation_steps = accumulation;
  a.max_steps = max_steps;
  return cpuft::plan_steps(a, 48, 1);
}

cpuft::CheckpointState at_step(const cpuft::StepPlan& plan, int64_t g, int64_t epoch, int64_t batches) {
  cpuft::CheckpointState s;
  s.progress.global_step = g;
  s.progress.epoch = epoch;
  s.progress.batches_in_epoch = batches;
  s.progress.last_logged_step = g;
  s.adam_step = s.scheduler_step = g;
  s.samples_seen = g * plan.total_train_batch_size;
  return s;
}

TEST(ResumeCheck, CountersWhereTheStepPutsThemContinue) {
  const cpuft::StepPlan one = plan_of(1, 10);
  EXPECT_EQ(cpuft::check_progress(at_step(one, 0, 0, 0), one, 1), "");
  EXPECT_EQ(cpuft::check_progress(at_step(one, 4, 0, 4), one, 1), "");
  EXPECT_EQ(cpuft::check_progress(at_step(one, 6, 0, 6), one, 1), "") << "the end of epoch 0, not yet epoch 1";
  EXPECT_EQ(cpuft::check_progress(at_step(one, 8, 1, 2), one, 1), "");
  EXPECT_EQ(cpuft::check_progress(at_step(one, 10, 1, 4), one, 1), "") << "the final checkpoint";
  const cpuft::StepPlan four = plan_of(4, 10);
  EXPECT_EQ(cpuft::check_progress(at_step(four, 1, 0, 4), four, 4), "");
  EXPECT_EQ(cpuft::check_progress(at_step(four, 2, 0, 6), four, 4), "") << "the last step takes what is left";
  EXPECT_EQ(cpuft::check_progress(at_step(four, 3, 1, 4), four, 4), "");
}

// Edited counters (epoch 10^18, batches_in_epoch 10^18 or 1) were accepted and changed the result.
TEST(ResumeCheck, CountersThatDoNotFitThePlanAreRefused) {
  const cpuft::StepPlan plan = plan_of(1, 10);
  const std::string at8 = " (global_step 8 with 6 steps of 1 of the 6 batches of an epoch)";
  EXPECT_EQ(cpuft::check_progress(at_step(plan, 8, 1000000000000000000, 2), plan, 1),
            "epoch: found 1000000000000000000, expected 1" + at8);
  EXPECT_EQ(cpuft::check_progress(at_step(plan, 8, 1, 1000000000000000000), plan, 1),
            "batches_in_epoch: found 1000000000000000000, expected 2" + at8);
  EXPECT_EQ(cpuft::check_progress(at_step(plan, 8, 1, 1), plan, 1), "batches_in_epoch: found 1, expected 2" + at8);
  EXPECT_EQ(cpuft::check_progress(at_step(plan, 11, 1, 5), plan, 1),
            "global_step: found 11, expected 0 to 10 (this run's total optimization steps)");
  EXPECT_EQ(cpuft::check_progress(at_step(plan, -1, 0, 0), plan, 1),
            "global_step: found -1, expected 0 to 10 (this run's total optimization steps)");
  cpuft::CheckpointState s = at_step(plan, 8, 1, 2);
  s.adam_step = 7;
  EXPECT_EQ(cpuft::check_progress(s, plan, 1), "adam_step: found 7, expected 8 (global_step)");
  s = at_step(plan, 8, 1, 2);
  s.samples_seen = 1;
  EXPECT_EQ(cpuft::check_progress(s, plan, 1), "samples_seen: found 1, expected 64 (global_step 8 x total batch 8)");
  s = at_step(plan, 8, 1, 2);
  s.progress.last_logged_step = 9;
  EXPECT_EQ(cpuft::check_progress(s, plan, 1), "last_logged_step: found 9, expected 0 to 8 (global_step)");
  s = at_step(plan, 8, 1, 2);
  s.progress.loss_sum = -1;
  EXPECT_EQ(cpuft::check_progress(s, plan, 1), "loss_sum: found -1, expected a finite number >= 0");
}

// A checkpoint of a hidden-32 model resumed under a hidden-64 one trained on silently (and wrote the
// other model); one made from other data or another tokenizer was not noticed either.
TEST(ResumeCheck, WhatACheckpointWasMadeFromMustBeThisRuns) {
  cpuft::ModelConfig small;
  small.family = cpuft::ModelFamily::kBert;
  small.hidden = 32;
  small.heads = 4;
  cpuft::ModelConfig large = small;
  large.hidden = 64;
  EXPECT_EQ(cpuft::check_made_from(cpuft::made_from_model(small), cpuft::made_from_model(small), "m"), "");
  EXPECT_EQ(cpuft::check_made_from(cpuft::made_from_model(small), cpuft::made_from_model(large), "this model"),
            "made_from.model.hidden_size: found 32, expected 64 (this model)");
  std::map<std::string, std::string> recorded = cpuft::made_from_model(small);
  recorded.erase("model.num_hidden_layers");
  EXPECT_EQ(cpuft::check_made_from(recorded, cpuft::made_from_model(small), "m"),
            "made_from.model.num_hidden_layers: missing, expected 6 (m)");
  recorded = cpuft::made_from_model(small);
  recorded["data.train_features"] = "48";
  std::map<std::string, std::string> now = cpuft::made_from_model(small);
  now["data.train_features"] = "50";
  EXPECT_EQ(cpuft::check_made_from(recorded, now, "this data"),
            "made_from.data.train_features: found 48, expected 50 (this data)");
}

}  // namespace
