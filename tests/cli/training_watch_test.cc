// Training people can watch and steer: evaluation during training (--eval_strategy), the best model
// (--load_best_model_at_end, --metric_for_best_model, --save_total_limit), TensorBoard event files
// (--report_to tensorboard) and the plot in the output directory, each against what transformers'
// Trainer does in the same configuration (fixtures/train/trainer_eval_run.json).
#include <signal.h>
#include <unistd.h>

#include <map>
#include <regex>
#include <set>

#include "cli/e2e_fixture.h"
#include "report/event_reader.h"

namespace cpuft_e2e {
namespace {

const nlohmann::json& trainer_fixture() {
  static const nlohmann::json f = read_json(CPUFT_FIXTURES "/train/trainer_eval_run.json");
  return f;
}

// log_history without the values that differ between runs that are otherwise identical.
nlohmann::json without_timings(nlohmann::json history) {
  for (nlohmann::json& e : history)
    for (const char* t : {"eval_runtime", "eval_samples_per_second", "eval_steps_per_second", "train_runtime",
                          "train_samples_per_second", "train_steps_per_second"})
      e.erase(t);
  return history;
}

// "train" (loss), "eval" (eval_*), or "summary" (train_runtime): an entry's kind, with its step.
std::string kind_of(const nlohmann::json& entry) {
  if (entry.contains("loss")) return "train";
  if (entry.contains("eval_runtime")) return "eval";
  if (entry.contains("train_runtime")) return "summary";
  return "?";
}

std::set<std::string> keys_of(const nlohmann::json& entry) {
  std::set<std::string> out;
  for (auto it = entry.begin(); it != entry.end(); ++it) out.insert(it.key());
  return out;
}

std::vector<std::string> checkpoints_in(const std::string& dir) {
  std::vector<std::pair<int, std::string>> found;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (std::regex_match(name, std::regex("checkpoint-[0-9]+"))) found.emplace_back(std::stoi(name.substr(11)), name);
  }
  std::sort(found.begin(), found.end());
  std::vector<std::string> out;
  for (const auto& [n, name] : found) out.push_back(name);
  return out;
}

std::string host_name() {
  char buf[256] = {};
  gethostname(buf, sizeof buf - 1);
  return buf;
}

class TrainingWatch : public E2eTest {
 protected:
  void SetUp() override {
    E2eTest::SetUp();
    model_ = tiny_model();
    dev_ = squad_file("dev.json", 12, 2);
  }

  // `n` training questions (one window each), batch `batch`, the learning rate that makes the tiny
  // model learn the marker task, dropout on (the config's default).
  Args run_flags(const std::string& out, int n, int batch, const Args& extra) {
    const std::string train = squad_file("train" + std::to_string(n) + ".json", n, 1);
    return concat(concat({"train", "--model_name_or_path", model_, "--train_file", train, "--validation_file", dev_,
                          "--output_dir", out, "--per_device_train_batch_size", std::to_string(batch),
                          "--learning_rate", "1e-3"},
                         tiny_flags()),
                  extra);
  }

  // The fixture's configuration: 16 questions in batches of 4, 6 steps, logging every step, an
  // evaluation and a save every 2 steps, one checkpoint kept, the best model (by f1) loaded at the end.
  Args fixture_flags(const std::string& out, const Args& extra = {}) {
    const nlohmann::json& a = trainer_fixture().at("args");
    return run_flags(out, a.at("train_features").get<int>(), a.at("per_device_train_batch_size").get<int>(),
                     concat({"--max_steps", std::to_string(a.at("max_steps").get<int>()), "--logging_steps",
                             std::to_string(a.at("logging_steps").get<int>()), "--eval_strategy", "steps",
                             "--eval_steps", std::to_string(a.at("eval_steps").get<int>()), "--save_steps",
                             std::to_string(a.at("save_steps").get<int>()), "--save_total_limit",
                             std::to_string(a.at("save_total_limit").get<int>()), "--load_best_model_at_end",
                             "--metric_for_best_model", a.at("metric_for_best_model").get<std::string>()},
                            extra));
  }

