// cpuft bench: times full training steps (forward, backward, gradient clipping, AdamW) of a randomly
// initialised model on random data and prints samples/s, tokens/s, achieved GFLOP/s counted from the
// model's shapes, the oneDNN matrix-product peak measured in the same run, their ratio, and peak RSS;
// with --profile, the share of the step each kind of operation takes (util/op_profile.h). Under
// mpirun the step is the data-parallel one (perf/data_parallel_timing.h): the report adds the
// allreduce per step, its exposed part, the share hidden behind backward and the scaling efficiency
// against one rank.
#include <omp.h>
#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "cpuft/cli/commands.h"
#include "cpuft/cpu/cpu_features.h"
#include "cpuft/cpu/onednn_info.h"
#include "cpuft/data/batch.h"
#include "cpuft/flags/flag_help.h"
#include "cpuft/flags/flag_parser.h"
#include "cpuft/io/hf_config.h"
#include "cpuft/kernels/gemm.h"
#include "cpuft/model/batch_view.h"
#include "cpuft/model/optimizer.h"
#include "cpuft/model/qa_model.h"
#include "cpuft/parallel/grad_buckets.h"
#include "cpuft/perf/data_parallel_timing.h"
#include "cpuft/perf/step_flops.h"
#include "cpuft/run/setup.h"
#include "cpuft/train/train_step.h"
#include "cpuft/util/clock.h"
#include "cpuft/util/error.h"
#include "cpuft/util/op_profile.h"

namespace cpuft {
namespace {

const char* kBenchAbout =
    "Times full training steps (forward, backward, gradient clipping, AdamW) of a randomly initialised model\n"
    "on random data: samples/s, tokens/s, achieved GFLOP/s counted from the model's shapes, the oneDNN\n"
    "matrix-product peak measured in the same run, their ratio (MFU) and peak RSS. The model is DistilBERT-base\n"
    "unless --config or the shape flags say otherwise.\n"
    "Under mpirun (mpirun -np N cpuft bench ...) each rank runs --batch rows and the step sums the gradients\n"
    "as cpuft train does: the report adds the allreduce per step, its exposed part, the share hidden behind\n"
    "backward and the scaling efficiency against one rank.\n";

struct BenchArgs {
  std::string config;
  ModelConfig model;
  int batch = 8, seq = 384, steps = 5, warmup = 2, threads = 0;
  bool bf16 = false, eval = false, json = false, profile = false;
  WireType wire = WireType::kF32;
  double bucket_mb = 25;
};

// Reads the flags into `a`; false when --help was asked for (its text in *help).
bool parse(const Argv& argv, BenchArgs& a, std::string* help) {
  constexpr int64_t kMaxCount = 1000000;  // far beyond any real shape, far from overflowing a product of them
  FlagTable t("bench", kBenchAbout);
  t.group("Model");
  t.text("config", "FILE", &a.config, "a config.json; the shape flags below are then not used");
  t.choice<ModelFamily>("model_type", &a.model.family,
                        {{"distilbert", ModelFamily::kDistilBert}, {"bert", ModelFamily::kBert}}, "the encoder family");
  t.integer("hidden", &a.model.hidden, 1, kMaxCount, "hidden size");
  t.integer("layers", &a.model.layers, 1, kMaxCount, "encoder layers");
  t.integer("heads", &a.model.heads, 1, kMaxCount, "attention heads (--hidden must be a multiple)");
  t.integer("intermediate", &a.model.intermediate, 1, kMaxCount, "feed-forward width");
  t.integer("vocab", &a.model.vocab_size, 1, kMaxCount, "vocabulary size");
  t.group("Steps");
  t.integer("batch", &a.batch, 1, kMaxCount, "rows per step (per rank under mpirun)");
  t.integer("seq", &a.seq, 1, kMaxCount, "tokens per row, at most the model's max_position_embeddings");
  t.integer("steps", &a.steps, 1, kMaxCount, "timed steps");
  t.integer("warmup", &a.warmup, 0, kMaxCount, "untimed steps before them");
  t.integer("threads", &a.threads, 0, 1024, "OpenMP threads (0: the cores of this process's share)");
  t.boolean("bf16", &a.bf16, "BF16 mixed precision (otherwise FP32)");
  t.boolean("eval", &a.eval, "time forward passes only (evaluation), no backward or optimizer");
  t.boolean("profile", &a.profile, "also print the share of the step each kind of operation takes");
  t.boolean("json", &a.json, "print one JSON object instead of the text report");
  t.group("Under mpirun");
  t.choice<WireType>("allreduce_dtype", &a.wire, {{"f32", WireType::kF32}, {"bf16", WireType::kBf16}},
                     "element type of gradients on the wire");
  // Unlike cpuft train (at least 1 MiB), buckets below 1 MiB are allowed: they are how a tiny model is timed
  // with several buckets. The largest is train's: above 4 GiB there is no overlap left to measure.
  t.number("bucket_size_mb", &a.bucket_mb, above(0, 4096), "gradient bucket size in MiB");
  if (parse_flags(t, argv).help) {
    *help = flag_help(t);
    return false;
  }
  if (!a.config.empty()) {
    a.model = load_model_config(a.config);
  } else {
    if (a.model.family == ModelFamily::kBert) {
      a.model.type_vocab_size = 2;
      a.model.qa_dropout = 0.f;
    }
    if (a.model.hidden % a.model.heads != 0)
      fail("--hidden: found ", a.model.hidden, ", expected a multiple of --heads (", a.model.heads, ")");
  }
  if (a.seq > a.model.max_position_embeddings)
    fail("--seq: found ", a.seq, ", expected at most max_position_embeddings (", a.model.max_position_embeddings, ")");
  return true;
}

// Seconds per step of each op kind over the timed steps, largest first, and what no op scope covered
// ("other") last.
using Profile = std::vector<std::pair<std::string, double>>;

Profile collect_profile(double total_s, int steps) {
  const OpTotals t = op_profile_totals();
  Profile p;
  double covered = 0;
  for (int i = 0; i < static_cast<int>(Op::kCount); ++i) {
    if (t.calls[i] == 0) continue;
    p.emplace_back(op_name(static_cast<Op>(i)), t.seconds[i] / steps);
    covered += t.seconds[i];
  }
  std::sort(p.begin(), p.end(), [](const auto& x, const auto& y) { return x.second > y.second; });
  p.emplace_back("other", std::max(0.0, total_s - covered) / steps);
  return p;
}

long peak_rss_mib() {
  struct rusage ru;
  ::getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss / 1024;
}

// One line of the text report: the label in a column of its own.
void row(const std::string& label, const std::string& value) {
  std::printf("  %-29s%s\n", label.c_str(), value.c_str());
}

std::string fmt(const char* f, double x) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), f, x);
  return buf;
}

