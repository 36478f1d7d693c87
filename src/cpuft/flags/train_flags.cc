#include "cpuft/flags/train_flags.h"

#include <cmath>

#include "cpuft/util/error.h"
#include "cpuft/util/json_read.h"

namespace cpuft {

namespace {

// Largest step count, sample cap and seed-like counts accepted: far beyond any real run, far below
// where products of them overflow a 64-bit integer.
constexpr int64_t kMaxCount = 1000000000;

bool whole(double d) { return d == std::floor(d); }
// Steps given as a count (an integer >= 1) or as a ratio of the total in (0, 1), as transformers allows.
bool steps_or_ratio(double d) { return (d > 0 && d < 1) || (d >= 1 && d <= kMaxCount && whole(d)); }
bool warmup_rule(double d) { return d == 0 || steps_or_ratio(d); }
const std::string kStepsRange = str_cat("[1, ", kMaxCount, "] or a ratio in (0, 1)");
const std::string kStepsExpected = str_cat("an integer in [1, ", kMaxCount, "], or a ratio in (0, 1)");

// --report_to's words: transformers' integrations (INTEGRATION_TO_CALLBACK), "all" and "none".
const char* const kReportIntegrations[] = {"none",  "all",        "tensorboard", "azure_ml", "clearml",
                                           "codecarbon", "comet_ml", "dagshub",   "dvclive",  "flyte",
                                           "kubeflow",   "mlflow",   "neptune",   "swanlab",  "trackio",
                                           "wandb"};

// A step count that transformers also accepts as a ratio of the total steps.
Flag& steps(FlagTable& t, const char* name, double* field, bool (*ok)(double), const std::string& range,
            const std::string& expected, const char* help) {
  return t.custom(
      name, "N|RATIO", help, range,
      [=](const std::string& v, const std::string& who) {
        const double d = read_decimal(v, who, expected);
        if (!ok(d)) fail(who, ": found '", text_preview(v), "', expected ", expected);
        *field = d;
      },
      [=] { return show_number(*field); });
}

std::string join_words(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

// --report_to's words (space- or comma-separated), each one of the Trainer's integrations.
std::vector<std::string> read_report_to(const std::string& value, const std::string& who) {
  std::vector<std::string> words;
  std::string word;
  for (size_t i = 0; i <= value.size(); ++i) {
    if (i < value.size() && value[i] != ' ' && value[i] != ',') {
      word += value[i];
      continue;
    }
    if (word.empty()) continue;
    bool known = false;
    for (const char* k : kReportIntegrations) known |= word == k;
    if (!known)
      fail(who, ": found '", text_preview(word), "', expected none, all or one of: ", join_words(report_integrations()));
    words.push_back(word);
    word.clear();
  }
  if (words.empty()) fail(who, ": found '", text_preview(value), "', expected none, all or integration names");
  return words;
}

const char* kTrainAbout =
    "Fine-tunes a model for question answering as run_qa.py does: --do_train on --train_file, and with\n"
    "--do_eval, evaluation on --validation_file. Flags and defaults are run_qa.py's / TrainingArguments'.\n"
    "--eval_strategy also evaluates during training (the best model by --metric_for_best_model);\n"
    "--report_to tensorboard writes event files; every run leaves training_curves.svg (loss, metric).\n"
    "Several ranks: mpirun -np N cpuft train ... (or cpuft launch).\n";

const char* kEvaluateAbout =
    "Scores --validation_file (SQuAD JSON) with the model of --model_name_or_path as run_qa.py evaluates,\n"
    "without training: EM / F1 (SQuAD v1.1) or the v2.0 metrics, also printed.\n"
    "Results: eval_predictions.json, eval_nbest_predictions.json (and eval_null_odds.json with\n"
    "--version_2_with_negative), eval_results.json and all_results.json, written into --output_dir (required).\n";

const char* kPredictAbout =
    "Answers questions with the model of --model_name_or_path: --question about --context, JSON lines of\n"
    "--input, or a SQuAD --test_file (which writes predict_predictions.json and the other predict_* files into\n"
    "--output_dir, then required).\n"
    "Output: one JSON line per question: {\"answer\", \"probability\", \"start\", \"end\"}, plus \"id\" when the\n"
    "input line has one. probability is run_qa's n-best probability: the softmax of the answer's score over\n"
    "the --n_best_size candidates (not the transformers pipeline's score); start/end is the answer's span\n"
    "[start, end) in code points of the context. When no span can answer (e.g. an empty context), all four\n"
    "are null; with --version_2_with_negative, \"answer\": \"\" is the model's choice of no answer.\n";

const char* about(Command c) {
  switch (c) {
    case Command::kTrain: return kTrainAbout;
    case Command::kEvaluate: return kEvaluateAbout;
    case Command::kPredict: return kPredictAbout;
  }
  return "";
}

void model_and_data(FlagTable& t, TrainArgs& a) {
  t.group("Model");
  t.text("model_name_or_path", "PATH", &a.model_name_or_path,
         "Hugging Face model directory (config.json, model.safetensors, vocab.txt or tokenizer.json)")
      .with_env("CPUFT_MODEL");
  t.text("tokenizer_name", "PATH", &a.tokenizer_name, "directory with the tokenizer files, if not the model directory");
  t.group("Data");
  t.choice<TaskHead>("task", &a.task,
                     {{"question-answering", TaskHead::kQuestionAnswering},
                      {"text-classification", TaskHead::kSequenceClassification},
                      {"token-classification", TaskHead::kTokenClassification}},
                     "the job: run_qa (SQuAD JSON files), run_glue (CSV or JSON lines: sentence1[, sentence2], label) "
                     "or run_ner (JSON lines: tokens, ner_tags)");
  t.boolean("label_all_tokens", &a.label_all_tokens,
            "token classification: label every sub-token of a word (B- tags as I- after the first), not only the first");
  t.boolean("return_entity_level_metrics", &a.return_entity_level_metrics,
            "token classification: report precision / recall / F1 per entity type too");
  t.text("text_column_name", "NAME", &a.text_column_name, "token classification: the words column (default tokens)");
  t.text("label_column_name", "NAME", &a.label_column_name, "token classification: the tags column (default ner_tags)");
  t.text("train_file", "FILE", &a.train_file, "file to train on: SQuAD JSON, or for --task text-/token-classification CSV / JSON lines");
  t.text("validation_file", "FILE", &a.validation_file, "file to evaluate on: SQuAD JSON, or for --task text-/token-classification CSV / JSON lines");
  t.text("test_file", "FILE", &a.test_file, "file to predict on (SQuAD JSON, or CSV / JSON lines): predict_* files (predict_results_None.txt / predictions.txt) into --output_dir");
  t.integer("max_seq_length", &a.max_seq_length, 4, 8192, "tokens per window (question + context + special tokens)");
  t.integer("doc_stride", &a.doc_stride, 0, 8191, "tokens of overlap between consecutive windows of a long context");
  t.boolean("pad_to_max_length", &a.pad_to_max_length,
            "pad every training window to --max_seq_length (false: pad each batch to its longest); evaluation "
            "computes no padding either way");
  t.optional_integer("max_train_samples", &a.max_train_samples, 1, kMaxCount, "use only the first N training examples");
  t.optional_integer("max_eval_samples", &a.max_eval_samples, 1, kMaxCount, "use only the first N evaluation examples");
  t.optional_integer("max_predict_samples", &a.max_predict_samples, 1, kMaxCount,
                     "use only the first N prediction examples");
  t.boolean("version_2_with_negative", &a.version_2_with_negative, "SQuAD v2: some questions have no answer");
}

void training(FlagTable& t, TrainArgs& a) {
  t.group("Training");
  t.boolean("do_train", &a.do_train, "train (implied by `cpuft train`)");
  t.boolean("do_eval", &a.do_eval, "evaluate on --validation_file (implied by `cpuft evaluate`)");
  t.boolean("do_predict", &a.do_predict, "predict on --test_file (implied by `cpuft predict`)");
  t.integer("per_device_train_batch_size", &a.per_device_train_batch_size, 1, 4096,
            "training windows per batch per process");
  t.integer("gradient_accumulation_steps", &a.gradient_accumulation_steps, 1, 65536,
            "batches whose gradients are summed per optimizer step");
  t.boolean("group_by_length", &a.group_by_length,
            "batches of windows of similar length, less padding with --pad_to_max_length false (the Trainer's "
            "LengthGroupedSampler over cpuft's seeded permutation)");
  // transformers 5 spells it --train_sampling_strategy group_by_length.
  t.custom(
      "train_sampling_strategy", "random|group_by_length", "the training order: random, or --group_by_length",
      "random, group_by_length",
      [&a](const std::string& v, const std::string& who) {
        if (v != "random" && v != "group_by_length")
          fail(who, ": found '", text_preview(v), "', expected random or group_by_length");
        a.group_by_length = v == "group_by_length";
      },
      [&a] { return std::string(a.group_by_length ? "group_by_length" : "random"); });
  t.number("learning_rate", &a.learning_rate, above(0, 10), "peak AdamW learning rate");
  t.number("weight_decay", &a.weight_decay, closed(0, 10),
           "AdamW decoupled weight decay (not on biases and LayerNorm)");
  t.number("adam_beta1", &a.adam_beta1, below(0, 1), "AdamW beta1");
  t.number("adam_beta2", &a.adam_beta2, below(0, 1), "AdamW beta2");
  t.number("adam_epsilon", &a.adam_epsilon, closed(0, 1), "AdamW epsilon");
  t.number("max_grad_norm", &a.max_grad_norm, closed(0, 1e6),
           "clip the global gradient L2 norm to this (0: no clipping)");
  t.number("num_train_epochs", &a.num_train_epochs, above(0, 10000),
           "epochs to train (a fraction trains part of the last epoch)");
  const std::string max_steps_expected = str_cat("an integer in [1, ", kMaxCount, "], or -1 to use --num_train_epochs");
  t.custom(
      "max_steps", "N", "optimizer steps to train; overrides --num_train_epochs", str_cat("-1 or [1, ", kMaxCount, "]"),
      [&a, max_steps_expected](const std::string& v, const std::string& who) {
        const int64_t n = read_whole(v, who, max_steps_expected);
        if (n != -1 && (n < 1 || n > kMaxCount))
          fail(who, ": found '", text_preview(v), "', expected ", max_steps_expected);
        a.max_steps = n;
      },
      [&a] { return std::to_string(a.max_steps); });
  t.number("warmup_ratio", &a.warmup_ratio, closed(0, 1),
           "linear warmup over this fraction of the steps (when --warmup_steps is 0)");
  steps(t, "warmup_steps", &a.warmup_steps, warmup_rule, "0, " + kStepsRange, "0, " + kStepsExpected,
        "linear warmup steps (a value in (0, 1) is a ratio of the total)");
  t.choice<LrSchedulerType>("lr_scheduler_type", &a.lr_scheduler_type,
                            {{"linear", LrSchedulerType::kLinear},
                             {"constant", LrSchedulerType::kConstant},
                             {"constant_with_warmup", LrSchedulerType::kConstantWithWarmup},
                             {"cosine", LrSchedulerType::kCosine}},
                            "learning-rate schedule after warmup");
  t.integer("seed", &a.seed, 0, 4294967295,
            "seed of what is random: weights the model directory lacks (a new QA head), dropout, data order");
  t.custom(
      "data_seed", "N", "seed for the training data order", "[0, 4294967295]",
      [&a](const std::string& v, const std::string& who) { a.data_seed = read_integer(v, who, 0, 4294967295); },
      [&a] { return a.data_seed ? std::to_string(*a.data_seed) : std::string("--seed"); });
  t.boolean("bf16", &a.bf16, "bf16 matrix products with f32 master weights (AMX / AVX512_BF16 when present)");
  t.integer("threads", &a.threads, 0, 1024,
            "OpenMP threads per process, at most the machine's logical CPUs (0: the cores of this process's share)")
      .with_env("CPUFT_THREADS");
}

void evaluation_and_output(FlagTable& t, TrainArgs& a) {
  t.group("Evaluation");
  t.integer("per_device_eval_batch_size", &a.per_device_eval_batch_size, 1, 4096,
            "evaluation windows of --max_seq_length tokens per pass per process (windows are packed without "
            "padding: a pass takes as many as fit in that many tokens)");
  t.integer("n_best_size", &a.n_best_size, 1, 1000, "start and end candidates considered per window");
  t.integer("max_answer_length", &a.max_answer_length, 1, 8192, "longest answer span in tokens");
  t.number("null_score_diff_threshold", &a.null_score_diff_threshold, closed(-1e6, 1e6),
           "SQuAD v2: predict no answer when null score - best > this");
  t.choice<EvalStrategy>("eval_strategy", &a.eval_strategy,
                         {{"no", EvalStrategy::kNo}, {"steps", EvalStrategy::kSteps}, {"epoch", EvalStrategy::kEpoch}},
                         "evaluate on --validation_file during training: every --eval_steps, or at each epoch's end "
                         "(implies --do_eval)")
      .with_alias("evaluation_strategy");
  steps(t, "eval_steps", &a.eval_steps, warmup_rule, "0, " + kStepsRange, "0, " + kStepsExpected,
        "evaluate every N steps (--eval_strategy steps; 0: every --logging_steps)")
      .with_default_text("--logging_steps");
  t.boolean("load_best_model_at_end", &a.load_best_model_at_end,
            "end with the weights of the best checkpoint (--save_strategy as --eval_strategy; --save_steps a "
            "multiple of --eval_steps)");
  t.text("metric_for_best_model", "NAME", &a.metric_for_best_model,
         "evaluation metric that picks the best checkpoint, with or without eval_ (f1, exact_match, ...)")
      .with_default_text("none; loss with --load_best_model_at_end");
  Flag& greater = t.custom(
      "greater_is_better", "", "a higher --metric_for_best_model is better", "",
      [&a](const std::string& v, const std::string&) { a.greater_is_better = v == "true"; },
      [&a] { return a.greater_is_better ? std::string(*a.greater_is_better ? "true" : "false") : std::string(); });
  greater.arity = FlagArity::kBool;
  greater.with_default_text("false for a metric ending in loss, else true");
  t.group("Output");
  t.text("output_dir", "DIR", &a.output_dir,
         "where the results go (and for train the model, checkpoints and trainer_state.json)")
      .with_env("CPUFT_OUTPUT_DIR");
  t.boolean("overwrite_output_dir", &a.overwrite_output_dir,
            "train into a non-empty --output_dir, ignoring its checkpoints");
  steps(t, "logging_steps", &a.logging_steps, steps_or_ratio, kStepsRange, kStepsExpected,
        "log loss, grad_norm and learning rate every N steps");
  t.boolean("logging_first_step", &a.logging_first_step, "also log after the first step");
  steps(t, "save_steps", &a.save_steps, steps_or_ratio, kStepsRange, kStepsExpected,
        "write checkpoint-N/ every N steps (--save_strategy steps)");
  t.optional_integer("save_total_limit", &a.save_total_limit, 1, 1000000,
                     "keep at most N checkpoints, deleting the oldest (never the best model's, nor the newest)");
  t.choice<SaveStrategy>("save_strategy", &a.save_strategy,
                         {{"steps", SaveStrategy::kSteps}, {"epoch", SaveStrategy::kEpoch}, {"no", SaveStrategy::kNo}},
                         "when to write checkpoints");
  t.text("resume_from_checkpoint", "PATH|last", &a.resume_from_checkpoint,
         "resume from a checkpoint directory, or the newest one in --output_dir");
  Flag& report = t.custom(
      "report_to", "NAME...",
      "where logs go besides trainer_state.json: tensorboard (event files in --logging_dir), all (the same), none; "
      "the Trainer's other integrations are accepted with a notice",
      "", [&a](const std::string& v, const std::string& who) { a.report_to = read_report_to(v, who); },
      [&a] { return join_words(a.report_to); });
  report.arity = FlagArity::kMany;
  t.text("logging_dir", "DIR", &a.logging_dir, "directory of the TensorBoard event files (--report_to tensorboard)")
      .with_default_text("OUTPUT_DIR/runs/<date>_<host>")
      .with_env("TENSORBOARD_LOGGING_DIR");
}

void distributed(FlagTable& t, TrainArgs& a) {
  t.group("Distributed");
  // Below 1 MB a model's gradients become thousands of tiny allreduces per step (1e-9 made one-float
  // buckets: millions per step, each completing, so the watchdog never fired); above 4 GiB there is no
  // overlap left to gain.
  t.number("bucket_size_mb", &a.bucket_size_mb, closed(1, 4096),
           "gradient bucket size in MiB for the allreduce overlapped with backward");
  t.choice<WireType>("allreduce_dtype", &a.allreduce_dtype, {{"f32", WireType::kF32}, {"bf16", WireType::kBf16}},
                     "element type of gradients on the wire");
  t.number("collective_timeout", &a.collective_timeout, closed(0, 86400),
           "seconds an MPI collective may wait with none completing before the job is stopped (a rank died or "
           "hangs); 0: never")
      .with_env("CPUFT_COLLECTIVE_TIMEOUT");
}

void questions(FlagTable& t, TrainArgs& a) {
  t.group("Questions");
  // Free text: a question may well start with "--".
  t.optional_text("question", "Q", &a.question, "a question about --context").with_raw_value();
  t.optional_text("context", "C", &a.context, "the text that holds the answer").with_raw_value();
  t.optional_text("input", "FILE", &a.input,
                  "JSON lines {\"question\": ..., \"context\": ..., \"id\": optional}; - reads stdin");
}

// Flags of run_qa.py / TrainingArguments that mean nothing in cpuft.
void reference_stack(FlagTable& t) {
  const char* cpu_only = "cpuft runs on CPUs only";
  const char* mpi = "cpuft communicates through MPI (run it under mpirun)";
  const char* data = "the data comes from --train_file / --validation_file";
  t.no_effect("no_cuda", FlagArity::kBool, cpu_only);
  t.no_effect("use_cpu", FlagArity::kBool, cpu_only);
  t.no_effect("use_ipex", FlagArity::kBool, "cpuft has its own CPU kernels");
  t.no_effect("xpu_backend", FlagArity::kOne, mpi);
  t.no_effect("ddp_backend", FlagArity::kOne, mpi);
  t.no_effect("ddp_find_unused_parameters", FlagArity::kBool, "every parameter of a QA model gets a gradient");
  t.no_effect("dataloader_num_workers", FlagArity::kOne, "features are built before training; batches need no workers");
  t.no_effect("overwrite_cache", FlagArity::kBool, "cpuft keeps no dataset cache");
  t.no_effect("preprocessing_num_workers", FlagArity::kOne, "feature building uses --threads");
  t.no_effect("local_rank", FlagArity::kOne, "the rank comes from MPI");
  t.no_effect("jit_mode_eval", FlagArity::kBool, "cpuft's kernels are compiled ahead of time");
  t.no_effect("cache_dir", FlagArity::kOne, "cpuft reads models from local directories only");
  t.no_effect("dataset_name", FlagArity::kOne, data);
  t.no_effect("dataset_config_name", FlagArity::kOne, data);
  // --fp16 false is harmless; --fp16 asks for something cpuft cannot do.
  Flag& fp16 = t.no_effect("fp16", FlagArity::kBool, "fp16 is for GPUs; use --bf16 on CPUs");
  fp16.set = [why = fp16.why](const std::string& v, const std::string& who) {
    if (v == "true") fail(who, ": ", why);
  };
}

}  // namespace

std::vector<std::string> report_integrations() {
  std::vector<std::string> out;
  for (const char* k : kReportIntegrations)
    if (std::string(k) != "none" && std::string(k) != "all") out.push_back(k);
  return out;
}

FlagTable train_flags(Command command, TrainArgs& a) {
  FlagTable t(command_name(command), about(command));
  model_and_data(t, a);
  training(t, a);
  evaluation_and_output(t, a);
  distributed(t, a);
  if (command == Command::kPredict) questions(t, a);
  reference_stack(t);
  if (command == Command::kEvaluate)
    t.keep_only({{"What to evaluate", {"model_name_or_path", "validation_file", "output_dir"}},
                 {"Model", {"tokenizer_name", "bf16", "seed"}},
                 {"Data", {"task", "max_seq_length", "doc_stride", "pad_to_max_length", "max_eval_samples",
                           "version_2_with_negative", "label_all_tokens", "return_entity_level_metrics",
                           "text_column_name", "label_column_name"}},
                 {"Evaluation", {"per_device_eval_batch_size", "n_best_size", "max_answer_length",
                                 "null_score_diff_threshold"}},
                 {"Running", {"threads", "collective_timeout"}}},
                "train", "it only scores --validation_file");
  if (command == Command::kPredict)
    t.keep_only({{"What to answer", {"question", "context", "input", "test_file", "output_dir"}},
                 {"Model", {"model_name_or_path", "tokenizer_name", "bf16", "seed"}},
                 {"Data", {"task", "max_seq_length", "doc_stride", "pad_to_max_length", "max_predict_samples",
                           "version_2_with_negative", "label_all_tokens", "text_column_name", "label_column_name"}},
                 {"Answers", {"per_device_eval_batch_size", "n_best_size", "max_answer_length",
                              "null_score_diff_threshold"}},
                 {"Running", {"threads", "collective_timeout"}}},
                "train", "it only answers questions");
  return t;
}

}  // namespace cpuft