  std::string model_, dev_;
};

TEST_F(TrainingWatch, EvaluatingDuringTrainingChangesNothingInTheTraining) {
  // 48 questions in batches of 8: 6 steps per epoch; 10 steps cross into epoch 2 with dropout on.
  const Args common = {"--max_steps", "10", "--logging_steps", "2", "--save_steps", "1000"};
  ProcessResult plain = cpuft(run_flags(path("plain"), 48, 8, common));
  ASSERT_EQ(plain.status, 0) << plain.err;
  ProcessResult steps = cpuft(run_flags(path("steps"), 48, 8, concat(common, {"--eval_strategy", "steps",
                                                                             "--eval_steps", "3"})));
  ASSERT_EQ(steps.status, 0) << steps.err;
  ProcessResult epoch = cpuft(run_flags(path("epoch"), 48, 8, concat(common, {"--eval_strategy", "epoch"})));
  ASSERT_EQ(epoch.status, 0) << epoch.err;

  const std::string weights = slurp(path("plain/model.safetensors"));
  EXPECT_TRUE(weights == slurp(path("steps/model.safetensors"))) << "evaluating by steps changed the weights";
  EXPECT_TRUE(weights == slurp(path("epoch/model.safetensors"))) << "evaluating by epoch changed the weights";

  const nlohmann::json base = read_json(path("plain/trainer_state.json")).at("log_history");
  const nlohmann::json by_steps = read_json(path("steps/trainer_state.json")).at("log_history");
  const nlohmann::json by_epoch = read_json(path("epoch/trainer_state.json")).at("log_history");
  // The training entries are those of the run without evaluation, value for value.
  for (const nlohmann::json* h : {&by_steps, &by_epoch}) {
    nlohmann::json train_only = nlohmann::json::array();
    for (const nlohmann::json& e : *h)
      if (kind_of(e) != "eval") train_only.push_back(e);
    EXPECT_EQ(without_timings(train_only), without_timings(base));
  }
  // Evaluations: every 3 steps and at the end (the Trainer's rule); at each epoch's end and at the end.
  auto eval_steps = [](const nlohmann::json& h) {
    std::vector<int64_t> out;
    for (const nlohmann::json& e : h)
      if (kind_of(e) == "eval") out.push_back(e.at("step").get<int64_t>());
    return out;
  };
  EXPECT_EQ(eval_steps(by_steps), (std::vector<int64_t>{3, 6, 9, 10}));
  EXPECT_EQ(eval_steps(by_epoch), (std::vector<int64_t>{6, 10}));
  // Each as the Trainer logs it (the fixture's evaluation entry), at the epoch of its step, and one
  // console line each.
  std::set<std::string> trainer_keys;
  for (const nlohmann::json& kv : trainer_fixture().at("log_history").at(2)) trainer_keys.insert(kv[0]);
  size_t lines = 0;
  for (const nlohmann::json& e : by_steps) {
    if (kind_of(e) != "eval") continue;
    EXPECT_EQ(keys_of(e), trainer_keys) << e.dump();
    EXPECT_DOUBLE_EQ(e.at("epoch").get<double>(), e.at("step").get<double>() / 6.0);
    ++lines;
  }
  size_t printed = 0;
  for (size_t at = steps.err.find("cpuft: {\"epoch\":"); at != std::string::npos;
       at = steps.err.find("cpuft: {\"epoch\":", at + 1))
    printed += steps.err.compare(steps.err.find(',', at) + 1, 17, "\"eval_exact_match") == 0;
  EXPECT_EQ(printed, lines) << steps.err;
  EXPECT_EQ(read_json(path("steps/trainer_state.json")).at("eval_steps"), 3);
  EXPECT_EQ(read_json(path("plain/trainer_state.json")).at("eval_steps"), 500);
  // --eval_strategy implies --do_eval: the final evaluation is written as run_qa writes it.
  EXPECT_TRUE(fs::exists(path("steps/eval_results.json")));
  EXPECT_FALSE(fs::exists(path("plain/eval_results.json")));
}

TEST_F(TrainingWatch, TheBestCheckpointIsKeptAndLoadedAsTheTrainerDoes) {
  const std::string out = path("out");
  ProcessResult r = cpuft(fixture_flags(out));
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json state = read_json(out + "/trainer_state.json");
  const nlohmann::json& history = state.at("log_history");

  // The same entries at the same steps as the Trainer's run.
  const nlohmann::json& theirs = trainer_fixture().at("log_history");
  ASSERT_EQ(history.size(), theirs.size()) << history.dump();
  for (size_t i = 0; i < history.size(); ++i) {
    nlohmann::json entry = nlohmann::json::object();
    for (const nlohmann::json& kv : theirs[i]) entry[kv[0].get<std::string>()] = kv[1];
    EXPECT_EQ(kind_of(history[i]), kind_of(entry)) << i;
    EXPECT_EQ(keys_of(history[i]), keys_of(entry)) << i;
    EXPECT_EQ(history[i].at("step"), entry.at("step")) << i;
    EXPECT_EQ(history[i].at("epoch"), entry.at("epoch")) << i;
  }
  std::set<std::string> top = keys_of(state);
  top.erase("log_history");
  EXPECT_EQ(top, keys_of(trainer_fixture().at("trainer_state")));

  // The best: the first evaluation with the highest f1 (a later tie is no better).
  double best = -1;
  int64_t best_step = -1;
  for (const nlohmann::json& e : history)
    if (kind_of(e) == "eval" && e.at("eval_f1").get<double>() > best)
      best = e.at("eval_f1").get<double>(), best_step = e.at("step").get<int64_t>();
  ASSERT_GT(best_step, 0);
  const std::string best_dir = out + "/checkpoint-" + std::to_string(best_step);
  EXPECT_EQ(state.at("best_metric"), best);
  EXPECT_EQ(state.at("best_global_step"), best_step);
  EXPECT_EQ(state.at("best_model_checkpoint"), best_dir);
  // --save_total_limit 1 with a best model: only the best checkpoint is left, as the Trainer leaves it.
  EXPECT_EQ(checkpoints_in(out), std::vector<std::string>{"checkpoint-" + std::to_string(best_step)});
  // --load_best_model_at_end: the output directory holds the best weights, and the final evaluation
  // (of the same weights on the same data) finds the same f1.
  EXPECT_TRUE(slurp(out + "/model.safetensors") == slurp(best_dir + "/model.safetensors"));
  EXPECT_EQ(read_json(out + "/eval_results.json").at("eval_f1"), best);
  EXPECT_NE(r.err.find("loading best model from " + best_dir), std::string::npos) << r.err;
  const nlohmann::json kept = read_json(best_dir + "/trainer_state.json");
  EXPECT_EQ(kept.at("best_global_step"), best_step);
  EXPECT_EQ(kept.at("best_model_checkpoint"), best_dir);
  EXPECT_EQ(state.at("stateful_callbacks"), trainer_fixture().at("trainer_state").at("stateful_callbacks"));
}

TEST_F(TrainingWatch, TheNewestAndTheBestCheckpointSurviveRotation) {
  // 8 steps, a save and an evaluation every 2, two checkpoints kept, best by exact_match (greater is
  // better) or by a metric where lower is better: the best is never deleted, the newest neither.
  for (const char* greater : {"true", "false"}) {
    const std::string out = path(std::string("out-") + greater);
    ProcessResult r = cpuft(run_flags(out, 32, 8, {"--max_steps", "8", "--logging_steps", "2", "--eval_strategy",
                                                   "steps", "--eval_steps", "2", "--save_steps", "2",
                                                   "--save_total_limit", "2", "--metric_for_best_model",
                                                   "eval_exact_match", "--greater_is_better", greater}));
    ASSERT_EQ(r.status, 0) << r.err;
    const nlohmann::json state = read_json(out + "/trainer_state.json");
    const int64_t best = state.at("best_global_step").get<int64_t>();
    std::vector<std::string> want = {"checkpoint-" + std::to_string(best), "checkpoint-8"};
    if (best == 8 || best == 6) want = {"checkpoint-6", "checkpoint-8"};
    EXPECT_EQ(checkpoints_in(out), want) << greater;
    // Without --load_best_model_at_end the output directory holds the last weights.
    EXPECT_TRUE(slurp(out + "/model.safetensors") == slurp(out + "/checkpoint-8/model.safetensors"));
  }
}

TEST_F(TrainingWatch, TensorBoardFilesHoldTheLogHistory) {
  const std::string out = path("out");
  ProcessResult r = cpuft(fixture_flags(out, {"--report_to", "tensorboard"}));
  ASSERT_EQ(r.status, 0) << r.err;
  // output_dir/runs/<%b%d_%H-%M-%S>_<host>/events.out.tfevents.<time>.<host>.<pid>.0, as the Trainer names them.
  std::vector<fs::path> runs;
  for (const auto& e : fs::directory_iterator(out + "/runs")) runs.push_back(e.path());
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_TRUE(std::regex_match(runs[0].filename().string(),
                               std::regex("[A-Z][a-z]{2}[0-9]{2}_[0-9]{2}-[0-9]{2}-[0-9]{2}_" + host_name())))
      << runs[0];
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(runs[0])) files.push_back(e.path());
  ASSERT_EQ(files.size(), 1u) << "the Trainer opens a second file for the final evaluation; cpuft keeps one";
  EXPECT_TRUE(std::regex_match(files[0].filename().string(),
                               std::regex("events\\.out\\.tfevents\\.[0-9]{10}\\." + host_name() + "\\.[0-9]+\\.0")))
      << files[0];
  EXPECT_NE(r.err.find("TensorBoard event file: " + files[0].string()), std::string::npos) << r.err;

