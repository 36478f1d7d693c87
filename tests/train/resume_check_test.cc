// Resuming compares the checkpoint's recorded flags with this run's: a change that moves the meaning
// of "batch N of epoch E" is refused (a changed batch size used to jump silently to another epoch),
// any other change is named flag by flag (the warning used to say only "flags differ").
#include "cpuft/train/resume_check.h"

#include <gtest/gtest.h>

#include "cpuft/train/checkpoint.h"

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

TEST(ResumeCheck, OlderCheckpointsWithoutFlagsFallBackToTheHash) {
  cpuft::TrainArgs a;
  cpuft::CheckpointState s;
  s.args_hash = cpuft::training_args_hash(a);
  EXPECT_EQ(cpuft::check_resume(s, a, 1).changes, "");
  cpuft::TrainArgs b = a;
  b.learning_rate = 3e-5;
  EXPECT_EQ(cpuft::check_resume(s, b, 1).changes, "the training flags differ from those the checkpoint was written with");
  EXPECT_NE(cpuft::check_resume(s, a, 2).refusal.find("written by 1 processes and this run has 2"), std::string::npos);
}

}  // namespace