void print_text(const BenchArgs& a, const Communicator& comm, double t, double achieved, const PeakReading& reading,
                double total, const Profile& prof, const DataParallelFigures* dp) {
  const double peak = reading.gflops;
  const int ranks = comm.size();
  std::printf("cpuft bench: %s %s, %lld layers, hidden %lld, batch %d x seq %d, %d threads, %s\n",
              a.eval ? "forward" : "training step", a.bf16 ? "bf16" : "fp32", static_cast<long long>(a.model.layers),
              static_cast<long long>(a.model.hidden), a.batch, a.seq, omp_get_max_threads(),
              describe_gemm().c_str());
  if (dp)
    std::printf("  %d ranks on %d node(s), batch %d per rank; %s gradients in %d buckets of %g MB (%.1f MB per step);\n"
                "  MPI progress %s\n",
                ranks, comm.node_count(), a.batch, wire_type_name(a.wire), dp->buckets,
                a.bucket_mb, dp->megabytes,
                dp->progress_thread ? "by a thread on rank 0's spare CPUs"
                                    : "at backward's gradient marks (rank 0 has no spare CPU for a thread)");
  const std::string all = dp ? " (all ranks)" : "";
  row("step time (median of " + std::to_string(a.steps) + ")", fmt("%.3f s", t));
  row("samples/s" + all, fmt("%.2f", ranks * a.batch / t));
  row("tokens/s" + all, fmt("%.0f", ranks * a.batch * a.seq / t));
  row(std::string("achieved GFLOP/s") + (dp ? " (per rank)" : ""), fmt("%.1f", achieved));
  row(std::string("oneDNN ") + (a.bf16 ? "bf16" : "f32") + " matmul peak", fmt("%.1f GFLOP/s (2048^3, model's weight layout, same run)", peak));
  row("share of peak (MFU)", fmt("%.1f%%", 100.0 * achieved / peak));
  if (reading.below_step)
    std::printf("  (the peak read below the step's own rate in all %d timings: the machine was busy while it was\n"
                "   timed, so this MFU is not a measure; run again on an idle machine)\n",
                reading.readings);
  row("peak RSS", fmt("%.0f MiB", static_cast<double>(peak_rss_mib())));
  if (dp) {
    row("one-rank step (no allreduce)", fmt("%.3f s", dp->local_step_s));
    row("scaling efficiency", fmt("%.1f%% (one-rank step / data-parallel step)", 100.0 * dp->efficiency()));
    row("allreduce per step", fmt("%.1f ms (some bucket in flight)", 1e3 * dp->allreduce_s));
    row("allreduce exposed", fmt("%.1f ms (the wait after backward)", 1e3 * dp->exposed_s));
    row("  of which the slowest rank", fmt("%.1f ms (ranks that ended backward first wait for it)", 1e3 * dp->straggler_s));
    row("allreduce alone", fmt("%.1f ms (the same buckets, nothing else running)", 1e3 * dp->alone_s));
    row("allreduce of 8 bytes", fmt("%.3f ms (blocking: the cost of one message)", 1e3 * dp->latency_s));
    std::printf("  allreduce hidden %.1f%%\n", 100.0 * dp->hidden());
    std::printf("  (1 - exposed / allreduce per step, the wait for the slowest rank left out of both)\n");
  }
  if (a.profile) {
    std::printf("  profile (mean over the %d timed steps)\n", a.steps);
    const double mean = total / a.steps;
    for (const auto& [name, s] : prof)
      std::printf("    %-12s %9.1f ms  %5.1f%%\n", name.c_str(), 1e3 * s, 100.0 * s / mean);
  }
  std::fflush(stdout);
}

}  // namespace

