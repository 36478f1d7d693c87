// Evaluation during training against what transformers' Trainer wrote in the same situation
// (fixtures/train/trainer_eval_run.json, tools/make_trainer_eval_fixture.py): the keys of each kind of
// log_history entry and of trainer_state.json, and how the best model and --save_total_limit 1 play
// out over evaluations that peak in the middle (f1 40, 60, 50 at steps 2, 4, 6; a save at each).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "common/temp_dir.h"
#include "cpuft/train/best_model.h"
#include "cpuft/train/checkpoint.h"
#include "cpuft/train/trainer_state.h"
#include "cpuft/util/atomic_file.h"

namespace fs = std::filesystem;

namespace {

const nlohmann::json& fixture() {
  static const nlohmann::json f = [] {
    std::ifstream in(CPUFT_FIXTURES "/train/trainer_eval_run.json");
    return nlohmann::json::parse(in);
  }();
  return f;
}

// The keys of the fixture's log_history entry `i` (the Trainer's entries are lists of [key, value]).
std::set<std::string> keys_of_entry(size_t i) {
  std::set<std::string> out;
  for (const nlohmann::json& kv : fixture().at("log_history").at(i)) out.insert(kv[0].get<std::string>());
  return out;
}

std::set<std::string> keys_of(const nlohmann::json& object) {
  std::set<std::string> out;
  for (auto it = object.begin(); it != object.end(); ++it) out.insert(it.key());
  return out;
}

TEST(TrainerEvalParity, LogHistoryEntriesHaveTheTrainersKeys) {
  // The fixture's entries: 0 a training log (step 1), 2 an evaluation (step 2), the last the summary.
  const nlohmann::json& history = fixture().at("log_history");
  EXPECT_EQ(keys_of(cpuft::train_log_entry(4.5, 1.0, 1e-3, 0.25, 1)), keys_of_entry(0));
  // What infer/evaluator.h's evaluate_qa returns for SQuAD v1.1: the metrics, the speed, eval_samples.
  nlohmann::json metrics = {{"eval_exact_match", 20.0}, {"eval_f1", 40.0}, {"eval_samples", 8}};
  metrics.update(cpuft::speed_metrics("eval", {0.5, 8, 2}));
  const nlohmann::json eval = cpuft::eval_log_entry(metrics, 0.5, 2);
  EXPECT_EQ(keys_of(eval), keys_of_entry(2));
  for (const nlohmann::json& kv : history.at(2)) {
    if (kv[1].is_null()) continue;  // timings
    EXPECT_EQ(eval.at(kv[0].get<std::string>()), kv[1]) << kv[0];
  }
  nlohmann::json summary = cpuft::train_metrics({1.0, 24, 6}, 1e9, 4.5, 1.5);
  summary["step"] = 6;
  EXPECT_EQ(keys_of(summary), keys_of_entry(history.size() - 1));
}

TEST(TrainerEvalParity, TrainerStateHasTheTrainersFields) {
  cpuft::TrainerState s;
  s.best_metric = 60.0;
  s.best_global_step = 4;
  s.best_model_checkpoint = "out/checkpoint-4";
  const nlohmann::json ours = nlohmann::json::parse(s.to_json());
  std::set<std::string> theirs = keys_of(fixture().at("trainer_state"));
  theirs.insert("log_history");
  EXPECT_EQ(keys_of(ours), theirs);
  for (const char* k : {"best_metric", "best_global_step", "best_model_checkpoint"})
    EXPECT_EQ(ours.at(k), fixture().at("trainer_state").at(k)) << k;
  // The TrainerControl of the last save, at the last step (the final trainer_state.json keeps it).
  EXPECT_EQ(fixture().at("trainer_state").at("stateful_callbacks").at("TrainerControl").at("args"),
            nlohmann::json({{"should_epoch_stop", false}, {"should_evaluate", false}, {"should_log", false},
                            {"should_save", true}, {"should_training_stop", true}}));
  // Read back on resume.
  const cpuft::TrainerState back = cpuft::TrainerState::from_json(s.to_json(), "trainer_state.json");
  EXPECT_EQ(back.best_metric, 60.0);
  EXPECT_EQ(back.best_global_step, 4);
  EXPECT_EQ(back.best_model_checkpoint, "out/checkpoint-4");
}

std::vector<std::string> checkpoints_in(const std::string& dir) {
  std::vector<std::pair<int, std::string>> found;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("checkpoint-", 0) == 0) found.emplace_back(std::stoi(name.substr(11)), name);
  }
  std::sort(found.begin(), found.end());
  std::vector<std::string> out;
  for (const auto& [n, name] : found) out.push_back(name);
  return out;
}

TEST(TrainerEvalParity, BestModelAndSaveTotalLimitFollowTheTrainer) {
  const nlohmann::json& args = fixture().at("args");
  cpuft::TrainArgs a;
  a.metric_for_best_model = args.at("metric_for_best_model").get<std::string>();
  a.load_best_model_at_end = args.at("load_best_model_at_end").get<bool>();
  const cpuft::BestMetric best = cpuft::best_metric_of(a);
  EXPECT_EQ(best.key, "eval_f1");
  EXPECT_TRUE(best.greater);

  const std::string tmp = cpuft_test::temp_dir_until_exit();
  const std::string out = tmp + "/out";
  fs::create_directories(out);
  auto relative = [&](const std::optional<std::string>& p) {
    return p ? nlohmann::json(fs::relative(*p, tmp).string()) : nlohmann::json(nullptr);
  };
  cpuft::TrainerState state;
  const int64_t every = args.at("eval_steps").get<int64_t>(), limit = args.at("save_total_limit").get<int64_t>();
  size_t eval_index = 0, save_index = 0;
  // The Trainer's order after a step: evaluate, then save (checkpoint, then rotation).
  for (int64_t step = 1; step <= args.at("max_steps").get<int64_t>(); ++step) {
    if (step % every != 0) continue;
    const double f1 = args.at("scripted_f1").at(eval_index++).get<double>();
    cpuft::record_evaluation(state, best, {{"eval_exact_match", f1 / 2}, {"eval_f1", f1}}, step, true);
    cpuft::point_to_best_checkpoint(state, out, step);
    const std::string dir = cpuft::checkpoint_path(out, step);
    fs::create_directories(dir);
    cpuft::write_file_atomic(dir + "/cpuft_state.json", "{}");
    cpuft::rotate_checkpoints(out, limit, {dir, state.best_model_checkpoint.value_or("")});

    const nlohmann::json& want = fixture().at("saves").at(save_index++);
    EXPECT_EQ(want.at("step"), step);
    EXPECT_EQ(nlohmann::json(checkpoints_in(out)), want.at("checkpoints")) << "after the save of step " << step;
    EXPECT_EQ(nlohmann::json(state.best_global_step ? nlohmann::json(*state.best_global_step) : nullptr),
              want.at("best_global_step"))
        << step;
    EXPECT_EQ(nlohmann::json(*state.best_metric), want.at("best_metric")) << step;
    EXPECT_EQ(relative(state.best_model_checkpoint), want.at("best_model_checkpoint")) << step;
  }
  EXPECT_EQ(save_index, fixture().at("saves").size());
  // _finalize_training: with save_total_limit 1, every checkpoint but the best goes.
  cpuft::rotate_checkpoints(out, 1, {*state.best_model_checkpoint});
  EXPECT_EQ(nlohmann::json(checkpoints_in(out)), fixture().at("checkpoints_at_end"));
  EXPECT_EQ(fixture().at("final_model_is"), "checkpoint-" + std::to_string(*state.best_global_step));
}

}  // namespace
