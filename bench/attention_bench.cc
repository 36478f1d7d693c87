// The attention core of one DistilBERT layer as the model calls it (model/attention.h): 8 sequences x
// 384 tokens, hidden 768, 12 heads of 64, on all OpenMP threads: full windows (`cpuft bench`'s shape) or
// right-padded ones as in SQuAD (35-100% full, about a third of the positions padding); or the same rows
// as 24 full windows of 128 tokens (the b32 s128 training row's attention). Each pass is timed
// alone: the evaluation forward (no dropout), the training forward (attention dropout 0.1 drawn and
// kept as bits) and the backward (scores recomputed, the kept bits applied). GFLOP counts the products
// over the attended keys only (what the kernels compute), so it is comparable across passes.
#include <benchmark/benchmark.h>

#include <omp.h>

#include <cstdint>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "cpuft/cpu/isa.h"
#include "cpuft/kernels/gemm.h"
#include "cpuft/kernels/softmax.h"
#include "cpuft/model/attention.h"
#include "cpuft/tensor/bf16.h"
#include "cpuft/util/aligned_vector.h"

namespace cpuft {
namespace {

constexpr int64_t kB = 8, kT = 384, kH = 768, kHeads = 12, kHeadDim = kH / kHeads, kN = kB * kT;
constexpr int64_t kSquadLengths[kB] = {384, 384, 210, 180, 250, 140, 300, 160};

enum class Pass { kEvalForward, kTrainForward, kBackward };

struct Inputs {
  AlignedVector<float> qkv, dctx, ctx, dqkv, dbias, tiles, stats;
  AlignedVector<uint16_t> qkv16, dctx16, ctx16, dqkv16;
  std::vector<int8_t> mask;
  std::vector<uint8_t> keep;
  explicit Inputs(bool padded) {
    std::mt19937 rng(3);
    std::normal_distribution<float> n(0.0f, 1.0f);
    // Aligned, and on huge pages where the system allows, as the model's activations are (util/aligned_vector.h).
    qkv.resize(static_cast<size_t>(kN * 3 * kH));
    dctx.resize(static_cast<size_t>(kN * kH));
    for (float& x : qkv) x = n(rng);
    for (float& x : dctx) x = 0.01f * n(rng);
    ctx.resize(dctx.size());
    dqkv.resize(qkv.size());
    dqkv16.resize(qkv.size());
    dbias.assign(static_cast<size_t>(3 * kH), 0.0f);
    qkv16.resize(qkv.size());
    dctx16.resize(dctx.size());
    ctx16.resize(dctx.size());
    f32_to_bf16_array(qkv.data(), qkv16.data(), static_cast<int64_t>(qkv.size()));
    f32_to_bf16_array(dctx.data(), dctx16.data(), static_cast<int64_t>(dctx.size()));
    mask.assign(static_cast<size_t>(kN), 0);
    for (int64_t b = 0; b < kB; ++b)
      for (int64_t t = 0; t < (padded ? kSquadLengths[b] : kT); ++t) mask[static_cast<size_t>(b * kT + t)] = 1;
    keep.resize(static_cast<size_t>(kB * kHeads * attention_keep_bytes(kT)));
    stats.resize(static_cast<size_t>(attention_stats_floats(kB, kHeads, kT)));
    tiles.resize(static_cast<size_t>(omp_get_max_threads() * kTilesPerThread * kT * kT));
  }
};

// Args: pass (0 evaluation forward, 1 training forward, 2 backward), bf16 (0 f32 mode, 1 bf16 mode),
// padded (0 full windows, 1 SQuAD-like lengths), T (384; or 128: the same rows as 24 full windows of 128).
void BM_AttentionCore(benchmark::State& state) {
  const auto pass = static_cast<Pass>(state.range(0));
  const bool bf16 = state.range(1) != 0, padded = state.range(2) != 0;
  const int64_t T = state.range(3), B = kN / T;
  static Inputs full(false), squad(true);
  Inputs& in = padded ? squad : full;
  const AttentionShape shape{B, T, kH, kHeads};
  const ScoreScale scale = score_scale(/*distilbert=*/true, kHeadDim);  // as the model's layers
  AttentionDropout drop{0.1f, 42, 7, 0, in.keep.data()};
  const AttentionDropout none{};
  // The backward applies the bits of a drawing forward.
  if (pass == Pass::kBackward)
    attention_fwd(in.ctx.data(), in.ctx16.data(), in.tiles.data(), in.stats.data(), bf16 ? nullptr : in.qkv.data(),
                  bf16 ? in.qkv16.data() : nullptr, in.mask.data(), shape, scale.scores, drop);
  for (auto _ : state) {
    if (pass == Pass::kBackward)
      attention_bwd(bf16 ? nullptr : in.dqkv.data(), bf16 ? in.dqkv16.data() : nullptr,
                    bf16 ? in.dbias.data() : nullptr, in.tiles.data(), in.stats.data(), bf16 ? nullptr : in.dctx.data(),
                    bf16 ? in.dctx16.data() : nullptr, bf16 ? nullptr : in.qkv.data(), bf16 ? in.qkv16.data() : nullptr,
                    in.mask.data(), shape, scale.scores, scale.dq, drop);
    else
      attention_fwd(in.ctx.data(), in.ctx16.data(), in.tiles.data(),
                    pass == Pass::kTrainForward ? in.stats.data() : nullptr, bf16 ? nullptr : in.qkv.data(),
                    bf16 ? in.qkv16.data() : nullptr, in.mask.data(), shape, scale.scores,
                    pass == Pass::kTrainForward ? drop : none);
  }
  // Forward: scores and P V, 2 products; backward: scores again, dV, dP, dQ, dK, 5 products.
  double flops = 0;
  if (padded)
    for (int64_t len : kSquadLengths) flops += 2.0 * kT * len * kHeadDim * kHeads;
  else
    flops = 2.0 * B * T * T * kHeadDim * kHeads;
  flops *= pass == Pass::kBackward ? 5 : 2;
  state.counters["GFLOP"] = benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(!bf16 ? "f32" : tile_matmul_bf16_native() ? std::string("bf16 tiles at ") + isa_name(kernel_isa()) : std::string("bf16 as f32 products"));
}
BENCHMARK(BM_AttentionCore)
    ->ArgsProduct({{0, 1, 2}, {0, 1}, {0, 1}, {kT}})
    ->ArgsProduct({{0, 1, 2}, {0, 1}, {0}, {128}})
    ->ArgNames({"pass", "bf16", "padded", "T"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// The parts of one sequence-head's attention (a full window, dropout 0.1) on one thread, timed apart, as
// attention_fwd and attention_bwd call them: the tile products and the softmax passes (training's
// forward, with the dropout; backward's, part 5, the probabilities from the forward's row statistics and
// their gradient, run over its own output after the first iteration, the same work; the evaluation's,
// part 8). In bf16 mode (E = uint16_t: bf16 tiles, the scores rounded as they are read) or f32 mode
// (E = float), at head size 64 (DistilBERT's) or 32 (MiniLM's: products half as long, the softmax
// passes as long). GFLOP counts the product's FLOPs (none for a softmax pass), so the products' rates
// compare with BM_AttentionTile and the passes' times with the products'. Args: part, T (the window),
// bf16, head size.
enum class Part {
  kScores,
  kSoftmaxDropout,
  kContext,
  kValueGrad,
  kProbsGrad,
  kSoftmaxGrad,
  kQueryGrad,
  kKeyGrad,
  kSoftmax  // the evaluation's softmax: no dropout
};

// C = alpha op(A) op(B) on one thread, as model/attention.cc's products: f32, or bf16 stored as `store`.
void tile_product(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
                  const float* b, int64_t ldb, void* c, int64_t ldc, TileStore /*f32 only*/) {
  tile_matmul(ta, tb, m, n, k, alpha, a, lda, b, ldb, static_cast<float*>(c), ldc);
}
void tile_product(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const uint16_t* a, int64_t lda,
                  const uint16_t* b, int64_t ldb, void* c, int64_t ldc, TileStore store) {
  tile_matmul_bf16(ta, tb, m, n, k, alpha, a, lda, b, ldb, c, ldc, store);
}

template <class E>
void attention_parts(benchmark::State& state, Part part, int64_t T, int64_t D) {
  constexpr bool kBf16 = std::is_same_v<E, uint16_t>;
  const int64_t H3 = 3 * kH;
  static Inputs in(false);
  const E* q;
  const E* dc;
  void* ctx;
  if constexpr (kBf16) {
    q = in.qkv16.data(), dc = in.dctx16.data(), ctx = in.ctx16.data();
  } else {
    q = in.qkv.data(), dc = in.dctx.data(), ctx = in.ctx.data();
  }
  const E *k = q + kH, *v = q + 2 * kH;
  float* dq = in.dqkv.data();
  float *p = in.tiles.data(), *dp = p + T * T;
  AlignedVector<E> pd(static_cast<size_t>(T * T)), ds(pd.size());
  // The softmax's E outputs as its f32 or bf16 arguments.
  float* pd32 = nullptr;
  float* ds32 = nullptr;
  uint16_t* pd16 = nullptr;
  uint16_t* ds16 = nullptr;
  if constexpr (kBf16) {
    pd16 = pd.data(), ds16 = ds.data();
  } else {
    pd32 = pd.data(), ds32 = ds.data();
  }
  const SoftmaxDropout drop{0.1f, 42, 7, 0, in.keep.data()};
  const float scale = score_scale(/*distilbert=*/true, D).scores;  // as the model's layers
  const ScoreRead read{scale, kBf16};
  const int8_t* mask = nullptr;  // a full window: the attention passes no mask (softmax_mask)
  const int rows = static_cast<int>(T);
  tile_product(false, true, T, T, D, 1.f, q, H3, k, H3, p, T, TileStore::kF32);
  AlignedVector<float> scores(p, p + T * T), stats(static_cast<size_t>(2 * T));
  softmax_dropout_fwd(p, pd32, pd16, p, mask, rows, rows, read, kMaskLowestF32, drop, stats.data());
  const bool pass = part == Part::kSoftmaxDropout || part == Part::kSoftmaxGrad || part == Part::kSoftmax;
  const double flops = pass ? 0.0 : 2.0 * T * T * D;
  // One thread, and so are the softmax passes' own parallel loops: inside a team of one they would
  // open a team of all threads, which the model's attention (its loop over sequence-heads on every
  // thread) never does.
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  const TileStore ctx_store = kBf16 ? TileStore::kBf16 : TileStore::kF32;
  for (auto _ : state) {
    switch (part) {
      case Part::kScores: tile_product(false, true, T, T, D, 1.f, q, H3, k, H3, p, T, TileStore::kF32); break;
      case Part::kSoftmaxDropout:
        softmax_dropout_fwd(p, pd32, pd16, scores.data(), mask, rows, rows, read, kMaskLowestF32, drop, stats.data());
        break;
      case Part::kSoftmax: softmax_fwd(p, pd16, scores.data(), mask, 1, 1, rows, rows, read, kMaskLowestF32); break;
      case Part::kContext: tile_product(false, false, T, D, T, 1.f, pd.data(), T, v, H3, ctx, kH, ctx_store); break;
      case Part::kValueGrad:
        tile_product(true, false, T, D, T, 1.f, pd.data(), T, dc, kH, dq + 2 * kH, H3, TileStore::kF32);
        break;
      case Part::kProbsGrad: tile_product(false, true, T, T, D, 1.f, dc, kH, v, H3, dp, T, TileStore::kF32); break;
      case Part::kSoftmaxGrad:
        softmax_recompute_bwd(ds32, ds16, pd32, pd16, scores.data(), dp, mask, rows, rows, read, kMaskLowestF32,
                              stats.data(), &drop);
        break;
      case Part::kQueryGrad:
        tile_product(false, false, T, D, T, scale, pd.data(), T, k, H3, dq, H3, TileStore::kF32);
        break;
      case Part::kKeyGrad:
        tile_product(true, false, T, D, T, scale, pd.data(), T, q, H3, dq + kH, H3, TileStore::kF32);
        break;
    }
  }
  omp_set_num_threads(threads);
  state.counters["GFLOP"] = benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(!kBf16                      ? std::string("f32")
                 : tile_matmul_bf16_native() ? std::string("bf16 tiles at ") + isa_name(kernel_isa())
                                             : std::string("bf16 as f32 products"));
}

void BM_AttentionPart(benchmark::State& state) {
  const auto part = static_cast<Part>(state.range(0));
  const int64_t T = state.range(1), D = state.range(3);
  if (state.range(2))
    attention_parts<uint16_t>(state, part, T, D);
  else
    attention_parts<float>(state, part, T, D);
}
BENCHMARK(BM_AttentionPart)
    ->ArgsProduct({benchmark::CreateDenseRange(0, 8, 1), {kT, 128}, {1}, {kHeadDim}})
    ->ArgsProduct({benchmark::CreateDenseRange(0, 8, 1), {kT, 192}, {0}, {kHeadDim, 32}})
    ->ArgNames({"part", "T", "bf16", "D"})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

}  // namespace
}  // namespace cpuft
