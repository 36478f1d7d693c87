#include "cpuft/train/trainer.h"

#include <cmath>
#include <csignal>
#include <filesystem>
#include <memory>

#include "cpuft/data/batch.h"
#include "cpuft/data/qa_data.h"
#include "cpuft/data/sampler.h"
#include "cpuft/data/task_data.h"
#include "cpuft/data/token_features.h"
#include "cpuft/eval/results_files.h"
#include "cpuft/flags/train_options.h"
#include "cpuft/infer/inference.h"
#include "cpuft/infer/task_evaluator.h"
#include "cpuft/io/model_dir.h"
#include "cpuft/model/optimizer.h"
#include "cpuft/parallel/grad_buckets.h"
#include "cpuft/report/tensorboard.h"
#include "cpuft/report/training_plot.h"
#include "cpuft/run/setup.h"
#include "cpuft/train/best_model.h"
#include "cpuft/train/checkpoint.h"
#include "cpuft/train/lr_schedule.h"
#include "cpuft/train/padding_advice.h"
#include "cpuft/train/resume_check.h"
#include "cpuft/train/step_plan.h"
#include "cpuft/train/train_step.h"
#include "cpuft/train/trainer_state.h"
#include "cpuft/util/atomic_file.h"
#include "cpuft/util/clock.h"
#include "cpuft/util/log.h"
#include "cpuft/util/phase_times.h"
#include "cpuft/util/progress.h"
#include "cpuft/util/py_json.h"
#include "cpuft/util/signals.h"

namespace cpuft {
namespace {

// The checkpoint to resume from (checkpoint_dirs.cc), saying so when it was found rather than asked for.
std::string resume_point(const TrainArgs& args) {
  std::string dir = resolve_resume_checkpoint(args);
  if (!dir.empty() && args.resume_from_checkpoint.empty())
    log_info("checkpoint detected, resuming training at ", dir, " (pass --overwrite_output_dir to train from scratch)");
  return dir;
}

// What save_final_model draws from log_history (report/training_plot.h).
const char* const kTrainingPlotFile = "training_curves.svg";

// Seed of the dropout masks of one micro-batch: a pure function of the run seed and the position in
// training, so a resumed run draws the same masks as an uninterrupted one.
uint64_t dropout_seed(int64_t seed, int64_t global_step, int64_t micro) {
  uint64_t x = static_cast<uint64_t>(seed) * 0x9E3779B97F4A7C15ull;
  x ^= static_cast<uint64_t>(global_step) + 0x632BE59BD9B4E019ull + (x << 6) + (x >> 2);
  x ^= static_cast<uint64_t>(micro) + 0x85EBCA77C2B2AE63ull + (x << 6) + (x >> 2);
  return x;
}

// All the state of one training run.
class Trainer {
 public:
  Trainer(const TrainArgs& args, Communicator& comm, RankPlacement placement)
      : args_(args), comm_(comm), placement_(std::move(placement)) {}
  // Returns the exit code: 0, or 128 + signal when a stop signal ended training early.
  int run();

 private:
  void setup();
  bool train_loop();  // false when stopped by a signal (a checkpoint was written)
  double accumulate(int64_t epoch, int64_t first_batch, int64_t batches);
  void log_step(double loss, double grad_norm, double lr);
  void save_checkpoint_now();
  // trainer_state.json's step, epoch and FLOP count from progress_ (the rest it keeps itself).
  void sync_trainer_state();
  CheckpointState checkpoint_state() const;
  // made_from (train/resume_check.h) of this run: --model_name_or_path's config, the tokenizer, the data.
  std::map<std::string, std::string> made_from_now() const;
  void restore(const std::string& dir);
  // An arena with the parameter layout (an Adam moment), tensor by tensor.
  NamedArrays named(float* arena) const;
  void finish_training();
  void save_final_model();
  // The Trainer's schedule: whether an evaluation / a checkpoint is due after the step just done.
  bool evaluation_due(bool epoch_done) const;
  bool save_due(bool epoch_done) const;
  // Evaluation during training (--eval_strategy): every rank evaluates; rank 0's metrics are logged
  // into log_history and TensorBoard and decide the best model.
  void evaluate_during_training();
  // True when the checkpoint just restored was taken at a step whose evaluation it does not hold (a
  // stop signal saved before evaluating): the resumed run does it first, as the uninterrupted run did.
  bool evaluation_pending_on_resume(bool epoch_done_at_checkpoint) const;
  // A log_history entry's scalars into the event file (rank 0, --report_to tensorboard). A failed write
  // stops TensorBoard logging with a warning, not the training.
  void to_tensorboard(const nlohmann::json& entry);
  void open_tensorboard();
  // --load_best_model_at_end: the weights of best_model_checkpoint, read by rank 0 and broadcast.
  void load_best_model();
  // The stop signal any rank has received (SIGINT or SIGTERM), the same on every rank; 0 for none.
  // Remembered in stop_signal_ for the message and the exit status of every rank, including those
  // that did not receive it themselves.
  int agreed_stop_signal();
  void evaluate();
  double epoch_float() const;
  std::vector<std::string> eval_metric_keys() const;
  // The evaluation's metrics (eval_*), QA or classification, on every rank.
  nlohmann::json evaluation_metrics(PhaseTimes* phases);
  // A text- or token-classification run (docs/tasks.md) rather than question answering.
  bool classification() const { return args_.task != TaskHead::kQuestionAnswering; }
  const std::vector<Feature>& train_features() const { return classification() ? task_train_.features : train_.features; }
  // The loss items of features[indices]: labelled tokens for token classification, else one per feature.
  double loss_items(const std::vector<int64_t>& indices) const;