  const auto events = cpuft_test::read_events(files[0].string());
  ASSERT_GT(events.size(), 1u);
  EXPECT_EQ(events[0].file_version(), "brain.Event:2");
  std::map<std::string, std::vector<std::pair<int64_t, float>>> scalars;
  for (size_t i = 1; i < events.size(); ++i)
    for (const auto& v : events[i].summary().value()) scalars[v.tag()].emplace_back(events[i].step(), v.simple_value());
  // The Trainer's tags at the Trainer's steps (its text summaries of the arguments are not written).
  const nlohmann::json& want = trainer_fixture().at("tensorboard").at("scalars");
  ASSERT_EQ(scalars.size(), want.size());
  for (const auto& [tag, points] : scalars) {
    ASSERT_TRUE(want.contains(tag)) << tag;
    std::vector<int64_t> steps;
    for (const auto& p : points) steps.push_back(p.first);
    EXPECT_EQ(nlohmann::json(steps), want.at(tag)) << tag;
  }
  // The values are log_history's, as float32, in order (the final evaluation last).
  const nlohmann::json history = read_json(out + "/trainer_state.json").at("log_history");
  std::map<std::string, size_t> next;
  for (const nlohmann::json& e : history)
    for (auto it = e.begin(); it != e.end(); ++it) {
      if (it.key() == "step") continue;
      const std::string tag = (it.key().rfind("eval_", 0) == 0 ? "eval/" + it.key().substr(5) : "train/" + it.key());
      const auto& p = scalars.at(tag).at(next[tag]++);
      EXPECT_EQ(p.first, e.at("step").get<int64_t>()) << tag;
      EXPECT_EQ(p.second, static_cast<float>(it->get<double>())) << tag;
    }
  const nlohmann::json final_eval = read_json(out + "/eval_results.json");
  EXPECT_EQ(scalars.at("eval/f1").back().second, static_cast<float>(final_eval.at("eval_f1").get<double>()));
}

