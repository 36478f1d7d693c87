#include "cpuft/train/trainer_state.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/temp_dir.h"
#include "cpuft/util/atomic_file.h"
#include "cpuft/util/error.h"
#include "cpuft/util/read_file.h"

// Expected bytes below were written by transformers 5.24 (TrainerState.save_to_json, speed_metrics,
// Trainer.save_metrics / json.dump(indent=4, sort_keys=True)) for the same inputs.

namespace {
}  // namespace

TEST(TrainerState, JsonMatchesTransformersBytes) {
  cpuft::TrainerState s;
  s.epoch = 0.5;
  s.global_step = 2;
  s.max_steps = 4;
  s.num_train_epochs = 1;
  s.logging_steps = 1;
  s.save_steps = 2;
  s.total_flos = 1234567.0;
  s.log_history.push_back(cpuft::train_log_entry(1.23456, 3.5, 5e-05, 0.25, 1));
  const char* expected = R"({
  "best_global_step": null,
  "best_metric": null,
  "best_model_checkpoint": null,
  "epoch": 0.5,
  "eval_steps": 500,
  "global_step": 2,
  "is_hyper_param_search": false,
  "is_local_process_zero": true,
  "is_world_process_zero": true,
  "log_history": [
    {
      "epoch": 0.25,
      "grad_norm": 3.5,
      "learning_rate": 5e-05,
      "loss": 1.23456,
      "step": 1
    }
  ],
  "logging_steps": 1,
  "max_steps": 4,
  "num_input_tokens_seen": 0,
  "num_train_epochs": 1,
  "save_steps": 2,
  "stateful_callbacks": {
    "TrainerControl": {
      "args": {
        "should_epoch_stop": false,
        "should_evaluate": false,
        "should_log": false,
        "should_save": true,
        "should_training_stop": false
      },
      "attributes": {}
    }
  },
  "total_flos": 1234567.0,
  "train_batch_size": 8,
  "trial_name": null,
  "trial_params": null
}
)";
  EXPECT_EQ(s.to_json(), expected);
}

TEST(TrainerState, RoundTripsThroughJson) {
  cpuft::TrainerState s;
  s.epoch = 1.75;
  s.global_step = 7;
  s.max_steps = 8;
  s.total_flos = 2.5e16;
  s.log_history.push_back(cpuft::train_log_entry(0.5, 1.0, 1e-5, 1.75, 7));
  auto back = cpuft::TrainerState::from_json(s.to_json(), "trainer_state.json");
  EXPECT_EQ(back.to_json(), s.to_json());
}

TEST(TrainerState, CorruptJsonNamesFileAndKey) {
  try {
    cpuft::TrainerState::from_json(R"({"epoch": 1.0})", "ck/trainer_state.json");
    FAIL();
  } catch (const cpuft::Error& e) {
    EXPECT_STREQ(e.what(), "ck/trainer_state.json: global_step: missing, expected a value");
  }
  try {
    cpuft::TrainerState::from_json("{trunc", "ck/trainer_state.json");
    FAIL();
  } catch (const cpuft::Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("ck/trainer_state.json: not valid JSON at byte 5 (line 1, column 5): ", 0), 0u)
        << e.what();
  }
  try {
    cpuft::TrainerState::from_json("[1]", "ck/trainer_state.json");
    FAIL();
  } catch (const cpuft::Error& e) {
    EXPECT_STREQ(e.what(), "ck/trainer_state.json: not a JSON object (expected trainer_state.json)");
  }
}

// A log_history entry nested 100,000 deep was re-written with indentation per level (gigabytes, then a
// crash); nesting is refused on read.
TEST(TrainerState, DeepLogHistoryIsRefused) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  try {
    cpuft::TrainerState::from_json("{\"log_history\": [{\"loss\": " + deep + "}]}", "ck/trainer_state.json");
    FAIL();
  } catch (const cpuft::Error& e) {
    EXPECT_EQ(std::string(e.what()), "ck/trainer_state.json: nested deeper than 64 levels at byte 88 (line 1, column 88)");
  }
}

TEST(TrainerState, SpeedMetricsRoundLikeTransformers) {
  cpuft::SpeedInputs in{112.345678 - 100.0, 1000, 125};
  auto m = cpuft::train_metrics(in, 208000000000000.0, 1.2345678901234567, 2.0);
  m["train_samples"] = 1000;
  const char* expected = R"({
    "epoch": 2.0,
    "total_flos": 208000000000000.0,
    "train_loss": 1.2345678901234567,
    "train_runtime": 12.3457,
    "train_samples": 1000,
    "train_samples_per_second": 81.0,
    "train_steps_per_second": 10.125
})";
  std::string dir = cpuft_test::temp_dir_until_exit();
  cpuft::save_metrics(dir, "train", m);
  EXPECT_EQ(cpuft::read_file(dir + "/train_results.json"), expected);
  EXPECT_EQ(cpuft::read_file(dir + "/all_results.json"), expected);

  nlohmann::json e = {{"eval_exact_match", 81.2}, {"eval_f1", 88.51234}, {"eval_samples", 10784}, {"epoch", 2.0}};
  e.update(cpuft::speed_metrics("eval", {10.5, 10784, 1348}));
  cpuft::save_metrics(dir, "eval", e);
  const char* all = R"({
    "epoch": 2.0,
    "eval_exact_match": 81.2,
    "eval_f1": 88.51234,
    "eval_runtime": 10.5,
    "eval_samples": 10784,
    "eval_samples_per_second": 1027.048,
    "eval_steps_per_second": 128.381,
    "total_flos": 208000000000000.0,
    "train_loss": 1.2345678901234567,
    "train_runtime": 12.3457,
    "train_samples": 1000,
    "train_samples_per_second": 81.0,
    "train_steps_per_second": 10.125
})";
  EXPECT_EQ(cpuft::read_file(dir + "/all_results.json"), all);
}