int cmd_bench(const Argv& argv, Communicator& comm, const StartComm& start_comm) {
  BenchArgs a;
  std::string help;
  const bool run = parse(argv, a, &help);
  start_comm({});
  if (!run) {
    if (comm.is_root()) std::fputs(help.c_str(), stdout);
    return 0;
  }
  const bool data_parallel = comm.size() > 1;
  if (data_parallel && a.eval) fail("--eval: times one process; under mpirun cpuft bench times training steps");
  const RankPlacement place = configure_threads(a.threads, comm);
  onednn_prepare();
  QaModel model(a.model, a.bf16, 42);
  reserve_activations(model, a.batch, a.seq, /*training=*/!a.eval, "--batch", "--seq");
  std::optional<AdamW> opt;  // training only: its moments are memory a forward pass does not need
  if (!a.eval) opt.emplace(model, AdamWConfig{});
  std::unique_ptr<GradBuckets> buckets;
  if (data_parallel) buckets = make_grad_buckets(comm, model, a.bucket_mb, a.wire, place.spare_cpus);

  // Random windows of --seq tokens (each rank its own rows), answers three tokens long.
  std::mt19937 rng(1234 + static_cast<unsigned>(comm.rank()));
  BatchBuffers batch;
  batch.rows = a.batch;
  batch.seq_len = a.seq;
  const size_t n = static_cast<size_t>(a.batch) * a.seq;
  batch.input_ids.resize(n);
  for (auto& t : batch.input_ids) t = static_cast<int32_t>(rng() % static_cast<uint32_t>(a.model.vocab_size));
  batch.token_type_ids.assign(n, 0);
  batch.attention_mask.assign(n, 1);
  for (int b = 0; b < a.batch; ++b) {
    batch.start_positions.push_back(static_cast<int32_t>(rng() % static_cast<uint32_t>(a.seq)));
    batch.end_positions.push_back(std::min<int32_t>(a.seq - 1, batch.start_positions.back() + 3));
  }
  const int64_t row_offset = static_cast<int64_t>(comm.rank()) * a.batch;
  std::vector<float> sl(n), el(n);

  // One training step as the trainer runs it (train/train_step.h); with `allreduce`, each rank's loss
  // weighs 1 / ranks and the buckets sum the gradients while backward runs, waited for before clipping.
  uint64_t seed = 0;
  auto train_step = [&](bool allreduce) -> double {
    const double t0 = now_s();
    micro_batch(model, allreduce ? buckets.get() : nullptr, /*last=*/true, batch, row_offset, seed++,
                allreduce ? 1.0f / static_cast<float>(comm.size()) : 1.0f);
    const double backward_end = now_s() - t0;
    if (allreduce) buckets->wait_all();
    optimizer_step(model, *opt, 1.0, 5e-5);
    return backward_end;
  };

  std::vector<double> times;
  std::optional<DataParallelFigures> dp;
  op_profile_enable(a.profile);
  if (data_parallel) {
    auto allreduce_only = [&] {
      buckets->note_rows(batch.input_ids.data(), batch.input_ids.size());
      empty_micro_batch(model, *buckets);  // every gradient ready at once
      buckets->wait_all();
    };
    dp = time_data_parallel(comm, *buckets, train_step, allreduce_only, a.warmup, a.steps);
  } else {
    for (int s = 0; s < a.warmup + a.steps; ++s) {
      if (s == a.warmup) op_profile_reset();
      const double t0 = now_s();
      if (a.eval)
        model.forward(batch_view(batch), sl.data(), el.data());
      else
        train_step(false);
      if (s >= a.warmup) times.push_back(now_s() - t0);
    }
  }
  op_profile_enable(false);
  const double t = dp ? dp->step_s : median(times);
  double total = 0;
  for (double x : times) total += x;
  if (dp) total = t * a.steps;  // the profile covers the data-parallel steps
  const Profile prof = a.profile ? collect_profile(total, a.steps) : Profile{};
  const double flops = step_flops(a.model, a.batch, a.seq, !a.eval);
  const double achieved = flops / t / 1e9;
  const PeakReading reading = peak_for_step(achieved, [&] { return gemm_peak_gflops(a.bf16); });
  const double peak = reading.gflops;
  if (!comm.is_root()) return 0;
  if (a.json) {
    // The same figures as the text report, for scripts (bench/compare.sh); keys as the PyTorch bench's.
    nlohmann::json j = {
        {"side", "cpuft"}, {"mode", a.eval ? "eval" : "train"}, {"dtype", a.bf16 ? "bf16" : "fp32"},
        {"layers", a.model.layers}, {"hidden", a.model.hidden}, {"params", model.num_params()}, {"batch", a.batch},
        {"seq", a.seq},
        {"threads", omp_get_max_threads()}, {"steps", a.steps}, {"step_s", t},
        {"samples_per_s", comm.size() * a.batch / t}, {"tokens_per_s", comm.size() * a.batch * a.seq / t},
        {"gflops", achieved}, {"peak_gflops", peak}, {"peak_readings", reading.readings},
        {"peak_below_step", reading.below_step}, {"mfu", achieved / peak}, {"peak_rss_mib", peak_rss_mib()},
        {"backend", describe_gemm()}};
    if (dp) {
      j["ranks"] = comm.size();
      j["nodes"] = comm.node_count();
      j["allreduce_dtype"] = wire_type_name(a.wire);
      j["bucket_size_mb"] = a.bucket_mb;
      j["buckets"] = dp->buckets;
      j["progress_thread"] = dp->progress_thread;
      j["allreduce_mb_per_step"] = dp->megabytes;
      j["local_step_s"] = dp->local_step_s;
      j["scaling_efficiency"] = dp->efficiency();
      j["allreduce_s"] = dp->allreduce_s;
      j["allreduce_exposed_s"] = dp->exposed_s;
      j["straggler_s"] = dp->straggler_s;
      j["allreduce_alone_s"] = dp->alone_s;
      j["allreduce_8b_s"] = dp->latency_s;
      j["allreduce_hidden"] = dp->hidden();
      nlohmann::json ready = nlohmann::json::array();
      for (const auto& [t, floats] : dp->ready) ready.push_back({t, floats});
      j["ready_profile"] = {{"step_s", dp->last_step_s}, {"backward_end_s", dp->backward_end_s}, {"ready", ready}};
    }
    if (a.profile) {
      nlohmann::json ops = nlohmann::json::object();
      for (const auto& [name, s] : prof) ops[name] = s;
      j["profile_s_per_step"] = ops;
    }
    std::printf("%s\n", j.dump().c_str());
    return 0;
  }
  print_text(a, comm, t, achieved, reading, total, prof, dp ? &*dp : nullptr);
  return 0;
}

}  // namespace cpuft