TEST_F(TrainingWatch, OnlyTensorBoardWritesEventFiles) {
  const Args quick = {"--max_steps", "2", "--save_strategy", "no", "--eval_strategy", "steps", "--eval_steps", "1"};
  ProcessResult none = cpuft(run_flags(path("none"), 16, 8, concat(quick, {"--report_to", "none"})));
  ASSERT_EQ(none.status, 0) << none.err;
  EXPECT_FALSE(fs::exists(path("none/runs")));
  ProcessResult unset = cpuft(run_flags(path("unset"), 16, 8, quick));  // transformers 5's default: none
  ASSERT_EQ(unset.status, 0) << unset.err;
  EXPECT_FALSE(fs::exists(path("unset/runs")));
  ProcessResult wandb = cpuft(run_flags(path("wandb"), 16, 8, concat(quick, {"--report_to", "wandb"})));
  ASSERT_EQ(wandb.status, 0) << wandb.err;
  EXPECT_NE(wandb.err.find("--report_to wandb has no effect in cpuft: it reports to tensorboard only"),
            std::string::npos)
      << wandb.err;
  EXPECT_FALSE(fs::exists(path("wandb/runs")));
  ProcessResult all = cpuft(run_flags(path("all"), 16, 8, concat(quick, {"--report_to", "all", "--logging_dir",
                                                                          path("tb")})));
  ASSERT_EQ(all.status, 0) << all.err;
  EXPECT_FALSE(fs::exists(path("all/runs")));
  ASSERT_EQ(std::distance(fs::directory_iterator(path("tb")), fs::directory_iterator()), 1);
  // The plot is there whatever is reported to.
  for (const char* run : {"none", "unset", "wandb", "all"}) {
    const std::string svg = slurp(path(std::string(run) + "/training_curves.svg"));
    EXPECT_EQ(svg.rfind("<svg ", 0), 0u) << run;
    EXPECT_NE(svg.find(">eval_f1<"), std::string::npos) << run;
  }
}

