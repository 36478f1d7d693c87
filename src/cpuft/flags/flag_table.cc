#include "cpuft/flags/flag_table.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <utility>

#include "cpuft/util/error.h"
#include "cpuft/util/json_read.h"
#include "cpuft/util/py_json.h"

namespace cpuft {

namespace {

// Largest step count, sample cap and seed-like counts accepted: far beyond any real run, far below
// where products of them overflow a 64-bit integer.
constexpr int64_t kMaxCount = 1000000000;

// A decimal number as written by people and scripts: [+-]digits[.digits][e[+-]digits]. strtod also
// takes hexadecimal ("0x10" read as 16), "inf", "nan" and leading spaces, none of which is a value
// a flag should mean.
bool is_decimal(const std::string& v) {
  size_t i = 0;
  if (i < v.size() && (v[i] == '+' || v[i] == '-')) ++i;
  size_t digits = 0;
  while (i < v.size() && std::isdigit(static_cast<unsigned char>(v[i]))) ++i, ++digits;
  if (i < v.size() && v[i] == '.') {
    ++i;
    while (i < v.size() && std::isdigit(static_cast<unsigned char>(v[i]))) ++i, ++digits;
  }
  if (digits == 0) return false;
  if (i < v.size() && (v[i] == 'e' || v[i] == 'E')) {
    ++i;
    if (i < v.size() && (v[i] == '+' || v[i] == '-')) ++i;
    size_t exp_digits = 0;
    while (i < v.size() && std::isdigit(static_cast<unsigned char>(v[i]))) ++i, ++exp_digits;
    if (exp_digits == 0) return false;
  }
  return i == v.size();
}

bool is_whole(const std::string& v) {
  size_t i = v.size() > 0 && (v[0] == '-' || v[0] == '+') ? 1 : 0;
  if (i == v.size()) return false;
  for (; i < v.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(v[i]))) return false;
  return true;
}

// The value of a decimal number flag; anything else (or a value beyond a double) is an error
// naming the flag, the value (cut when long) and what was expected.
double to_number(const std::string& v, const std::string& who, const std::string& expected) {
  errno = 0;
  const double d = is_decimal(v) ? std::strtod(v.c_str(), nullptr) : NAN;
  if (!std::isfinite(d) || errno == ERANGE) fail(who, ": found '", text_preview(v), "', expected ", expected);
  return d;
}

int64_t to_integer(const std::string& v, const std::string& who, const std::string& expected) {
  errno = 0;
  const long long n = is_whole(v) ? std::strtoll(v.c_str(), nullptr, 10) : 0;
  if (!is_whole(v) || errno == ERANGE) fail(who, ": found '", text_preview(v), "', expected ", expected);
  return n;
}

// How --help shows a number: integers without ".0" (500, 3), other values as Python prints them.
std::string show_number(double d) {
  if (d == std::floor(d) && std::fabs(d) < 1e15) return std::to_string(static_cast<long long>(d));
  return py_float_repr(d);
}

// The values a number flag takes: lo..hi, each end open or closed.
struct Range {
  double lo, hi;
  bool lo_open = false, hi_open = false;
  bool contains(double d) const { return (lo_open ? d > lo : d >= lo) && (hi_open ? d < hi : d <= hi); }
  std::string text() const {
    return str_cat(lo_open ? "(" : "[", show_number(lo), ", ", show_number(hi), hi_open ? ")" : "]");
  }
};

Range closed(double lo, double hi) { return {lo, hi, false, false}; }
Range above(double lo, double hi) { return {lo, hi, true, false}; }    // (lo, hi]
Range below(double lo, double hi) { return {lo, hi, false, true}; }    // [lo, hi)

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

FlagSpec number(const char* group, const char* name, double TrainArgs::*field, Range range, const char* help,
                const char* env = "") {
  const std::string expected = "a number in " + range.text();
  FlagSpec f = make(
      group, name, "FLOAT", help, FlagArity::One,
      [=](TrainArgs& a, const std::string& v, const std::string& who) {
        const double d = to_number(v, who, expected);
        if (!range.contains(d)) fail(who, ": found '", v, "', expected ", expected);
        a.*field = d;
      },
      [=](const TrainArgs& a) { return show_number(a.*field); }, env);
  f.range = range.text();
  return f;
}

// A number flag with its own rule (steps that may also be ratios, ...), `range` as --help says it and
// `expected` as errors do.
FlagSpec number_rule(const char* group, const char* name, double TrainArgs::*field, bool (*ok)(double),
                     const std::string& range, const std::string& expected, const char* help) {
  FlagSpec f = make(
      group, name, "FLOAT", help, FlagArity::One,
      [=](TrainArgs& a, const std::string& v, const std::string& who) {
        const double d = to_number(v, who, expected);
        if (!ok(d)) fail(who, ": found '", v, "', expected ", expected);
        a.*field = d;
      },
      [=](const TrainArgs& a) { return show_number(a.*field); });
  f.range = range;
  return f;
}

FlagSpec integer(const char* group, const char* name, int64_t TrainArgs::*field, int64_t lo, int64_t hi,
                 const char* help, const char* env = "") {
  const std::string range = str_cat("[", lo, ", ", hi, "]");
  const std::string expected = "an integer in " + range;
  FlagSpec f = make(
      group, name, "N", help, FlagArity::One,
      [=](TrainArgs& a, const std::string& v, const std::string& who) {
        const int64_t n = to_integer(v, who, expected);
        if (n < lo || n > hi) fail(who, ": found '", v, "', expected ", expected);
        a.*field = n;
      },
      [=](const TrainArgs& a) { return std::to_string(a.*field); }, env);
  f.range = range;
  return f;
}

FlagSpec optional_count(const char* group, const char* name, std::optional<int64_t> TrainArgs::*field,
                        int64_t hi, const char* help) {
  const std::string range = str_cat("[1, ", hi, "]");
  const std::string expected = "an integer in " + range;
  FlagSpec f = make(
      group, name, "N", help, FlagArity::One,
      [=](TrainArgs& a, const std::string& v, const std::string& who) {
        const int64_t n = to_integer(v, who, expected);
        if (n < 1 || n > hi) fail(who, ": found '", v, "', expected ", expected);
        a.*field = n;
      },
      [=](const TrainArgs& a) { return a.*field ? std::to_string(*(a.*field)) : std::string("none"); });
  f.range = range;
  return f;
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
        fail(who, ": found '", text_preview(v), "', expected ", expected);
      },
      [=](const TrainArgs& a) {
        for (const auto& w : words)
          if (w.second == a.*field) return w.first;
        return std::string("?");
      });
}

