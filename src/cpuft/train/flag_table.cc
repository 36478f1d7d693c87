#include "cpuft/train/flag_table.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <utility>

#include "cpuft/util/error.h"
#include "cpuft/util/py_json.h"

namespace cpuft {

namespace {

using Rule = bool (*)(double);

double to_number(const std::string& v, const std::string& who, const char* expected) {
  char* end = nullptr;
  errno = 0;
  double d = v.empty() || std::isspace(static_cast<unsigned char>(v[0])) ? NAN : std::strtod(v.c_str(), &end);
  if (std::isnan(d) || *end != '\0' || !std::isfinite(d) || errno == ERANGE)
    fail(who, ": found '", v, "', expected ", expected);
  return d;
}

int64_t to_integer(const std::string& v, const std::string& who, const char* expected) {
  char* end = nullptr;
  errno = 0;
  long long n = std::strtoll(v.c_str(), &end, 10);
  if (v.empty() || std::isspace(static_cast<unsigned char>(v[0])) || *end != '\0' || errno == ERANGE)
    fail(who, ": found '", v, "', expected ", expected);
  return n;
}

// How --help shows a number: integers without ".0" (500, 3), other values as Python prints them.
std::string show_number(double d) {
  if (d == std::floor(d) && std::fabs(d) < 1e15) return std::to_string(static_cast<long long>(d));
  return py_float_repr(d);
}

FlagSpec make(const char* group, const char* name, const char* placeholder, const char* help,
              FlagArity arity, decltype(FlagSpec::set) set, decltype(FlagSpec::show) show,
              const char* env = "") {
  FlagSpec f;
  f.name = name;
  f.placeholder = placeholder;
  f.group = group;
  f.help = help;
  f.env = env;
  f.arity = arity;
  f.set = std::move(set);
  f.show = std::move(show);
  return f;
}

FlagSpec number(const char* group, const char* name, double TrainArgs::*field, const char* expected,
                Rule ok, const char* help, const char* env = "") {
  return make(
      group, name, "FLOAT", help, FlagArity::One,
      [=](TrainArgs& a, const std::string& v, const std::string& who) {
        double d = to_number(v, who, expected);
        if (!ok(d)) fail(who, ": found '", v, "', expected ", expected);
        a.*field = d;
      },
      [=](const TrainArgs& a) { return show_number(a.*field); }, env);
}

template <typename Int>
FlagSpec integer(const char* group, const char* name, Int TrainArgs::*field, const char* expected,
                 Rule ok, const char* help, const char* env = "") {
  return make(
      group, name, "N", help, FlagArity::One,
      [=](TrainArgs& a, const std::string& v, const std::string& who) {
        int64_t n = to_integer(v, who, expected);
        if (!ok(static_cast<double>(n))) fail(who, ": found '", v, "', expected ", expected);
        a.*field = static_cast<Int>(n);
      },
      [=](const TrainArgs& a) { return std::to_string(a.*field); }, env);
}

FlagSpec optional_count(const char* group, const char* name, std::optional<int64_t> TrainArgs::*field,
                        const char* help) {
  return make(
      group, name, "N", help, FlagArity::One,
      [=](TrainArgs& a, const std::string& v, const std::string& who) {
        int64_t n = to_integer(v, who, "an integer > 0");
        if (n <= 0) fail(who, ": found '", v, "', expected an integer > 0");
        a.*field = n;
      },
      [=](const TrainArgs& a) { return a.*field ? std::to_string(*(a.*field)) : std::string("none"); });
}

FlagSpec text(const char* group, const char* name, const char* placeholder,
              std::string TrainArgs::*field, const char* help, const char* env = "") {
  return make(
      group, name, placeholder, help, FlagArity::One,
      [=](TrainArgs& a, const std::string& v, const std::string& who) {
        if (v.empty()) fail(who, ": found '', expected a non-empty ", placeholder);
        a.*field = v;
      },
      [=](const TrainArgs& a) { return (a.*field).empty() ? std::string("none") : a.*field; }, env);
}

FlagSpec boolean(const char* group, const char* name, bool TrainArgs::*field, const char* help) {
  return make(
      group, name, "", help, FlagArity::Bool,
      [=](TrainArgs& a, const std::string& v, const std::string&) { a.*field = v == "true"; },
      [=](const TrainArgs& a) { return std::string(a.*field ? "true" : "false"); });
}

template <typename E>
FlagSpec choice(const char* group, const char* name, E TrainArgs::*field,
                std::vector<std::pair<std::string, E>> words, const char* help) {
  std::string placeholder, expected = "one of";
  for (const auto& w : words) {
    placeholder += (placeholder.empty() ? "" : "|") + w.first;
    expected += " " + w.first;
  }
  return make(
      group, name, placeholder.c_str(), help, FlagArity::One,
      [=](TrainArgs& a, const std::string& v, const std::string& who) {
        for (const auto& w : words)
          if (w.first == v) {
            a.*field = w.second;
            return;
          }
        fail(who, ": found '", v, "', expected ", expected);
      },
      [=](const TrainArgs& a) {
        for (const auto& w : words)
          if (w.second == a.*field) return w.first;
        return std::string("?");
      });
}

bool positive(double d) { return d > 0; }
bool non_negative(double d) { return d >= 0; }
bool unit_open(double d) { return d >= 0 && d < 1; }
bool unit_closed(double d) { return d >= 0 && d <= 1; }
bool any(double) { return true; }
bool seed_range(double d) { return d >= 0 && d <= 4294967295.0; }
bool max_steps_rule(double d) { return d == -1 || d > 0; }
// Steps given as a count (an integer >= 1) or as a ratio of the total in (0, 1), as transformers allows.
bool steps_or_ratio(double d) { return (d > 0 && d < 1) || (d >= 1 && d == std::floor(d)); }
bool warmup_rule(double d) { return d == 0 || steps_or_ratio(d); }

std::vector<FlagSpec> build_table() {
  using A = TrainArgs;
  std::vector<FlagSpec> t;
  // Model
  t.push_back(text("Model", "model_name_or_path", "PATH", &A::model_name_or_path,
                   "Hugging Face model directory (config.json, model.safetensors, vocab.txt or "
                   "tokenizer.json)",
                   "CPUFT_MODEL"));
  t.push_back(text("Model", "tokenizer_name", "PATH", &A::tokenizer_name,
                   "directory with the tokenizer files, if not the model directory"));
  // Data
  t.push_back(text("Data", "train_file", "FILE", &A::train_file, "SQuAD JSON file to train on"));
  t.push_back(text("Data", "validation_file", "FILE", &A::validation_file,
                   "SQuAD JSON file to evaluate on (--do_eval)"));
  t.push_back(text("Data", "test_file", "FILE", &A::test_file,
                   "SQuAD JSON file to predict on (--do_predict)"));
  t.push_back(integer("Data", "max_seq_length", &A::max_seq_length, "an integer > 0", positive,
                      "tokens per window (question + context + special tokens)"));
  t.push_back(integer("Data", "doc_stride", &A::doc_stride, "an integer >= 0", non_negative,
                      "tokens of overlap between consecutive windows of a long context"));
  t.push_back(boolean("Data", "pad_to_max_length", &A::pad_to_max_length,
                      "pad every window to --max_seq_length (false: pad each batch to its longest)"));
  t.push_back(optional_count("Data", "max_train_samples", &A::max_train_samples,
                             "use only the first N training examples"));
  t.push_back(optional_count("Data", "max_eval_samples", &A::max_eval_samples,
                             "use only the first N evaluation examples"));
  t.push_back(optional_count("Data", "max_predict_samples", &A::max_predict_samples,
                             "use only the first N prediction examples"));
  t.push_back(boolean("Data", "version_2_with_negative", &A::version_2_with_negative,
                      "SQuAD v2: some questions have no answer"));
  // Training
  t.push_back(boolean("Training", "do_train", &A::do_train, "train (implied by `cpuft train`)"));
  t.push_back(boolean("Training", "do_eval", &A::do_eval,
                      "evaluate on --validation_file (implied by `cpuft evaluate`)"));
  t.push_back(boolean("Training", "do_predict", &A::do_predict,
                      "predict on --test_file (implied by `cpuft predict`)"));
  t.push_back(integer("Training", "per_device_train_batch_size", &A::per_device_train_batch_size,
                      "an integer > 0", positive, "training windows per batch per process"));
  t.push_back(integer("Training", "gradient_accumulation_steps", &A::gradient_accumulation_steps,
                      "an integer > 0", positive, "batches whose gradients are summed per optimizer step"));
  t.push_back(number("Training", "learning_rate", &A::learning_rate, "a number > 0", positive,
                     "peak AdamW learning rate"));
  t.push_back(number("Training", "weight_decay", &A::weight_decay, "a number >= 0", non_negative,
                     "AdamW decoupled weight decay (not on biases and LayerNorm)"));
  t.push_back(number("Training", "adam_beta1", &A::adam_beta1, "a number in [0, 1)", unit_open,
                     "AdamW beta1"));
  t.push_back(number("Training", "adam_beta2", &A::adam_beta2, "a number in [0, 1)", unit_open,
                     "AdamW beta2"));
  t.push_back(number("Training", "adam_epsilon", &A::adam_epsilon, "a number >= 0", non_negative,
                     "AdamW epsilon"));
  t.push_back(number("Training", "max_grad_norm", &A::max_grad_norm, "a number >= 0", non_negative,
                     "clip the global gradient L2 norm to this (0: no clipping)"));
  t.push_back(number("Training", "num_train_epochs", &A::num_train_epochs, "a number > 0", positive,
                     "epochs to train (a fraction trains part of the last epoch)"));
  t.push_back(integer("Training", "max_steps", &A::max_steps, "an integer > 0, or -1 to use --num_train_epochs",
                      max_steps_rule, "optimizer steps to train; overrides --num_train_epochs"));
  t.push_back(number("Training", "warmup_ratio", &A::warmup_ratio, "a number in [0, 1]", unit_closed,
                     "linear warmup over this fraction of the steps (when --warmup_steps is 0)"));
  t.push_back(number("Training", "warmup_steps", &A::warmup_steps,
                     "an integer >= 0, or a ratio in (0, 1)", warmup_rule,
                     "linear warmup steps (a value in (0, 1) is a ratio of the total)"));
  t.push_back(choice<LrSchedulerType>("Training", "lr_scheduler_type", &A::lr_scheduler_type,
                                      {{"linear", LrSchedulerType::Linear},
                                       {"constant", LrSchedulerType::Constant},
                                       {"constant_with_warmup", LrSchedulerType::ConstantWithWarmup},
                                       {"cosine", LrSchedulerType::Cosine}},
                                      "learning-rate schedule after warmup"));
  t.push_back(integer("Training", "seed", &A::seed, "an integer in [0, 4294967295]", seed_range,
                      "seed for weight initialisation, dropout and (without --data_seed) data order"));
  t.push_back(make(
      "Training", "data_seed", "N", "seed for the training data order", FlagArity::One,
      [](TrainArgs& a, const std::string& v, const std::string& who) {
        const char* expected = "an integer in [0, 4294967295]";
        int64_t n = to_integer(v, who, expected);
        if (!seed_range(static_cast<double>(n))) fail(who, ": found '", v, "', expected ", expected);
        a.data_seed = n;
      },
      [](const TrainArgs& a) { return a.data_seed ? std::to_string(*a.data_seed) : std::string("--seed"); }));
  t.push_back(boolean("Training", "bf16", &A::bf16,
                      "bf16 matrix products with f32 master weights (AMX / AVX512_BF16 when present)"));
  t.push_back(integer("Training", "threads", &A::threads, "an integer >= 0", non_negative,
                      "OpenMP threads per process (0: the cores of this process's share)",
                      "CPUFT_THREADS"));
  // Evaluation
  t.push_back(integer("Evaluation", "per_device_eval_batch_size", &A::per_device_eval_batch_size,
                      "an integer > 0", positive, "evaluation windows per batch per process"));
  t.push_back(integer("Evaluation", "n_best_size", &A::n_best_size, "an integer > 0", positive,
                      "start and end candidates considered per window"));
  t.push_back(integer("Evaluation", "max_answer_length", &A::max_answer_length, "an integer > 0",
                      positive, "longest answer span in tokens"));
  t.push_back(number("Evaluation", "null_score_diff_threshold", &A::null_score_diff_threshold,
                     "a number", any, "SQuAD v2: predict no answer when null score - best > this"));
  // Output
  t.push_back(text("Output", "output_dir", "DIR", &A::output_dir,
                   "where the model, checkpoints, trainer_state.json and results go",
                   "CPUFT_OUTPUT_DIR"));
  t.push_back(boolean("Output", "overwrite_output_dir", &A::overwrite_output_dir,
                      "train into a non-empty --output_dir, ignoring its checkpoints"));
  t.push_back(number("Output", "logging_steps", &A::logging_steps,
                     "an integer >= 1, or a ratio in (0, 1)", steps_or_ratio,
                     "log loss, grad_norm and learning rate every N steps"));
  t.push_back(boolean("Output", "logging_first_step", &A::logging_first_step,
                      "also log after the first step"));
  t.push_back(number("Output", "save_steps", &A::save_steps, "an integer >= 1, or a ratio in (0, 1)",
                     steps_or_ratio, "write checkpoint-N/ every N steps (--save_strategy steps)"));
  t.push_back(optional_count("Output", "save_total_limit", &A::save_total_limit,
                             "keep at most N checkpoints, deleting the oldest"));
  t.push_back(choice<SaveStrategy>("Output", "save_strategy", &A::save_strategy,
                                   {{"steps", SaveStrategy::Steps},
                                    {"epoch", SaveStrategy::Epoch},
                                    {"no", SaveStrategy::No}},
                                   "when to write checkpoints"));
  t.push_back(text("Output", "resume_from_checkpoint", "PATH|last", &A::resume_from_checkpoint,
                   "resume from a checkpoint directory, or the newest one in --output_dir"));
  // Distributed
  t.push_back(number("Distributed", "bucket_size_mb", &A::bucket_size_mb, "a number > 0", positive,
                     "gradient bucket size for the allreduce overlapped with backward"));
  t.push_back(choice<AllreduceDtype>("Distributed", "allreduce_dtype", &A::allreduce_dtype,
                                     {{"f32", AllreduceDtype::F32}, {"bf16", AllreduceDtype::BF16}},
                                     "element type of gradients on the wire"));
  // Step counts that transformers also accepts as a ratio of the total steps.
  for (auto& f : t)
    if (f.name == "warmup_steps" || f.name == "logging_steps" || f.name == "save_steps") f.placeholder = "N|RATIO";
  return t;
}

std::vector<IgnoredFlag> build_ignored() {
  const char* cpu_only = "cpuft runs on CPUs only";
  const char* mpi = "cpuft communicates through MPI (run it under mpirun)";
  return {
      {"no_cuda", FlagArity::Bool, cpu_only},
      {"use_cpu", FlagArity::Bool, cpu_only},
      {"use_ipex", FlagArity::Bool, "cpuft has its own CPU kernels"},
      {"xpu_backend", FlagArity::One, mpi},
      {"ddp_backend", FlagArity::One, mpi},
      {"ddp_find_unused_parameters", FlagArity::Bool, "every parameter of a QA model gets a gradient"},
      {"dataloader_num_workers", FlagArity::One, "features are built before training; batches need no workers"},
      {"report_to", FlagArity::Many, "cpuft writes trainer_state.json and *_results.json only"},
      {"overwrite_cache", FlagArity::Bool, "cpuft keeps no dataset cache"},
      {"preprocessing_num_workers", FlagArity::One, "feature building uses --threads"},
      {"local_rank", FlagArity::One, "the rank comes from MPI"},
      {"jit_mode_eval", FlagArity::Bool, "cpuft's kernels are compiled ahead of time"},
      {"cache_dir", FlagArity::One, "cpuft reads models from local directories only"},
      {"dataset_name", FlagArity::One, "the data comes from --train_file / --validation_file"},
      {"dataset_config_name", FlagArity::One, "the data comes from --train_file / --validation_file"},
      {"fp16", FlagArity::Bool, "fp16 is for GPUs; use --bf16 on CPUs"},
  };
}

}  // namespace

const std::vector<FlagSpec>& flag_table() {
  static const std::vector<FlagSpec> table = build_table();
  return table;
}

const std::vector<IgnoredFlag>& ignored_flags() {
  static const std::vector<IgnoredFlag> table = build_ignored();
  return table;
}

const std::vector<std::string>& flag_groups() {
  static const std::vector<std::string> groups = {"Model",      "Data",   "Training",
                                                  "Evaluation", "Output", "Distributed"};
  return groups;
}

bool parse_bool_word(const std::string& word, bool* out) {
  std::string w;
  for (char c : word) w.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  if (w == "true" || w == "1" || w == "yes" || w == "t" || w == "y") {
    *out = true;
    return true;
  }
  if (w == "false" || w == "0" || w == "no" || w == "f" || w == "n") {
    *out = false;
    return true;
  }
  return false;
}

}  // namespace cpuft