TEST_F(TrainingWatch, SquadV2EvaluationsLogTheV2KeysAndPickTheBestByAny) {
  nlohmann::json d = marker_squad(12, 2);
  d["version"] = "v2.0";
  for (int i : {0, 3}) {
    d["data"][i]["paragraphs"][0]["qas"][0]["is_impossible"] = true;
    d["data"][i]["paragraphs"][0]["qas"][0]["answers"] = nlohmann::json::array();
  }
  write_text(dev_, d.dump());
  const std::string out = path("out");
  ProcessResult r = cpuft(run_flags(out, 16, 8, {"--max_steps", "4", "--version_2_with_negative", "--eval_strategy",
                                                 "steps", "--eval_steps", "2", "--save_steps", "2",
                                                 "--metric_for_best_model", "HasAns_f1"}));
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json state = read_json(out + "/trainer_state.json");
  std::vector<double> has_ans;
  for (const nlohmann::json& e : state.at("log_history")) {
    if (kind_of(e) != "eval") continue;
    // run_qa's squad_v2 metric, prefixed, as the Trainer logs it (no eval_samples).
    EXPECT_EQ(keys_of(e), (std::set<std::string>{"eval_exact", "eval_f1", "eval_total", "eval_HasAns_exact",
                                                 "eval_HasAns_f1", "eval_HasAns_total", "eval_NoAns_exact",
                                                 "eval_NoAns_f1", "eval_NoAns_total", "eval_best_exact",
                                                 "eval_best_exact_thresh", "eval_best_f1", "eval_best_f1_thresh",
                                                 "eval_runtime", "eval_samples_per_second",
                                                 "eval_steps_per_second", "epoch", "step"}))
        << e.dump();
    has_ans.push_back(e.at("eval_HasAns_f1").get<double>());
  }
  ASSERT_EQ(has_ans.size(), 2u);
  EXPECT_EQ(state.at("best_metric"), std::max(has_ans[0], has_ans[1]));
  EXPECT_EQ(state.at("best_global_step"), has_ans[1] > has_ans[0] ? 4 : 2);
}