bool whole(double d) { return d == std::floor(d); }
// Steps given as a count (an integer >= 1) or as a ratio of the total in (0, 1), as transformers allows.
bool steps_or_ratio(double d) { return (d > 0 && d < 1) || (d >= 1 && d <= kMaxCount && whole(d)); }
bool warmup_rule(double d) { return d == 0 || steps_or_ratio(d); }
const std::string kStepsRange = str_cat("[1, ", kMaxCount, "] or a ratio in (0, 1)");
const std::string kStepsExpected = str_cat("an integer in [1, ", kMaxCount, "], or a ratio in (0, 1)");

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
  t.push_back(integer("Data", "max_seq_length", &A::max_seq_length, 4, 8192,
                      "tokens per window (question + context + special tokens)"));
  t.push_back(integer("Data", "doc_stride", &A::doc_stride, 0, 8191,
                      "tokens of overlap between consecutive windows of a long context"));
  t.push_back(boolean("Data", "pad_to_max_length", &A::pad_to_max_length,
                      "pad every window to --max_seq_length (false: pad each batch to its longest)"));
  t.push_back(optional_count("Data", "max_train_samples", &A::max_train_samples, kMaxCount,
                             "use only the first N training examples"));
  t.push_back(optional_count("Data", "max_eval_samples", &A::max_eval_samples, kMaxCount,
                             "use only the first N evaluation examples"));
  t.push_back(optional_count("Data", "max_predict_samples", &A::max_predict_samples, kMaxCount,
                             "use only the first N prediction examples"));
  t.push_back(boolean("Data", "version_2_with_negative", &A::version_2_with_negative,
                      "SQuAD v2: some questions have no answer"));
  // Training
  t.push_back(boolean("Training", "do_train", &A::do_train, "train (implied by `cpuft train`)"));
  t.push_back(boolean("Training", "do_eval", &A::do_eval,
                      "evaluate on --validation_file (implied by `cpuft evaluate`)"));
  t.push_back(boolean("Training", "do_predict", &A::do_predict,
                      "predict on --test_file (implied by `cpuft predict`)"));
  t.push_back(integer("Training", "per_device_train_batch_size", &A::per_device_train_batch_size, 1, 4096,
                      "training windows per batch per process"));
  t.push_back(integer("Training", "gradient_accumulation_steps", &A::gradient_accumulation_steps, 1, 65536,
                      "batches whose gradients are summed per optimizer step"));
  t.push_back(number("Training", "learning_rate", &A::learning_rate, above(0, 10), "peak AdamW learning rate"));
  t.push_back(number("Training", "weight_decay", &A::weight_decay, closed(0, 10),
                     "AdamW decoupled weight decay (not on biases and LayerNorm)"));
  t.push_back(number("Training", "adam_beta1", &A::adam_beta1, below(0, 1), "AdamW beta1"));
  t.push_back(number("Training", "adam_beta2", &A::adam_beta2, below(0, 1), "AdamW beta2"));
  t.push_back(number("Training", "adam_epsilon", &A::adam_epsilon, closed(0, 1), "AdamW epsilon"));
  t.push_back(number("Training", "max_grad_norm", &A::max_grad_norm, closed(0, 1e6),
                     "clip the global gradient L2 norm to this (0: no clipping)"));
  t.push_back(number("Training", "num_train_epochs", &A::num_train_epochs, above(0, 10000),
                     "epochs to train (a fraction trains part of the last epoch)"));
  t.push_back(make(
      "Training", "max_steps", "N", "optimizer steps to train; overrides --num_train_epochs", FlagArity::One,
      [](TrainArgs& a, const std::string& v, const std::string& who) {
        const std::string expected = str_cat("an integer in [1, ", kMaxCount, "], or -1 to use --num_train_epochs");
        const int64_t n = to_integer(v, who, expected);
        if (n != -1 && (n < 1 || n > kMaxCount)) fail(who, ": found '", v, "', expected ", expected);
        a.max_steps = n;
      },
      [](const TrainArgs& a) { return std::to_string(a.max_steps); }));
  t.back().range = str_cat("-1 or [1, ", kMaxCount, "]");
  t.push_back(number("Training", "warmup_ratio", &A::warmup_ratio, closed(0, 1),
                     "linear warmup over this fraction of the steps (when --warmup_steps is 0)"));
  t.push_back(number_rule("Training", "warmup_steps", &A::warmup_steps, warmup_rule, "0, " + kStepsRange,
                          "0, " + kStepsExpected, "linear warmup steps (a value in (0, 1) is a ratio of the total)"));
  t.push_back(choice<LrSchedulerType>("Training", "lr_scheduler_type", &A::lr_scheduler_type,
                                      {{"linear", LrSchedulerType::Linear},
                                       {"constant", LrSchedulerType::Constant},
                                       {"constant_with_warmup", LrSchedulerType::ConstantWithWarmup},
                                       {"cosine", LrSchedulerType::Cosine}},
                                      "learning-rate schedule after warmup"));
  t.push_back(integer("Training", "seed", &A::seed, 0, 4294967295,
                      "seed for weight initialisation, dropout and (without --data_seed) data order"));
  t.push_back(make(
      "Training", "data_seed", "N", "seed for the training data order", FlagArity::One,
      [](TrainArgs& a, const std::string& v, const std::string& who) {
        const char* expected = "an integer in [0, 4294967295]";
        int64_t n = to_integer(v, who, expected);
        if (n < 0 || n > 4294967295) fail(who, ": found '", v, "', expected ", expected);
        a.data_seed = n;
      },
      [](const TrainArgs& a) { return a.data_seed ? std::to_string(*a.data_seed) : std::string("--seed"); }));
  t.back().range = "[0, 4294967295]";
  t.push_back(boolean("Training", "bf16", &A::bf16,
                      "bf16 matrix products with f32 master weights (AMX / AVX512_BF16 when present)"));
  t.push_back(integer("Training", "threads", &A::threads, 0, 1024,
                      "OpenMP threads per process, at most the machine's logical CPUs (0: the cores of this "
                      "process's share)",
                      "CPUFT_THREADS"));
  // Evaluation
  t.push_back(integer("Evaluation", "per_device_eval_batch_size", &A::per_device_eval_batch_size, 1, 4096,
                      "evaluation windows per batch per process"));
  t.push_back(integer("Evaluation", "n_best_size", &A::n_best_size, 1, 1000,
                      "start and end candidates considered per window"));
  t.push_back(integer("Evaluation", "max_answer_length", &A::max_answer_length, 1, 8192,
                      "longest answer span in tokens"));
  t.push_back(number("Evaluation", "null_score_diff_threshold", &A::null_score_diff_threshold, closed(-1e6, 1e6),
                     "SQuAD v2: predict no answer when null score - best > this"));
  // Output
  t.push_back(text("Output", "output_dir", "DIR", &A::output_dir,
                   "where the model, checkpoints, trainer_state.json and results go",
                   "CPUFT_OUTPUT_DIR"));
  t.push_back(boolean("Output", "overwrite_output_dir", &A::overwrite_output_dir,
                      "train into a non-empty --output_dir, ignoring its checkpoints"));
  t.push_back(number_rule("Output", "logging_steps", &A::logging_steps, steps_or_ratio, kStepsRange, kStepsExpected,
                          "log loss, grad_norm and learning rate every N steps"));
  t.push_back(boolean("Output", "logging_first_step", &A::logging_first_step,
                      "also log after the first step"));
  t.push_back(number_rule("Output", "save_steps", &A::save_steps, steps_or_ratio, kStepsRange, kStepsExpected,
                          "write checkpoint-N/ every N steps (--save_strategy steps)"));
  t.push_back(optional_count("Output", "save_total_limit", &A::save_total_limit, 1000000,
                             "keep at most N checkpoints, deleting the oldest"));
  t.push_back(choice<SaveStrategy>("Output", "save_strategy", &A::save_strategy,
                                   {{"steps", SaveStrategy::Steps},
                                    {"epoch", SaveStrategy::Epoch},
                                    {"no", SaveStrategy::No}},
                                   "when to write checkpoints"));
  t.push_back(text("Output", "resume_from_checkpoint", "PATH|last", &A::resume_from_checkpoint,
                   "resume from a checkpoint directory, or the newest one in --output_dir"));
  // Distributed
  // Below 1 MB a model's gradients become thousands of tiny allreduces per step (1e-9 made one-float
  // buckets: millions per step, each completing, so the watchdog never fired); above 4 GiB there is no
  // overlap left to gain.
  t.push_back(number("Distributed", "bucket_size_mb", &A::bucket_size_mb, closed(1, 4096),
                     "gradient bucket size in MiB for the allreduce overlapped with backward"));
  t.push_back(choice<AllreduceDtype>("Distributed", "allreduce_dtype", &A::allreduce_dtype,
                                     {{"f32", AllreduceDtype::F32}, {"bf16", AllreduceDtype::BF16}},
                                     "element type of gradients on the wire"));
  t.push_back(number("Distributed", "collective_timeout", &A::collective_timeout, closed(0, 86400),
                     "seconds an MPI collective may wait with none completing before the job is stopped "
                     "(a rank died or hangs); 0: never",
                     "CPUFT_COLLECTIVE_TIMEOUT"));
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
