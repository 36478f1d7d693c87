// The attention core of one DistilBERT layer as the model calls it (model/attention.h): 8 sequences x
// 384 tokens, hidden 768, 12 heads of 64, on all OpenMP threads: full windows (`cpuft bench`'s shape) or
// right-padded ones as in SQuAD (35-100% full, about a third of the positions padding). Each pass is timed
// alone: the evaluation forward (no dropout), the training forward (attention dropout 0.1 drawn and
// kept as bits) and the backward (scores recomputed, the kept bits applied). GFLOP counts the products
// over the attended keys only (what the kernels compute), so it is comparable across passes.
#include <benchmark/benchmark.h>

#include <omp.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "cpuft/cpu/isa.h"
#include "cpuft/kernels/gemm.h"
#include "cpuft/model/attention.h"
#include "cpuft/tensor/bf16.h"

namespace cpuft {
namespace {

constexpr int64_t kB = 8, kT = 384, kH = 768, kHeads = 12, kHeadDim = kH / kHeads, kN = kB * kT;
constexpr int64_t kSquadLengths[kB] = {384, 384, 210, 180, 250, 140, 300, 160};

enum class Pass { kEvalForward, kTrainForward, kBackward };

struct Inputs {
  std::vector<float> qkv, dctx, ctx, dqkv, tiles;
  std::vector<uint16_t> qkv16, dctx16, ctx16;
  std::vector<int8_t> mask;
  std::vector<uint8_t> keep;
  explicit Inputs(bool padded) {
    std::mt19937 rng(3);
    std::normal_distribution<float> n(0.0f, 1.0f);
    qkv.resize(static_cast<size_t>(kN * 3 * kH));
    dctx.resize(static_cast<size_t>(kN * kH));
    for (float& x : qkv) x = n(rng);
    for (float& x : dctx) x = 0.01f * n(rng);
    ctx.resize(dctx.size());
    dqkv.resize(qkv.size());
    qkv16.resize(qkv.size());
    dctx16.resize(dctx.size());
    ctx16.resize(dctx.size());
    f32_to_bf16_array(qkv.data(), qkv16.data(), static_cast<int64_t>(qkv.size()));
    f32_to_bf16_array(dctx.data(), dctx16.data(), static_cast<int64_t>(dctx.size()));
    mask.assign(static_cast<size_t>(kN), 0);
    for (int64_t b = 0; b < kB; ++b)
      for (int64_t t = 0; t < (padded ? kSquadLengths[b] : kT); ++t) mask[static_cast<size_t>(b * kT + t)] = 1;
    keep.resize(static_cast<size_t>(kB * kHeads * attention_keep_bytes(kT)));
    tiles.resize(static_cast<size_t>(omp_get_max_threads() * kTilesPerThread * kT * kT));
  }
};

// Args: pass (0 evaluation forward, 1 training forward, 2 backward), bf16 (0 f32 mode, 1 bf16 mode),
// padded (0 full windows, 1 SQuAD-like lengths).
void BM_AttentionCore(benchmark::State& state) {
  const auto pass = static_cast<Pass>(state.range(0));
  const bool bf16 = state.range(1) != 0, padded = state.range(2) != 0;
  static Inputs full(false), squad(true);
  Inputs& in = padded ? squad : full;
  const AttentionShape shape{kB, kT, kH, kHeads};
  const float scale = 1.0f;  // DistilBERT: q already divided by sqrt(64)
  AttentionDropout drop{0.1f, 42, 7, 0, in.keep.data()};
  const AttentionDropout none{};
  // The backward applies the bits of a drawing forward.
  if (pass == Pass::kBackward)
    attention_fwd(in.ctx.data(), in.ctx16.data(), in.tiles.data(), bf16 ? nullptr : in.qkv.data(),
                  bf16 ? in.qkv16.data() : nullptr, in.mask.data(), shape, scale, drop);
  for (auto _ : state) {
    if (pass == Pass::kBackward)
      attention_bwd(in.dqkv.data(), in.tiles.data(), bf16 ? nullptr : in.dctx.data(), bf16 ? in.dctx16.data() : nullptr,
                    bf16 ? nullptr : in.qkv.data(), bf16 ? in.qkv16.data() : nullptr, in.mask.data(), shape, scale,
                    scale, drop);
    else
      attention_fwd(in.ctx.data(), in.ctx16.data(), in.tiles.data(), bf16 ? nullptr : in.qkv.data(),
                    bf16 ? in.qkv16.data() : nullptr, in.mask.data(), shape, scale,
                    pass == Pass::kTrainForward ? drop : none);
  }
  // Forward: scores and P V, 2 products; backward: scores again, dV, dP, dQ, dK, 5 products.
  double flops = 0;
  for (int64_t len : kSquadLengths) flops += 2.0 * kT * (padded ? len : kT) * kHeadDim * kHeads;
  flops *= pass == Pass::kBackward ? 5 : 2;
  state.counters["GFLOP"] = benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(!bf16 ? "f32" : tile_matmul_bf16_native() ? std::string("bf16 tiles at ") + isa_name(kernel_isa()) : std::string("bf16 as f32 products"));
}
BENCHMARK(BM_AttentionCore)
    ->ArgsProduct({{0, 1, 2}, {0, 1}, {0, 1}})
    ->ArgNames({"pass", "bf16", "padded"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace cpuft
