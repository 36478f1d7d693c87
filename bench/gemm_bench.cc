// Matrix-product throughput on the DistilBERT training shapes (8 sequences x 384 tokens = 3072
// rows; hidden 768, FFN 3072, 12 heads of 64), in f32 and bf16, plus a large square product as the
// machine's practical peak, a streaming copy for memory bandwidth and the weight gradient's dy^T copy.
// Counters are rates, shown as GFLOP=x/s (floating-point operations) and GB=x/s (bytes read + written).
#include <benchmark/benchmark.h>
#include <dnnl.hpp>

#include <cstring>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "cpuft/cpu/isa.h"
#include "cpuft/kernels/gemm.h"
#include "cpuft/kernels/gemm_primitives.h"
#include "cpuft/kernels/transpose.h"
#include "cpuft/kernels/weight_blocks.h"
#include "cpuft/tensor/bf16.h"
#include "cpuft/tensor/dtype.h"
#include "cpuft/util/aligned_vector.h"

namespace cpuft {
namespace {

constexpr int64_t kTokens = 8 * 384;

// n values of one dtype in plain storage: the products take a raw pointer and the dtype.
class Buffer {
 public:
  Buffer(DType t, int64_t n) : words_((static_cast<size_t>(n) * dtype_size(t) + 3) / 4) {}
  void* raw() { return words_.data(); }
  template <typename T>
  T* data() {
    return reinterpret_cast<T*>(words_.data());
  }

