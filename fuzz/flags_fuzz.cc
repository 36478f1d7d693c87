// libFuzzer target: a command line of `cpuft train | evaluate | predict` -> TrainArgs. The first byte
// picks the command; the rest, split at NUL bytes, are the words after it, except that a word
// "$NAME=VALUE" sets the environment variable NAME (CPUFT_THREADS, CPUFT_MODEL, ...) instead. A refused
// command line must end in one short cpuft::Error line. An accepted one must keep every number within
// the range its flag declares, give notices of one line each, and show each flag it was given as a
// value that the flag reads back to the same value (a checkpoint records its flags that way, and
// resuming compares them).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "cpuft/flags/args.h"
#include "cpuft/flags/train_flags.h"
#include "fuzz_check.h"

namespace {

void check(bool ok) {
  if (!ok) std::abort();
}

bool within(double v, double lo, double hi) { return std::isfinite(v) && v >= lo && v <= hi; }

void check_ranges(const cpuft::TrainArgs& a) {
  check(a.max_seq_length >= 4 && a.max_seq_length <= 8192 && a.doc_stride >= 0 && a.doc_stride < 8192);
  if (a.command == cpuft::Command::kTrain && a.task == cpuft::TaskHead::kQuestionAnswering)
    check(a.doc_stride < a.max_seq_length);
  check(a.per_device_train_batch_size >= 1 && a.per_device_train_batch_size <= 4096);
  check(a.per_device_eval_batch_size >= 1 && a.per_device_eval_batch_size <= 4096);
  check(a.gradient_accumulation_steps >= 1 && a.gradient_accumulation_steps <= 65536);
  check(within(a.learning_rate, 0, 10) && a.learning_rate > 0 && within(a.weight_decay, 0, 10));
  check(within(a.adam_beta1, 0, 1) && a.adam_beta1 < 1 && within(a.adam_beta2, 0, 1) && a.adam_beta2 < 1);
  check(within(a.adam_epsilon, 0, 1) && within(a.max_grad_norm, 0, 1e6));
  check(within(a.num_train_epochs, 0, 10000) && a.num_train_epochs > 0);
  check(a.max_steps == -1 || a.max_steps >= 1);
  check(within(a.warmup_ratio, 0, 1) && within(a.warmup_steps, 0, 1e18) && within(a.eval_steps, 0, 1e18));
  check(within(a.logging_steps, 0, 1e18) && a.logging_steps > 0 && within(a.save_steps, 0, 1e18) && a.save_steps > 0);
  check(a.seed >= 0 && a.seed <= 4294967295 && a.effective_data_seed() >= 0 && a.effective_data_seed() <= 4294967295);
  check(a.threads >= 0 && a.threads <= 1024 && a.n_best_size >= 1 && a.n_best_size <= 1000);
  check(a.max_answer_length >= 1 && a.max_answer_length <= 8192);
  check(within(a.null_score_diff_threshold, -1e6, 1e6) && within(a.bucket_size_mb, 1, 4096));
  check(within(a.collective_timeout, 0, 86400) && !a.model_name_or_path.empty());
  if (a.command == cpuft::Command::kTrain) check(!a.output_dir.empty());
}

// Each flag given on the command line shows a value that its flag, in a fresh table, reads back to
// the same shown value.
void check_round_trip(cpuft::Command command, const cpuft::ParsedArgs& parsed) {
  cpuft::TrainArgs shown_args = parsed.args;
  const cpuft::FlagTable shown = cpuft::train_flags(command, shown_args);
  for (const std::string& name : parsed.given) {
    const cpuft::Flag* f = shown.find(name);
    if (!f || f->role != cpuft::FlagRole::kUsed || !f->set || !f->show) continue;
    const std::string value = f->show();
    cpuft::TrainArgs again_args;
    again_args.command = command;
    const cpuft::FlagTable again = cpuft::train_flags(command, again_args);
    const cpuft::Flag* g = again.find(f->name);
    try {
      g->set(value, "--" + f->name);
    } catch (const cpuft::Error&) {
      std::abort();  // a value cpuft showed, refused by its own flag
    }
    check(g->show() == value);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const auto command = static_cast<cpuft::Command>(data[0] % 3);
  std::vector<std::string> words;
  std::map<std::string, std::string> env;
  std::string word;
  for (size_t i = 1; i <= size; ++i) {
    if (i < size && data[i] != 0) {
      word += static_cast<char>(data[i]);
      continue;
    }
    const size_t eq = word.find('=');
    if (word.size() > 1 && word[0] == '$' && eq != std::string::npos)
      env[word.substr(1, eq - 1)] = word.substr(eq + 1);
    else
      words.push_back(word);
    word.clear();
  }
  const cpuft::EnvLookup lookup = [&env](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  };
  try {
    const cpuft::ParsedArgs parsed = cpuft::parse_train_args(command, words, lookup);
    for (const std::string& notice : parsed.notices)
      check(notice.find('\n') == std::string::npos && notice.size() <= cpuft_fuzz::kMaxMessage);
    if (parsed.help) return 0;
    check_ranges(parsed.args);
    check_round_trip(command, parsed);
  } catch (const cpuft::Error& e) {
    cpuft_fuzz::check_error(e);
  }
  return 0;
}