TEST_F(TrainingWatch, AnEvaluationBatchLargerThanTheTrainingBatchFits) {
  // The forward-only arena of evaluation batches of 64 is reserved beside the training one of 2.
  ProcessResult r = cpuft(run_flags(path("out"), 8, 2, {"--max_steps", "2", "--per_device_eval_batch_size", "64",
                                                        "--eval_strategy", "steps", "--eval_steps", "1",
                                                        "--save_strategy", "no"}));
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json state = read_json(path("out/trainer_state.json"));
  size_t evals = 0;
  for (const nlohmann::json& e : state.at("log_history")) evals += kind_of(e) == "eval";
  EXPECT_EQ(evals, 2u);
}

TEST_F(TrainingWatch, FlagsThatCannotWorkTogetherAreOneLineErrors) {
  ProcessResult strategies = cpuft(run_flags(path("a"), 16, 8, {"--eval_strategy", "steps", "--save_strategy",
                                                                "epoch", "--load_best_model_at_end"}));
  EXPECT_ONE_LINE_ERROR(strategies, "--load_best_model_at_end: needs --save_strategy and --eval_strategy to match, "
                                    "found --eval_strategy steps and --save_strategy epoch");
  ProcessResult metric = cpuft(run_flags(path("b"), 16, 8, {"--eval_strategy", "steps", "--eval_steps", "1",
                                                            "--save_steps", "1", "--load_best_model_at_end"}));
  EXPECT_ONE_LINE_ERROR(metric, "--metric_for_best_model: found 'loss' (the default with --load_best_model_at_end), "
                                "expected a metric the evaluation reports, with or without eval_: exact_match f1 "
                                "runtime samples_per_second steps_per_second");
  EXPECT_FALSE(fs::exists(path("b/model.safetensors")));
  EXPECT_TRUE(checkpoints_in(path("b")).empty()) << "refused before any step";
  ProcessResult report = cpuft(run_flags(path("c"), 16, 8, {"--report_to", "tensorbord"}));
  EXPECT_ONE_LINE_ERROR(report, "--report_to: found 'tensorbord', expected none, all or one of: tensorboard");
  write_text(path("blocker"), "a file");
  ProcessResult blocked = cpuft(run_flags(path("e"), 16, 8, {"--max_steps", "1", "--report_to", "tensorboard",
                                                             "--logging_dir", path("blocker/runs")}));
  EXPECT_ONE_LINE_ERROR(blocked, "--logging_dir: cannot create " + path("blocker/runs"));
  EXPECT_FALSE(fs::exists(path("e/model.safetensors")));
}

TEST_F(TrainingWatch, ResumingKeepsEvaluationsAndTheBestModelExact) {
  // 10 steps, an evaluation every 2, a checkpoint every 4; B resumes A's checkpoint-4.
  const Args flags = {"--max_steps", "10", "--logging_steps", "2", "--eval_strategy", "steps", "--eval_steps", "2",
                      "--save_steps", "4", "--metric_for_best_model", "f1"};
  const std::string a = path("A"), b = path("B"), c = path("C");
  ProcessResult ra = cpuft(run_flags(a, 48, 8, flags));
  ASSERT_EQ(ra.status, 0) << ra.err;
  fs::create_directories(b);
  fs::copy(a + "/checkpoint-4", b + "/checkpoint-4", fs::copy_options::recursive);
  ProcessResult rb = cpuft(run_flags(b, 48, 8, concat(flags, {"--resume_from_checkpoint", b + "/checkpoint-4"})));
  ASSERT_EQ(rb.status, 0) << rb.err;
  EXPECT_TRUE(slurp(a + "/model.safetensors") == slurp(b + "/model.safetensors"));
  const nlohmann::json sa = read_json(a + "/trainer_state.json"), sb = read_json(b + "/trainer_state.json");
  EXPECT_EQ(without_timings(sa.at("log_history")), without_timings(sb.at("log_history")));
  EXPECT_EQ(sa.at("best_metric"), sb.at("best_metric"));
  EXPECT_EQ(sa.at("best_global_step"), sb.at("best_global_step"));

  // A checkpoint written without evaluations (C trained without them): resuming with them evaluates
  // the checkpoint's step first, as an uninterrupted run would have, and trains on to A's weights.
  ProcessResult rc = cpuft(run_flags(c, 48, 8, {"--max_steps", "10", "--logging_steps", "2", "--save_steps", "4"}));
  ASSERT_EQ(rc.status, 0) << rc.err;
  const std::string d = path("D");
  fs::create_directories(d);
  fs::copy(c + "/checkpoint-4", d + "/checkpoint-4", fs::copy_options::recursive);
  ProcessResult rd = cpuft(run_flags(d, 48, 8, concat(flags, {"--resume_from_checkpoint", d + "/checkpoint-4"})));
  ASSERT_EQ(rd.status, 0) << rd.err;
  EXPECT_TRUE(slurp(a + "/model.safetensors") == slurp(d + "/model.safetensors"));
  nlohmann::json from_4 = nlohmann::json::array();
  for (const nlohmann::json& e : sa.at("log_history"))
    if (e.at("step").get<int64_t>() >= 4) from_4.push_back(e);
  nlohmann::json resumed = nlohmann::json::array();
  const nlohmann::json sd = read_json(d + "/trainer_state.json");
  for (const nlohmann::json& e : sd.at("log_history"))
    if (e.at("step").get<int64_t>() >= 4) resumed.push_back(e);
  // From step 4 on, the same entries (the summary's train_loss too: evaluations add no loss).
  EXPECT_EQ(without_timings(resumed), without_timings(from_4));
}