 private:
  AlignedVector<float> words_;
};

// Random values in [-1, 1) (bf16 ones are rounded from f32).
Buffer random_values(DType t, int64_t n, uint32_t seed) {
  Buffer x(t, n);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (int64_t i = 0; i < n; ++i) {
    if (t == DType::kF32)
      x.data<float>()[i] = u(rng);
    else
      x.data<uint16_t>()[i] = f32_to_bf16(u(rng));
  }
  return x;
}

void set_gflops(benchmark::State& state, double flops_per_iter) {
  state.counters["GFLOP"] =
      benchmark::Counter(flops_per_iter * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

enum class LinearOp { kForward, kBackwardData, kBackwardWeight };

// Args: N (out features), K (in features), dtype (0 f32, 1 bf16).
template <LinearOp op>
void BM_Linear(benchmark::State& state) {
  const int64_t M = kTokens, N = state.range(0), K = state.range(1);
  const DType in = state.range(2) ? DType::kBf16 : DType::kF32;
  Buffer x = random_values(in, M * K, 1), w = random_values(in, N * K, 2), dy = random_values(in, M * N, 3);
  Buffer bias = random_values(DType::kF32, N, 4);
  Buffer y(DType::kF32, M * N), dx(DType::kF32, M * K), dw(DType::kF32, N * K);
  for (auto _ : state) {
    if (op == LinearOp::kForward)
      linear_forward(M, N, K, x.raw(), w.raw(), in, bias.data<float>(), y.raw());
    else if (op == LinearOp::kBackwardData)
      linear_backward_data(M, N, K, dy.raw(), w.raw(), in, dx.raw());
    else
      linear_backward_weight(M, N, K, dy.raw(), x.raw(), in, dw.data<float>(), /*accumulate=*/true);
  }
  set_gflops(state, 2.0 * M * N * K);
  if (in == DType::kBf16) state.SetLabel(gemm_bf16_native() ? "bf16 native" : "bf16 emulated in f32");
}

void linear_args(benchmark::internal::Benchmark* b) {
  for (int dtype : {0, 1}) {
    b->Args({768, 768, dtype});   // q, k, v, out projections
    b->Args({3072, 768, dtype});  // lin1
    b->Args({768, 3072, dtype});  // lin2
  }
  b->ArgNames({"N", "K", "bf16"})->Unit(benchmark::kMillisecond)->UseRealTime();
}

BENCHMARK_TEMPLATE(BM_Linear, LinearOp::kForward)->Apply(linear_args);
BENCHMARK_TEMPLATE(BM_Linear, LinearOp::kBackwardData)->Apply(linear_args);
BENCHMARK_TEMPLATE(BM_Linear, LinearOp::kBackwardWeight)->Apply(linear_args);

// The attention core's products for one (sequence, head) at 384 tokens and head size 64, on one
// thread (each thread runs its own tiles): scores = Q K^T and context = P V, as f32 products or as
// bf16 ones (AVX512_BF16 dot products where the CPU has them). Args: bf16 (0, 1).
void BM_AttentionTile(benchmark::State& state) {
  const int64_t T = 384, D = 64, H = 768;
  const bool bf16 = state.range(0) != 0;
  std::vector<float> q(static_cast<size_t>(T * H)), k(q.size()), v(q.size()), p(static_cast<size_t>(T * T));
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (auto* x : {&q, &k, &v, &p})
    for (float& e : *x) e = u(rng);
  std::vector<uint16_t> q16(q.size()), k16(q.size()), v16(q.size()), p16(p.size()), ctx16(q.size());
  f32_to_bf16_array(q.data(), q16.data(), static_cast<int64_t>(q.size()));
  f32_to_bf16_array(k.data(), k16.data(), static_cast<int64_t>(k.size()));
  f32_to_bf16_array(v.data(), v16.data(), static_cast<int64_t>(v.size()));
  f32_to_bf16_array(p.data(), p16.data(), static_cast<int64_t>(p.size()));
  std::vector<float> s(static_cast<size_t>(T * T)), ctx(static_cast<size_t>(T * H));
  for (auto _ : state) {
    if (bf16) {
      tile_matmul_bf16(false, true, T, T, D, 1.0f, q16.data(), H, k16.data(), H, s.data(), T, TileStore::kF32);
      tile_matmul_bf16(false, false, T, D, T, 1.0f, p16.data(), T, v16.data(), H, ctx16.data(), H, TileStore::kBf16);
    } else {
      tile_matmul(false, true, T, T, D, 0.125f, q.data(), H, k.data(), H, s.data(), T);
      tile_matmul(false, false, T, D, T, 1.0f, p.data(), T, v.data(), H, ctx.data(), H);
    }
  }
  set_gflops(state, 2.0 * 2.0 * T * T * D);
  state.SetLabel(!bf16 ? "f32" : tile_matmul_bf16_native() ? std::string("bf16 tiles at ") + isa_name(kernel_isa()) : std::string("bf16 as f32 products"));
}
BENCHMARK(BM_AttentionTile)->Arg(0)->Arg(1)->ArgName("bf16")->Unit(benchmark::kMicrosecond)->UseRealTime();

// A large square product: close to the best this machine and oneDNN reach.
void BM_SquarePeak(benchmark::State& state) {
  const int64_t n = state.range(0);
  const DType in = state.range(1) ? DType::kBf16 : DType::kF32;
  Buffer a = random_values(in, n * n, 1), b = random_values(in, n * n, 2);
  Buffer c(DType::kF32, n * n);
  for (auto _ : state) linear_forward(n, n, n, a.raw(), b.raw(), in, nullptr, c.raw());
  set_gflops(state, 2.0 * n * n * n);
}
BENCHMARK(BM_SquarePeak)->Args({2048, 0})->Args({2048, 1})->ArgNames({"n", "bf16"})
    ->Unit(benchmark::kMillisecond)->UseRealTime();

// The weight gradient's dy^T copy (kernels/transpose.h) at the training shapes: dy [3072 tokens, N] bf16
// into rows on cache lines, as linear_backward_weight writes it; GB=x/s counts the bytes read + written,
// comparable with BM_StreamCopy's. Args: N (dy's width: 768, 2304 or 3072).
void BM_TransposeBf16(benchmark::State& state) {
  const int64_t M = kTokens, N = state.range(0), ld = transpose_bf16_ld(M);
  Buffer dy = random_values(DType::kBf16, M * N, 5), dyt(DType::kBf16, N * ld);
  for (auto _ : state) {
    transpose_bf16(dyt.data<uint16_t>(), ld, dy.data<uint16_t>(), M, N);
    benchmark::DoNotOptimize(dyt.raw());
  }
  state.counters["GB"] = benchmark::Counter(2.0 * M * N * sizeof(uint16_t) * 1e-9,
                                            benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_TransposeBf16)->Arg(768)->Arg(2304)->Arg(3072)->ArgName("N")->Unit(benchmark::kMillisecond)->UseRealTime();

// Streaming copy of a 256 MiB float array (bytes read + bytes written per second).
void BM_StreamCopy(benchmark::State& state) {
  const int64_t n = int64_t(64) << 20;
  Buffer src = random_values(DType::kF32, n, 1), dst(DType::kF32, n);
  const float* s = src.data<float>();
  float* d = dst.data<float>();
  for (auto _ : state) {
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; ++i) d[i] = s[i];
    benchmark::DoNotOptimize(d);
  }
  state.counters["GB"] = benchmark::Counter(2.0 * n * sizeof(float) * 1e-9,
                                              benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_StreamCopy)->Unit(benchmark::kMillisecond)->UseRealTime();

// f32 <-> bf16 conversion of one 3072 x 768 activation (bytes read + written per second).
void BM_Bf16Convert(benchmark::State& state) {
  const int64_t n = kTokens * 768;
  Buffer f = random_values(DType::kF32, n, 1), h(DType::kBf16, n);
  for (auto _ : state) f32_to_bf16_array(f.data<float>(), h.data<uint16_t>(), n);
  state.counters["GB"] = benchmark::Counter(6.0 * n * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(bf16_convert_path());
}
BENCHMARK(BM_Bf16Convert)->Unit(benchmark::kMicrosecond)->UseRealTime();

// Both bf16 copies in oneDNN's blocked layout (BA16a64b2a, the one its AVX512_BF16 and AMX products pick
// for these weights) of one DistilBERT layer's product weights (q, k, v as one 2,304 x 768; 768 x 768;
// 3,072 x 768; 768 x 3,072), from their f32 masters, as the optimizer step refreshes them: way 0 rounds
// each weight into a bf16 scratch and runs oneDNN's reorder for each copy (cpuft before write_weight_blocks),
// way 1 is write_weight_blocks (one pass). GB/s counts 4 bytes read and 4 written per weight element.
void BM_WeightBlocks(benchmark::State& state) {
  using tag = dnnl::memory::format_tag;
  struct Weight {
    int64_t N, K;
  };
  const Weight weights[] = {{2304, 768}, {768, 768}, {3072, 768}, {768, 3072}};
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(eng);
  std::vector<Buffer> masters;
  std::vector<std::vector<uint16_t>> fwd, bwd;
  int64_t elements = 0;
  for (const Weight& w : weights) {
    masters.push_back(random_values(DType::kF32, w.N * w.K, 3));
    fwd.emplace_back(gemm_detail::pair_blocks_of_tag(w.K, w.N, tag::BA16a64b2a)->bytes / 2);
    bwd.emplace_back(gemm_detail::pair_blocks_of_tag(w.N, w.K, tag::BA16a64b2a)->bytes / 2);
    elements += w.N * w.K;
  }
  std::vector<uint16_t> scratch;
  for (auto _ : state)
    for (size_t i = 0; i < std::size(weights); ++i) {
      const int64_t N = weights[i].N, K = weights[i].K;
      if (state.range(0) == 1) {
        const auto f = gemm_detail::pair_blocks_of_tag(K, N, tag::BA16a64b2a);
        const auto b = gemm_detail::pair_blocks_of_tag(N, K, tag::BA16a64b2a);
        write_weight_blocks(fwd[i].data(), &*f, bwd[i].data(), &*b, masters[i].raw(), DType::kF32, N, K);
        continue;
      }
      scratch.resize(static_cast<size_t>(N * K));
      f32_to_bf16_array(masters[i].data<float>(), scratch.data(), N * K);
      for (bool forward : {true, false}) {
        const int64_t rows = forward ? K : N, cols = forward ? N : K;
        const dnnl::memory::desc plain({rows, cols}, dnnl::memory::data_type::bf16,
                                       forward ? dnnl::memory::dims{1, K} : dnnl::memory::dims{K, 1});
        const dnnl::memory::desc blocked({rows, cols}, dnnl::memory::data_type::bf16, tag::BA16a64b2a);
        dnnl::memory from(plain, eng, scratch.data()), to(blocked, eng, (forward ? fwd : bwd)[i].data());
        dnnl::reorder(from, to).execute(stream, from, to);
        stream.wait();
      }
    }
  state.counters["GB"] = benchmark::Counter(8.0 * elements * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(state.range(0) == 1 ? "write_weight_blocks" : "round, then oneDNN reorder");
}
BENCHMARK(BM_WeightBlocks)->Arg(0)->Arg(1)->ArgName("way")->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace cpuft