  const TrainArgs& args_;
  Communicator& comm_;
  RankPlacement placement_;
  DirLock output_lock_;  // rank 0: this run is the one writer of --output_dir
  LoadedModel loaded_;
  QaModel* model_ = nullptr;
  QaData train_, eval_;
  TaskLabels task_labels_;            // classification runs: the label list and the head it makes
  TaskData task_train_, task_eval_;
  StepPlan plan_;
  std::unique_ptr<Sampler> sampler_;
  std::unique_ptr<LrSchedule> schedule_;
  std::unique_ptr<AdamW> optimizer_;
  std::unique_ptr<GradBuckets> buckets_;
  BatchBuffers batch_;
  TrainerState state_;
  std::string resume_dir_;
  int seq_len_ = 0;

  int stop_signal_ = 0;
  bool pending_eval_ = false;        // set by restore(): evaluate before the first step
  bool pending_epoch_done_ = false;  // ... and the checkpoint was taken at an epoch's end
  BestMetric best_;
  std::unique_ptr<EventFileWriter> tensorboard_;  // rank 0 with --report_to tensorboard
  TrainProgress progress_;        // where training stands; a checkpoint records it whole
  PhaseTimes phases_;             // where the run's time goes, printed at the end
  std::map<std::string, std::string> made_from_;  // what checkpoints record this run was made from
  StepCommStats comm_since_log_;  // this rank's gradient allreduce since the last log line
  nlohmann::json train_metrics_ = nlohmann::json::object();
};

int Trainer::agreed_stop_signal() {
  double sig = stop_signal();
  if (comm_.size() > 1) comm_.allreduce_max(&sig, 1);
  stop_signal_ = static_cast<int>(sig);
  return stop_signal_;
}

double Trainer::epoch_float() const {
  return epoch_progress(progress_.epoch, progress_.batches_in_epoch, plan_.batches_per_epoch);
}

NamedArrays Trainer::named(float* arena) const {
  NamedArrays out;
  for (const ParamEntry& e : model_->table().entries()) out.push_back({e.name, e.shape, arena + e.offset});
  return out;
}

void Trainer::setup() {
  if (args_.output_dir.empty()) fail("--output_dir: missing, expected the directory to write the model to");
  const char* kind = classification() ? (args_.task == TaskHead::kTokenClassification ? "a JSON lines file" : "a CSV or JSON lines file")
                                      : "a SQuAD JSON file";
  if (args_.do_train && args_.train_file.empty()) fail("--do_train: needs --train_file (", kind, ")");
  if (args_.do_eval && args_.validation_file.empty()) fail("--do_eval: needs --validation_file (", kind, ")");
  // The model trained from is only read: the same directory, however it is named (a link, ".."), is
  // refused as the output.
  std::error_code ec;
  if (args_.do_train && !args_.model_name_or_path.empty() &&
      std::filesystem::equivalent(args_.output_dir, resolve_model_dir(args_.model_name_or_path), ec))
    fail("--output_dir: ", args_.output_dir, " is the directory of --model_name_or_path ", args_.model_name_or_path,
         "; training would overwrite the model it starts from: choose another directory");
  // One writer per output directory, taken before anything in it is read or written (rank 0 writes).
  if (comm_.is_root()) output_lock_ = lock_output_dir(args_.output_dir);
  if (args_.do_train) resume_dir_ = resume_point(args_);
  if (!resume_dir_.empty()) {
    // Before anything is loaded: an incomplete checkpoint, one whose position in the epoch would not
    // carry over, and one of another model are refused.
    const CheckpointState state = load_checkpoint_state(resume_dir_);
    const ResumeCheck check = check_resume(state, args_, comm_.size());
    if (!check.refusal.empty()) fail(resume_dir_, ": ", check.refusal);
    const std::string model = resolve_model_dir(args_.model_name_or_path) + "/config.json";
    const std::string other = check_made_from(state.made_from, made_from_model(load_model_config(model)), model);
    if (!other.empty()) fail(resume_dir_, "/cpuft_state.json: ", other, "; resume with the model it was trained from");
    if (!check.changes.empty()) log_warn(resume_dir_, ": resuming with changed flags: ", check.changes);
  }
  comm_.barrier();
  if (comm_.is_root()) {
    if (args_.do_train) remove_checkpoint_leftovers(args_.output_dir);
    check_results_file(args_.output_dir);
  }

  const double load_start = now_s();
  ModelSource source = model_source(args_);
  const TaskOptions to = task_options(args_);
  if (classification()) {
    // The label list: the training file's, or to evaluate only, the model's own.
    const std::string config = resolve_model_dir(args_.model_name_or_path) + "/config.json";
    task_labels_ = args_.do_train ? labels_of_training_file(args_.train_file, to)
                                  : labels_of_model(load_model_config(config).head, args_.task, config);
    if (args_.do_train) source.head = task_labels_.head();
  }
  loaded_ = load_model(source, comm_, resume_dir_);
  model_ = loaded_.model.get();
  seq_len_ = static_cast<int>(args_.max_seq_length);

  // Memory first: a batch that cannot fit is refused before the data is read and tokenised.
  size_t bytes = 0;
  if (args_.do_train)
    bytes = reserve_activations(*model_, args_.per_device_train_batch_size, seq_len_, true,
                                "--per_device_train_batch_size");
  if (args_.do_eval)
    bytes = reserve_activations(*model_, args_.per_device_eval_batch_size, seq_len_, false,
                                "--per_device_eval_batch_size");
  log_info("activation memory: ", bytes >> 20, " MiB");
  phases_.add("load", now_s() - load_start);

  // The evaluation set first: a --metric_for_best_model it does not report is refused before the
  // (larger) training set is tokenised.
  PhaseScope scope(&phases_, "features");
  if (classification()) {
    if (args_.do_eval)
      task_eval_ = load_task_data(args_.validation_file, Split::kValidation, task_labels_, *loaded_.tokenizer, to,
                                  args_.max_eval_samples);
    if (args_.do_train && args_.eval_strategy != EvalStrategy::kNo) {
      best_ = best_metric_of(args_);
      check_best_metric(best_, args_, eval_metric_keys());
    }
    if (args_.do_train)
      task_train_ = load_task_data(args_.train_file, Split::kTrain, task_labels_, *loaded_.tokenizer, to,
                                   args_.max_train_samples);
    return;
  }
  const FeatureOptions fo = feature_options(args_);
  if (args_.do_eval) eval_ = load_eval_data(args_.validation_file, *loaded_.tokenizer, fo, args_.max_eval_samples);
  if (args_.do_eval) warn_if_v2_without_flag(eval_, args_.version_2_with_negative);
  if (args_.do_train && args_.eval_strategy != EvalStrategy::kNo) {
    best_ = best_metric_of(args_);
    check_best_metric(best_, args_, eval_metric_keys());
  }
  if (args_.do_train) train_ = load_train_data(args_.train_file, *loaded_.tokenizer, fo, args_.max_train_samples);
  if (args_.do_train) warn_if_v2_without_flag(train_, args_.version_2_with_negative);
}

double Trainer::loss_items(const std::vector<int64_t>& indices) const {
  if (args_.task != TaskHead::kTokenClassification) return static_cast<double>(indices.size());
  double n = 0;
  for (int64_t i : indices)
    for (int32_t y : task_train_.features[static_cast<size_t>(i)].token_labels) n += y != kIgnoreLabel;
  return n;
}

nlohmann::json Trainer::evaluation_metrics(PhaseTimes* phases) {
  const int batch = static_cast<int>(args_.per_device_eval_batch_size);
  if (classification())
    return evaluate_task(*model_, task_eval_, task_labels_, args_.return_entity_level_metrics, batch, seq_len_, comm_,
                         "eval", true, phases)
        .metrics;
  return evaluate_qa(*model_, eval_, postprocess_options(args_), batch, seq_len_, comm_, "eval", true, phases).metrics;
}

std::vector<std::string> Trainer::eval_metric_keys() const {
  if (classification()) return task_metric_keys(task_eval_, task_labels_, args_.return_entity_level_metrics, "eval");
  // What evaluate_qa reports for this evaluation set, as logged (eval_log_entry): the metrics of
  // empty answers (their keys depend on the SQuAD version and on which kinds of question it holds).
  std::vector<ExamplePrediction> empty(eval_.examples.size());
  for (size_t i = 0; i < empty.size(); ++i) empty[i].id = eval_.examples[i].id;
  nlohmann::json keys = squad_metrics_json(eval_, empty, "eval");
  keys.update(speed_metrics("eval", SpeedInputs{1, 1, 1}));
  std::vector<std::string> out;
  for (auto it = keys.begin(); it != keys.end(); ++it) out.push_back(it.key());
  return out;
}

void Trainer::restore(const std::string& dir) {
  LoadedCheckpoint ck =
      load_checkpoint(dir, named(optimizer_->exp_avg().data()), named(optimizer_->exp_avg_sq().data()));
  // What it was made from and where it stands must be this run's.
  const std::string made = check_made_from(ck.state.made_from, made_from_,
                                           "this run's --model_name_or_path, tokenizer and --train_file");
  const std::string counters = check_progress(ck.state, plan_, args_.gradient_accumulation_steps);
  if (!made.empty() || !counters.empty())
    fail(dir, "/cpuft_state.json: ", made.empty() ? counters : made, "; the checkpoint does not belong to this run");
  optimizer_->set_steps(ck.state.adam_step);
  progress_ = ck.state.progress;
  state_ = TrainerState::from_json(ck.trainer_state_json, dir + "/trainer_state.json");
  const std::string gone = rebase_best_checkpoint(state_, args_.output_dir);
  if (!gone.empty() && comm_.is_root()) log_warn(dir, ": ", gone);
  const bool epoch_done = progress_.batches_in_epoch >= plan_.batches_per_epoch;
  pending_eval_ = evaluation_pending_on_resume(epoch_done);
  pending_epoch_done_ = epoch_done;
  // A checkpoint taken at the end of an epoch continues with the next one.
  if (epoch_done) {
    ++progress_.epoch;
    progress_.batches_in_epoch = 0;
  }
  log_info("resumed from ", dir, " at step ", progress_.global_step, " (epoch ", progress_.epoch, ", batch ",
           progress_.batches_in_epoch, ")");
}

CheckpointState Trainer::checkpoint_state() const {
  CheckpointState s;
  s.progress = progress_;
  s.samples_seen = progress_.global_step * plan_.total_train_batch_size;
  s.adam_step = optimizer_->steps();
  s.scheduler_step = progress_.global_step;
  s.lr_scheduler_type = lr_scheduler_name(args_.lr_scheduler_type);
  s.base_lr = args_.learning_rate;
  s.warmup_steps = plan_.warmup_steps;
  s.max_steps = plan_.max_steps;
  s.seed = args_.seed;
  s.data_seed = args_.effective_data_seed();
  s.world_size = comm_.size();
  s.args_hash = training_args_hash(args_);
  s.flags = training_flags(args_);
  s.made_from = made_from_;
  return s;
}

std::map<std::string, std::string> Trainer::made_from_now() const {
  std::map<std::string, std::string> m =
      made_from(load_model_config(loaded_.model_dir + "/config.json"), *loaded_.tokenizer, train_features());
  m["task"] = task_name(args_.task);  // a checkpoint resumes only the job it was made by
  return m;
}

void Trainer::sync_trainer_state() {
  state_.global_step = progress_.global_step;
  state_.epoch = epoch_float();
  state_.total_flos = progress_.total_flos;
}

void Trainer::save_checkpoint_now() {
  PhaseScope scope(&phases_, "saving");
  sync_trainer_state();
  // The TrainerControl a checkpoint records, as the Trainer's at a save (the last step's ends training).
  state_.should_save = true;
  state_.should_training_stop = progress_.global_step >= plan_.max_steps;
  if (!comm_.is_root()) return;
  point_to_best_checkpoint(state_, args_.output_dir, progress_.global_step);
  const Tokenizer& tok = *loaded_.tokenizer;
  const QaModel& model = *model_;
  std::string dir = save_checkpoint(
      args_.output_dir, progress_.global_step, checkpoint_state(),
      [&](const std::string& d) {
        model.save_pretrained(d);
        copy_tokenizer_files(tok, d);
      },
      named(optimizer_->exp_avg().data()), named(optimizer_->exp_avg_sq().data()), state_.to_json());
  if (args_.save_total_limit)
    rotate_checkpoints(args_.output_dir, *args_.save_total_limit, {dir, state_.best_model_checkpoint.value_or("")});
  log_info("saved ", dir);
}

// Runs `batches` micro-batches starting at `first_batch` of `epoch`, accumulating their gradients
// (each loss divided by the accumulation count), and sums the gradients over ranks. Returns the mean
// loss of the global batches.
double Trainer::accumulate(int64_t epoch, int64_t first_batch, int64_t batches) {
  const int64_t n = static_cast<int64_t>(train_features().size());
  const int64_t global_batch = args_.per_device_train_batch_size * comm_.size();
  double loss = 0;
  for (int64_t k = 0; k < batches; ++k) {
    const int64_t micro = first_batch + k;
    const bool last = k + 1 == batches;
    const std::vector<int64_t> rows = sampler_->batch(epoch, micro);
    const int64_t global_rows = std::min(global_batch, n - micro * global_batch);
    // Every rank pads its share to the longest window of the GLOBAL batch (all --max_seq_length unless
    // --pad_to_max_length false), so N ranks compute what one process with the whole batch would.
    const std::vector<int64_t> global = sampler_->global_batch(epoch, micro);
    const int seq = longest_feature(train_features(), global, 0, global.size());
    // This rank's share of the global mean (over the loss items: features, or labelled tokens for
    // token classification; docs/parity.md, Loss weighting), divided by the accumulation count.
    const double global_items = loss_items(global), share = global_items > 0 ? loss_items(rows) / global_items : 0.0;
    const float scale = static_cast<float>(share / static_cast<double>(args_.gradient_accumulation_steps));
    double local = 0;
    if (!rows.empty()) {
      batch_.gather(train_features(), rows, 0, rows.size(), seq, loaded_.tokenizer->pad_id());
      // This rank's slice of the global batch starts at row_offset (data/sampler.h).
      const int64_t row_offset = global_rows * comm_.rank() / comm_.size();
      const double mean = micro_batch(*model_, buckets_.get(), last, batch_, row_offset,
                                      dropout_seed(args_.seed, progress_.global_step, micro), scale);
      local = share > 0 ? mean * share : 0.0;  // no labelled token here: the mean is 0/0, the weight 0
    } else if (buckets_ && last) {
      empty_micro_batch(*model_, *buckets_);  // nothing computed here: contribute zeros
    }
    loss += local / static_cast<double>(batches);
    progress_.total_flos += 6.0 * static_cast<double>(global_rows) * seq *
                            static_cast<double>(model_->num_params() - model_->table().embeddings().end);
  }
  if (buckets_) {
    buckets_->wait_all();
    comm_since_log_ += buckets_->last_step();
  }
  if (comm_.size() > 1) comm_.allreduce_sum(&loss, 1);
  return loss;
}

void Trainer::log_step(double loss, double grad_norm, double lr) {
  progress_.loss_sum += loss;
  progress_.loss_since_log += loss;
  const bool first = args_.logging_first_step && progress_.global_step == 1;
  if (!first && progress_.global_step % plan_.logging_steps != 0) return;
  const int64_t steps_since_log = progress_.global_step - progress_.last_logged_step;
  const double mean = progress_.loss_since_log / static_cast<double>(steps_since_log);
  nlohmann::json entry = train_log_entry(mean, grad_norm, lr, epoch_float(), progress_.global_step);
  state_.log_history.push_back(entry);
  if (tensorboard_) to_tensorboard(entry);
  if (comm_.is_root()) {
    // The printed line also says what the gradient allreduce cost per step on rank 0 (not kept in
    // trainer_state.json: timings differ between runs that are otherwise identical).
    if (buckets_) {
      const double steps = static_cast<double>(steps_since_log);
      entry["allreduce_s"] = py_round(comm_since_log_.allreduce_s / steps, 4);
      entry["allreduce_exposed_s"] = py_round(comm_since_log_.exposed_s / steps, 4);
    }
    log_info(entry.dump());
  }
  comm_since_log_ = StepCommStats{};
  progress_.loss_since_log = 0;
  progress_.last_logged_step = progress_.global_step;
}

bool Trainer::evaluation_due(bool epoch_done) const {
  const bool last = progress_.global_step >= plan_.max_steps;  // the Trainer evaluates at the end too
  switch (args_.eval_strategy) {
    case EvalStrategy::kSteps: return progress_.global_step % plan_.eval_steps == 0 || last;
    case EvalStrategy::kEpoch: return epoch_done || last;
    case EvalStrategy::kNo: return false;
  }
  return false;
}

bool Trainer::save_due(bool epoch_done) const {
  const bool last = progress_.global_step >= plan_.max_steps;
  switch (args_.save_strategy) {
    case SaveStrategy::kSteps: return progress_.global_step % plan_.save_steps == 0 || last;
    case SaveStrategy::kEpoch: return epoch_done || last;
    case SaveStrategy::kNo: return false;
  }
  return false;
}

bool Trainer::evaluation_pending_on_resume(bool epoch_done_at_checkpoint) const {
  if (progress_.global_step == 0 || !evaluation_due(epoch_done_at_checkpoint)) return false;
  for (const nlohmann::json& e : state_.log_history)
    if (e.value("step", int64_t{-1}) == progress_.global_step && e.contains("eval_runtime")) return false;
  return true;
}

void Trainer::evaluate_during_training() {
  PhaseScope scope(&phases_, "evaluations");
  nlohmann::json entry = eval_log_entry(evaluation_metrics(nullptr), epoch_float(), progress_.global_step);
  // Rank 0's entry on every rank (timings differ between ranks), so that all make the same choices.
  if (comm_.size() > 1) {
    std::string text = entry.dump();
    comm_.broadcast_bytes(&text, 0);
    entry = nlohmann::json::parse(text);
  }
  state_.log_history.push_back(entry);
  record_evaluation(state_, best_, entry, progress_.global_step, args_.save_strategy != SaveStrategy::kNo);
  if (comm_.is_root()) log_info(entry.dump());
  if (tensorboard_) to_tensorboard(entry);
}

void Trainer::open_tensorboard() {
  if (!comm_.is_root() || !args_.reports_to_tensorboard()) return;
  const std::string dir = args_.logging_dir.empty() ? default_logging_dir(args_.output_dir) : args_.logging_dir;
  tensorboard_ = std::make_unique<EventFileWriter>(dir, wall_time_now());
  log_info("TensorBoard event file: ", tensorboard_->path(), " (tensorboard --logdir ", dir, ")");
}

void Trainer::to_tensorboard(const nlohmann::json& entry) {
  try {
    tensorboard_->scalars(tensorboard_scalars(entry), entry.value("step", int64_t{0}), wall_time_now());
  } catch (const Error& e) {
    log_warn(e.what(), "; TensorBoard logging stops here, training goes on");
    tensorboard_.reset();
  }
}

void Trainer::load_best_model() {
  std::string best = comm_.is_root() ? state_.best_model_checkpoint.value_or("") : "";
  if (comm_.size() > 1) comm_.broadcast_bytes(&best, 0);
  if (best.empty()) return;
  if (comm_.is_root()) {
    log_info("loading best model from ", best, " (score: ", state_.best_metric.value_or(0.0), ")");
    QaModel loaded = QaModel::from_pretrained(best, model_->bf16(), static_cast<uint64_t>(args_.seed), log_notices());
    if (loaded.num_params() != model_->num_params())
      fail(best, ": the best checkpoint's model has ", loaded.num_params(), " parameters, expected ",
           model_->num_params());
    std::copy(loaded.params(), loaded.params() + loaded.num_params(), model_->params());
  }
  if (comm_.size() > 1) comm_.broadcast(model_->params(), model_->num_params(), 0);
  model_->refresh_bf16_weights();
}

bool Trainer::train_loop() {
  const int64_t ga = args_.gradient_accumulation_steps;
  const double t0 = now_s();
  const double outside_before = phases_.seconds("saving") + phases_.seconds("evaluations");
  const int64_t start_step = progress_.global_step;
  ProgressOptions po;
  po.live = comm_.is_root() && Progress::stderr_is_terminal();
  po.plain_every_s = 30;
  Progress bar(plan_.max_steps, start_step, po);
  install_stop_handlers();
  bool stopped = false;
  // The evaluation a stopped run skipped at its checkpoint's step, and the save that came after it.
  if (pending_eval_) {
    evaluate_during_training();
    if (save_due(pending_epoch_done_)) save_checkpoint_now();
  }

  while (progress_.global_step < plan_.max_steps && !stopped) {
    if (progress_.batches_in_epoch >= plan_.batches_per_epoch) {
      ++progress_.epoch;
      progress_.batches_in_epoch = 0;
    }
    const int64_t batches = std::min(ga, plan_.batches_per_epoch - progress_.batches_in_epoch);
    const double loss = accumulate(progress_.epoch, progress_.batches_in_epoch, batches);
    const double lr = schedule_->lr(progress_.global_step);
    // A non-finite loss or gradient norm updates nothing: the step fails here.
    const double grad_norm = std::isfinite(loss) ? optimizer_step(*model_, *optimizer_, args_.max_grad_norm, lr) : NAN;
    if (!std::isfinite(loss) || !std::isfinite(grad_norm))
      fail("step ", progress_.global_step + 1, ": the ", std::isfinite(loss) ? "gradient norm" : "loss", " is ",
           std::isfinite(loss) ? grad_norm : loss, "; stopping (",
           progress_.global_step == start_step ? "before any update: the weights loaded give non-finite values"
                                      : "try a lower --learning_rate, or --max_grad_norm 1.0",
           "); nothing was written for this step");
    ++progress_.global_step;
    progress_.batches_in_epoch += batches;
    // The learning rate this step used, as transformers 5 logs it (4.x logged the next step's).
    log_step(loss, grad_norm, lr);
    if (comm_.is_root())
      bar.update(progress_.global_step, epoch_float(), loss, lr, progress_.global_step * plan_.total_train_batch_size);

    // A stop request on any rank stops every rank after the same step.
    const int stop = agreed_stop_signal();
    // A stop during the last step is no stop: the run is complete and run() writes the final model.
    stopped = stop > 0 && progress_.global_step < plan_.max_steps;
    const bool epoch_done = progress_.batches_in_epoch >= plan_.batches_per_epoch;
    // The Trainer's order after a step: log, evaluate, save (the last step's checkpoint too). A stop
    // saves at once and leaves a due evaluation to the resumed run (evaluation_pending_on_resume).
    if (!stopped && evaluation_due(epoch_done)) evaluate_during_training();
    if (stopped || save_due(epoch_done)) save_checkpoint_now();
  }
  bar.finish();
  const double runtime = now_s() - t0;
  // Training alone: the loop's time less its checkpoints and evaluations (phases of their own).
  phases_.add("training", runtime - (phases_.seconds("saving") + phases_.seconds("evaluations") - outside_before));
  if (stopped) {
    if (comm_.is_root())
      log_warn("stopped by ", signal_name(stop_signal_), " after step ", progress_.global_step,
               "; resume with: --resume_from_checkpoint ",
               args_.output_dir, "/checkpoint-", progress_.global_step, " (or --resume_from_checkpoint last)");
    return false;
  }
  SpeedInputs speed;
  speed.runtime_s = runtime;
  speed.num_samples = plan_.num_train_samples;
  speed.num_steps = static_cast<double>(plan_.max_steps - start_step);
  const double train_loss = progress_.loss_sum / static_cast<double>(std::max<int64_t>(1, progress_.global_step));
  train_metrics_ = train_metrics(speed, progress_.total_flos, train_loss, epoch_float());
  train_metrics_["train_samples"] = static_cast<int64_t>(train_features().size());
  nlohmann::json last = train_metrics_;
  last["step"] = progress_.global_step;
  last.erase("train_samples");
  state_.log_history.push_back(last);
  if (tensorboard_) to_tensorboard(last);
  return true;
}

void Trainer::finish_training() {
  // The Trainer's _finalize_training: the best model's weights, then with --save_total_limit 1 only
  // the best checkpoint is kept.
  if (args_.load_best_model_at_end) load_best_model();
  if (comm_.is_root() && args_.save_total_limit && *args_.save_total_limit == 1 && state_.best_model_checkpoint)
    rotate_checkpoints(args_.output_dir, 1, {*state_.best_model_checkpoint});
}

void Trainer::save_final_model() {
  sync_trainer_state();
  state_.max_steps = plan_.max_steps;
  if (!comm_.is_root()) return;
  PhaseScope scope(&phases_, "saving");
  model_->save_pretrained(args_.output_dir);
  copy_tokenizer_files(*loaded_.tokenizer, args_.output_dir);
  save_metrics(args_.output_dir, "train", train_metrics_);
  write_file_atomic(args_.output_dir + "/trainer_state.json", state_.to_json());
  write_file_atomic(args_.output_dir + "/" + kTrainingPlotFile,
                    training_plot_svg(state_.log_history, best_.key.empty() ? "eval_f1" : best_.key));
  log_info("model written to ", args_.output_dir, " (", kTrainingPlotFile, ": loss and evaluation by step)");
}

void Trainer::evaluate() {
  if (classification()) {
    log_info("***** Running evaluation *****  examples: ", task_eval_.features.size(), ", batch size: ",
             args_.per_device_eval_batch_size);
    TaskOutcome out = evaluate_task(*model_, task_eval_, task_labels_, args_.return_entity_level_metrics,
                                    static_cast<int>(args_.per_device_eval_batch_size), seq_len_, comm_, "eval", true,
                                    &phases_);
    if (args_.do_train) out.metrics["epoch"] = epoch_float();
    if (tensorboard_) to_tensorboard(eval_log_entry(out.metrics, epoch_float(), progress_.global_step));
    PhaseScope scope(&phases_, "writing");
    write_task_results(args_.output_dir, "eval", out, comm_);
    return;
  }
  log_info("***** Running evaluation *****  examples: ", eval_.examples.size(), ", features: ", eval_.features.size(),
           ", batch size: ", args_.per_device_eval_batch_size);
  EvalOutcome out = evaluate_qa(*model_, eval_, postprocess_options(args_),
                                static_cast<int>(args_.per_device_eval_batch_size), seq_len_, comm_, "eval", true,
                                &phases_);
  if (args_.do_train) out.metrics["epoch"] = epoch_float();
  // run_qa's trainer.evaluate() logs these too: TensorBoard shows the final evaluation at the last step.
  if (tensorboard_) to_tensorboard(eval_log_entry(out.metrics, epoch_float(), progress_.global_step));
  PhaseScope scope(&phases_, "writing");
  write_results(args_.output_dir, "eval", out, args_.version_2_with_negative, comm_);
}

int Trainer::run() {
  setup();
  if (args_.do_train) {
    plan_ = plan_steps(args_, static_cast<int64_t>(train_features().size()), comm_.size());
    SamplerOptions so;
    so.num_features = static_cast<int64_t>(train_features().size());
    so.per_device_batch = args_.per_device_train_batch_size;
    so.seed = static_cast<uint64_t>(args_.effective_data_seed());
    so.world_size = comm_.size();
    so.rank = comm_.rank();
    if (args_.group_by_length) {
      for (const Feature& f : train_features()) so.lengths.push_back(static_cast<int32_t>(f.input_ids.size()));
      so.group_batch = plan_.total_train_batch_size;
    }
    sampler_ = std::make_unique<Sampler>(so);
    if (comm_.is_root()) {
      const std::string advice = padding_advice(train_features(), so, args_.per_device_train_batch_size * comm_.size(),
                                                plan_.total_train_batch_size, args_.pad_to_max_length,
                                                args_.group_by_length, classification() ? "sequence" : "window");
      if (!advice.empty()) log_notice(advice);
    }
    schedule_ = std::make_unique<LrSchedule>(args_.lr_scheduler_type, args_.learning_rate, plan_.warmup_steps,
                                             plan_.max_steps);
    AdamWConfig ac;
    ac.beta1 = args_.adam_beta1;
    ac.beta2 = args_.adam_beta2;
    ac.eps = args_.adam_epsilon;
    ac.weight_decay = args_.weight_decay;
    optimizer_ = std::make_unique<AdamW>(*model_, ac);
    if (comm_.size() > 1)
      buckets_ = make_grad_buckets(comm_, *model_, args_.bucket_size_mb, args_.allreduce_dtype, placement_.spare_cpus);
    state_.max_steps = plan_.max_steps;
    state_.num_train_epochs = plan_.num_epochs;
    state_.logging_steps = plan_.logging_steps;
    state_.save_steps = plan_.save_steps;
    state_.eval_steps = plan_.eval_steps;
    state_.train_batch_size = args_.per_device_train_batch_size;
    made_from_ = made_from_now();
    state_.should_save = false;  // the TrainerControl of a run that has saved nothing yet
    if (!resume_dir_.empty()) restore(resume_dir_);
    open_tensorboard();
    log_info("***** Running training *****");
    if (classification())
      log_info("  Num examples = ", train_features().size());
    else
      log_info("  Num examples = ", train_features().size(), " (from ", train_.examples.size(), " questions)");
    log_info("  Num Epochs = ", plan_.num_epochs);
    log_info("  Instantaneous batch size per device = ", args_.per_device_train_batch_size);
    log_info("  Total train batch size (w. parallel, distributed & accumulation) = ", plan_.total_train_batch_size);
    log_info("  Gradient Accumulation steps = ", args_.gradient_accumulation_steps);
    log_info("  Total optimization steps = ", plan_.max_steps);
    log_info("  Number of trainable parameters = ", model_->num_params());
    if (!train_loop()) return 128 + stop_signal_;
    finish_training();
    save_final_model();
    if (agreed_stop_signal() > 0) {  // every rank skips evaluation, or none
      if (comm_.is_root())
        log_warn("stopped by ", signal_name(stop_signal_), " after the last step; the model is written to ",
                 args_.output_dir, args_.do_eval ? "; evaluation skipped" : "");
      return 128 + stop_signal_;
    }
    // The trained model is on disk: from here a stop signal ends the process at once (the default
    // action) instead of after the whole evaluation, which does not poll the stop flag.
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
  }
  if (args_.do_eval) evaluate();
  if (comm_.is_root()) log_info(phases_.line());
  return 0;
}

}  // namespace

int run_train(const TrainArgs& args, Communicator& comm) {
  Trainer trainer(args, comm, configure_threads(static_cast<int>(args.threads), comm));
  return trainer.run();
}

}  // namespace cpuft