TEST_F(TrainingWatch, AStopSignalLeavesTheEvaluationToTheResumedRun) {
  // An evaluation at every step: whichever step the signal stops at, its evaluation was due. The
  // stopped run saves at once; the resumed run evaluates that step first and ends exactly where an
  // uninterrupted run ends.
  const Args flags = {"--max_steps", "40", "--logging_steps", "1", "--eval_strategy", "steps", "--eval_steps", "1",
                      "--save_steps", "1000", "--metric_for_best_model", "f1"};
  const std::string out = path("stopped"), ref = path("reference");
  ProcessResult full = cpuft(run_flags(ref, 32, 4, flags));
  ASSERT_EQ(full.status, 0) << full.err;
  CpuftProcess p(run_flags(out, 32, 4, flags), dir_);
  ASSERT_TRUE(p.started());
  ASSERT_TRUE(p.wait_for_stderr("\"step\":1}", 120)) << p.stderr_so_far();
  p.signal(SIGTERM);
  ProcessResult stopped = p.wait(60);
  ASSERT_FALSE(stopped.timed_out) << stopped.err;
  ASSERT_EQ(stopped.status, 128 + SIGTERM) << stopped.err;
  const std::vector<std::string> cks = checkpoints_in(out);
  ASSERT_EQ(cks.size(), 1u);
  const int64_t step = std::stoll(cks[0].substr(11));
  ASSERT_LT(step, 40) << "the run ended before the signal: nothing to test";
  const nlohmann::json at_stop = read_json(out + "/" + cks[0] + "/trainer_state.json").at("log_history");
  EXPECT_EQ(kind_of(at_stop.back()), "train") << "a stop does not wait for the evaluation";
  EXPECT_EQ(at_stop.back().at("step"), step);

  ProcessResult resumed = cpuft(concat(run_flags(out, 32, 4, flags), {"--resume_from_checkpoint", "last"}));
  ASSERT_EQ(resumed.status, 0) << resumed.err;
  EXPECT_TRUE(slurp(ref + "/model.safetensors") == slurp(out + "/model.safetensors"));
  const nlohmann::json s_ref = read_json(ref + "/trainer_state.json"), s_out = read_json(out + "/trainer_state.json");
  EXPECT_EQ(without_timings(s_ref.at("log_history")), without_timings(s_out.at("log_history")));
  EXPECT_EQ(s_ref.at("best_metric"), s_out.at("best_metric"));
  EXPECT_EQ(s_ref.at("best_global_step"), s_out.at("best_global_step"));
}

}  // namespace
}  // namespace cpuft_e2e
