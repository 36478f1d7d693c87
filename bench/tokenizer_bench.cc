// Tokenizer and feature-builder throughput on the whole SQuAD v1.1 dev set with the bundled uncased
// vocabulary, read from the current directory as the repository root (../shared/data/squad/dev-v1.1.json,
// the optional SQuAD files beside the repository, tests/common/shared_data.h; tests/fixtures/text) unless
// CPUFT_BENCH_SQUAD / CPUFT_BENCH_TOKENIZER name them. The argument is the OpenMP
// thread count; 0 means all. tools/text_speed_compare.py runs these next to HF tokenizers.
//   Tokenizer/Encode: every question and every distinct context, Tokenizer::encode (strings=x/s).
//   Tokenizer/EvalFeatures, Tokenizer/TrainFeatures: run_qa's preprocessing at (384, 128) (examples=x/s).
#include <benchmark/benchmark.h>
#include <omp.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <unordered_set>
#include <vector>

#include "cpuft/data/feature_builder.h"
#include "cpuft/data/squad_reader.h"
#include "cpuft/text/tokenizer.h"

namespace cpuft {
namespace {

std::string env_or(const char* name, const char* fallback) {
  const char* env = std::getenv(name);
  return env != nullptr && *env != '\0' ? env : fallback;
}

std::string dev_set_path() { return env_or("CPUFT_BENCH_SQUAD", "../shared/data/squad/dev-v1.1.json"); }

struct DevSet {
  Tokenizer tokenizer = Tokenizer::load(env_or("CPUFT_BENCH_TOKENIZER", "tests/fixtures/text"));
  std::vector<Example> examples;
  std::vector<std::string> strings;  // questions, then distinct contexts, in file order
};

// The dev set, or nullptr (and the run skipped) when the file is absent.
const DevSet* dev_set(benchmark::State& state) {
  static const DevSet* set = []() -> const DevSet* {
    if (!std::filesystem::exists(dev_set_path())) return nullptr;
    auto* s = new DevSet();
    s->examples = read_squad(dev_set_path()).examples;
    std::unordered_set<std::string> seen;
    for (const Example& e : s->examples) s->strings.push_back(e.question);
    for (const Example& e : s->examples) {
      if (seen.insert(e.context).second) s->strings.push_back(e.context);
    }
    return s;
  }();
  if (set == nullptr) state.SkipWithError(("no SQuAD dev set at " + dev_set_path()).c_str());
  return set;
}

int threads_of(const benchmark::State& state) {
  return state.range(0) > 0 ? static_cast<int>(state.range(0)) : omp_get_num_procs();
}

void Encode(benchmark::State& state) {
  const DevSet* set = dev_set(state);
  if (set == nullptr) return;
  const int threads = threads_of(state);
  const auto n = static_cast<int64_t>(set->strings.size());
  for (auto _ : state) {
    int64_t tokens = 0;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 64) reduction(+ : tokens)
    for (int64_t i = 0; i < n; ++i) tokens += static_cast<int64_t>(set->tokenizer.encode(set->strings[i]).ids.size());
    benchmark::DoNotOptimize(tokens);
  }
  state.counters["strings"] = benchmark::Counter(static_cast<double>(n), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["threads"] = threads;
}

template <bool kTrain>
void Features(benchmark::State& state) {
  const DevSet* set = dev_set(state);
  if (set == nullptr) return;
  const int threads = threads_of(state);
  const int saved = omp_get_max_threads();
  omp_set_num_threads(threads);
  const FeatureOptions options{384, 128, true};
  for (auto _ : state) {
    auto features = kTrain ? build_train_features(set->examples, set->tokenizer, options)
                           : build_eval_features(set->examples, set->tokenizer, options);
    benchmark::DoNotOptimize(features.data());
  }
  omp_set_num_threads(saved);
  state.counters["examples"] =
      benchmark::Counter(static_cast<double>(set->examples.size()), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["threads"] = threads;
}

BENCHMARK(Encode)->Name("Tokenizer/Encode")->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(Features<false>)->Name("Tokenizer/EvalFeatures")->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(Features<true>)->Name("Tokenizer/TrainFeatures")->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace cpuft
