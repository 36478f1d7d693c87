#include "cpuft/train/best_model.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "common/temp_dir.h"
#include "cpuft/util/error.h"

namespace {

cpuft::TrainArgs with(const std::string& metric, bool load_best = false, std::optional<bool> greater = {}) {
  cpuft::TrainArgs a;
  a.metric_for_best_model = metric;
  a.load_best_model_at_end = load_best;
  a.greater_is_better = greater;
  return a;
}

TEST(BestModel, MetricIsResolvedAsTrainingArgumentsDoes) {
  EXPECT_EQ(cpuft::best_metric_of(with("")).key, "");  // nothing asked: no best model is tracked
  const cpuft::BestMetric f1 = cpuft::best_metric_of(with("f1"));
  EXPECT_EQ(f1.key, "eval_f1");
  EXPECT_TRUE(f1.greater);
  EXPECT_EQ(cpuft::best_metric_of(with("eval_exact_match")).key, "eval_exact_match");
  const cpuft::BestMetric loss = cpuft::best_metric_of(with("", true));  // the default with load_best
  EXPECT_EQ(loss.key, "eval_loss");
  EXPECT_FALSE(loss.greater);
  EXPECT_FALSE(cpuft::best_metric_of(with("my_loss")).greater);  // "ends with loss"
  EXPECT_FALSE(cpuft::best_metric_of(with("f1", false, false)).greater);
  EXPECT_TRUE(cpuft::best_metric_of(with("eval_loss", false, true)).greater);
}

TEST(BestModel, AMetricTheEvaluationLacksIsRefusedInOneLine) {
  const std::vector<std::string> keys = {"eval_exact_match", "eval_f1", "eval_runtime"};
  EXPECT_NO_THROW(cpuft::check_best_metric(cpuft::best_metric_of(with("f1")), with("f1"), keys));
  EXPECT_NO_THROW(cpuft::check_best_metric(cpuft::best_metric_of(with("")), with(""), keys));
  try {
    cpuft::check_best_metric(cpuft::best_metric_of(with("", true)), with("", true), keys);
    FAIL();
  } catch (const cpuft::Error& e) {
    EXPECT_STREQ(e.what(), "--metric_for_best_model: found 'loss' (the default with --load_best_model_at_end), "
                           "expected a metric the evaluation reports, with or without eval_: exact_match f1 runtime");
  }
  try {
    cpuft::check_best_metric(cpuft::best_metric_of(with("F1")), with("F1"), keys);
    FAIL();
  } catch (const cpuft::Error& e) {
    EXPECT_STREQ(e.what(), "--metric_for_best_model: found 'F1', expected a metric the evaluation reports, with or "
                           "without eval_: exact_match f1 runtime");
  }
}

TEST(BestModel, OnlyAStrictlyBetterValueIsANewBest) {
  cpuft::TrainerState s;
  const cpuft::BestMetric f1{"eval_f1", true};
  EXPECT_TRUE(cpuft::record_evaluation(s, f1, {{"eval_f1", 10.0}}, 2, true));
  EXPECT_FALSE(cpuft::record_evaluation(s, f1, {{"eval_f1", 10.0}}, 4, true));  // a tie keeps the first
  EXPECT_EQ(s.best_global_step, 2);
  EXPECT_TRUE(cpuft::record_evaluation(s, f1, {{"eval_f1", 12.5}}, 6, true));
  EXPECT_EQ(s.best_metric, 12.5);
  EXPECT_EQ(s.best_global_step, 6);

  cpuft::TrainerState lower;
  const cpuft::BestMetric loss{"eval_loss", false};
  cpuft::record_evaluation(lower, loss, {{"eval_loss", 2.0}}, 1, true);
  EXPECT_FALSE(cpuft::record_evaluation(lower, loss, {{"eval_loss", 3.0}}, 2, true));
  EXPECT_TRUE(cpuft::record_evaluation(lower, loss, {{"eval_loss", 1.0}}, 3, true));
  EXPECT_EQ(lower.best_global_step, 3);

  // Without checkpoints there is a best metric but no best step (the Trainer's save_strategy "no").
  cpuft::TrainerState unsaved;
  EXPECT_TRUE(cpuft::record_evaluation(unsaved, f1, {{"eval_f1", 1.0}}, 2, false));
  EXPECT_EQ(unsaved.best_metric, 1.0);
  EXPECT_FALSE(unsaved.best_global_step.has_value());
  EXPECT_FALSE(cpuft::record_evaluation(unsaved, cpuft::BestMetric{}, {{"eval_f1", 5.0}}, 4, false));
  EXPECT_THROW(cpuft::record_evaluation(unsaved, f1, {{"eval_exact", 1.0}}, 6, false), cpuft::Error);
}

TEST(BestModel, TheCheckpointPointerFollowsTheBestStepOnceItExists) {
  const std::string out = cpuft_test::temp_dir_until_exit();
  cpuft::TrainerState s;
  cpuft::point_to_best_checkpoint(s, out, 2);
  EXPECT_FALSE(s.best_model_checkpoint.has_value());  // no best yet
  s.best_global_step = 2;
  cpuft::point_to_best_checkpoint(s, out, 2);  // the checkpoint being saved is the best one
  EXPECT_EQ(s.best_model_checkpoint, out + "/checkpoint-2");
  s.best_global_step = 3;                     // evaluated at a step without a checkpoint
  cpuft::point_to_best_checkpoint(s, out, 4);
  EXPECT_EQ(s.best_model_checkpoint, out + "/checkpoint-2");  // kept, as the Trainer keeps it
  std::filesystem::create_directories(out + "/checkpoint-3");
  cpuft::point_to_best_checkpoint(s, out, 4);
  EXPECT_EQ(s.best_model_checkpoint, out + "/checkpoint-3");
  EXPECT_EQ(cpuft::checkpoint_path("out/", 7), "out/checkpoint-7");  // os.path.join
  EXPECT_EQ(cpuft::checkpoint_path("out", 7), "out/checkpoint-7");
}

TEST(BestModel, OnResumeTheRecordedPathIsDerivedAgain) {
  const std::string out = cpuft_test::temp_dir_until_exit();
  cpuft::TrainerState s;
  s.best_global_step = 4;
  s.best_metric = 50.0;
  s.best_model_checkpoint = "/somewhere/else/checkpoint-4";  // from the file: not trusted
  std::filesystem::create_directories(out + "/checkpoint-4");
  EXPECT_EQ(cpuft::rebase_best_checkpoint(s, out), "");
  EXPECT_EQ(s.best_model_checkpoint, out + "/checkpoint-4");
  std::filesystem::remove(out + "/checkpoint-4");
  EXPECT_EQ(cpuft::rebase_best_checkpoint(s, out),
            "the best checkpoint so far (step 4) is not in " + out +
                "; there is no best model to load unless a later evaluation beats best_metric 50");
  EXPECT_FALSE(s.best_model_checkpoint.has_value());
  EXPECT_EQ(cpuft::rebase_best_checkpoint(s, out), "");  // nothing recorded: nothing to say
}

}  // namespace
