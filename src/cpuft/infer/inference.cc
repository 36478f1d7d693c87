#include "cpuft/infer/inference.h"

#include "cpuft/eval/prediction_files.h"
#include "cpuft/eval/results_files.h"
#include "cpuft/flags/train_options.h"
#include "cpuft/infer/task_evaluator.h"
#include "cpuft/run/setup.h"
#include "cpuft/util/clock.h"
#include "cpuft/util/error.h"
#include "cpuft/util/log.h"
#include "cpuft/util/phase_times.h"

namespace cpuft {

void write_results(const std::string& out_dir, const std::string& split, const EvalOutcome& out,
                   bool version_2_with_negative, const Communicator& comm) {
  if (!comm.is_root()) return;
  write_prediction_files(out_dir, out.predictions, version_2_with_negative, split);
  save_metrics(out_dir, split, out.metrics);  // also merged into all_results.json
  log_info("***** ", split, " metrics *****");
  for (auto it = out.metrics.begin(); it != out.metrics.end(); ++it) log_info("  ", it.key(), " = ", it.value().dump());
}

int run_evaluate(const TrainArgs& args, Communicator& comm) {
  configure_threads(static_cast<int>(args.threads), comm);
  const bool predict = args.command == Command::kPredict;
  const std::string& file = predict ? args.test_file : args.validation_file;
  if (file.empty()) fail(predict ? "--test_file" : "--validation_file", ": missing, expected a SQuAD JSON file");
  PhaseTimes phases;
  const double load_start = now_s();
  LoadedModel loaded = load_model(model_source(args), comm);
  // Where the results go is checked before the work that produces them.
  const std::string& out_dir = args.output_dir;  // required by cpuft evaluate / predict --test_file
  DirLock lock;  // rank 0: the one writer of out_dir until the results are written
  if (comm.is_root()) {
    lock = lock_output_dir(out_dir);
    check_results_file(out_dir);
  }
  reserve_activations(*loaded.model, args.per_device_eval_batch_size, args.max_seq_length, false,
                      "--per_device_eval_batch_size");
  phases.add("load", now_s() - load_start);
  const std::string split = predict ? "predict" : "eval";
  // A classification model (its config.json's head) runs its job whatever --task says.
  const HeadSpec& head = loaded.model->config().head;
  if (head.task != TaskHead::kQuestionAnswering) {
    TrainArgs task_args = args;
    task_args.task = head.task;
    const TaskOptions to = task_options(task_args);
    const TaskLabels labels = labels_of_model(head, head.task, loaded.model_dir + "/config.json");
    TaskData data;
    {
      PhaseScope scope(&phases, "features");
      data = load_task_data(file, predict ? Split::kTest : Split::kValidation, labels, *loaded.tokenizer, to,
                            predict ? args.max_predict_samples : args.max_eval_samples);
    }
    const TaskOutcome out =
        evaluate_task(*loaded.model, data, labels, args.return_entity_level_metrics,
                      static_cast<int>(args.per_device_eval_batch_size), static_cast<int>(args.max_seq_length), comm,
                      split, !predict, &phases);
    {
      PhaseScope scope(&phases, "writing");
      write_task_results(out_dir, split, out, comm);
    }
    if (comm.is_root()) log_info("results written to ", out_dir, "; ", phases.line());
    return 0;
  }
  if (args.task != TaskHead::kQuestionAnswering)
    fail(loaded.model_dir, "/config.json: the model has a question-answering head (architectures ",
         qa_architecture_name(loaded.model->config().family), "), not a ", task_name(args.task), " one");
  QaData data;
  {
    PhaseScope scope(&phases, "features");
    data = load_eval_data(file, *loaded.tokenizer, feature_options(args),
                          predict ? args.max_predict_samples : args.max_eval_samples);
  }
  warn_if_v2_without_flag(data, args.version_2_with_negative);
  // A file without answers can still be answered; it just cannot be scored. A SQuAD v2.0 question
  // marked impossible is an answer too (that there is none): a file of only such questions is scored.
  bool has_answers = false;
  for (const Example& e : data.examples) has_answers |= !e.answers.empty() || e.is_impossible;
  const EvalOutcome out = evaluate_qa(*loaded.model, data, postprocess_options(args),
                                      static_cast<int>(args.per_device_eval_batch_size),
                                      static_cast<int>(args.max_seq_length), comm, split, has_answers, &phases);
  {
    PhaseScope scope(&phases, "writing");
    write_results(out_dir, split, out, args.version_2_with_negative, comm);
  }
  if (comm.is_root()) {
    log_info("predictions written to ", out_dir);
    log_info(phases.line());
  }
  return 0;
}

LoadedModel load_for_questions(const TrainArgs& args, Communicator& comm) {
  configure_threads(static_cast<int>(args.threads), comm);
  LoadedModel loaded = load_model(model_source(args), comm);
  reserve_activations(*loaded.model, args.per_device_eval_batch_size, args.max_seq_length, false,
                      "--per_device_eval_batch_size");
  return loaded;
}

std::vector<ExamplePrediction> answer_questions(const TrainArgs& args, Communicator& comm, LoadedModel& loaded,
                                                QaData& data) {
  const FeatureOptions fo = feature_options(args);
  build_features_of(data, *loaded.tokenizer, fo, /*train=*/false);
  EvalOutcome out = evaluate_qa(*loaded.model, data, postprocess_options(args),
                                static_cast<int>(args.per_device_eval_batch_size), fo.max_seq_length, comm, "predict",
                                /*with_metrics=*/false);
  if (!comm.is_root()) return {};
  return std::move(out.predictions);
}

}  // namespace cpuft
