// The int8 linear layer (model/int8_linear.h: quantize the input per token, oneDNN u8 x s8 -> s32,
// dequantize with the bias) against the f32 and bf16 ones, on the shapes of an all-MiniLM-L6 forward
// pass over one evaluation batch (32 windows x 384 tokens = 12,288 rows; hidden 384, FFN 1536), and
// the parts of the int8 layer alone. GFLOP=x/s counts 2 M N K for every variant.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "cpuft/kernels/gemm.h"
#include "cpuft/kernels/gemm_int8.h"
#include "cpuft/kernels/quantize.h"
#include "cpuft/model/int8_linear.h"
#include "cpuft/tensor/bf16.h"

namespace cpuft {
namespace {

constexpr int64_t kRows = 32 * 384;

std::vector<float> normal(int64_t n, uint32_t seed, float sd) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0.f, sd);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = d(rng);
  return v;
}

void gflops(benchmark::State& state, double flops) {
  state.counters["GFLOP"] = benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

// Args: N (out), K (in), variant (0 f32, 1 bf16, 2 int8 layer, 3 int8 product alone, 4 quantizing
// the input alone, 5 dequantizing the output alone).
void BM_MiniLmLinear(benchmark::State& state) {
  const int64_t M = kRows, N = state.range(0), K = state.range(1);
  const std::vector<float> x = normal(M * K, 1, 1.f), w = normal(N * K, 2, 0.04f), bias = normal(N, 3, 0.1f);
  std::vector<float> y(static_cast<size_t>(M * N));
  const Int8Linear layer = quantize_linear(w.data(), N, K);
  std::vector<uint16_t> xb(x.size()), wb(w.size());
  f32_to_bf16_array(x.data(), xb.data(), M * K);
  f32_to_bf16_array(w.data(), wb.data(), N * K);
  std::vector<uint8_t> q(static_cast<size_t>(M * K), 60);
  switch (state.range(2)) {
    case 0:
      for (auto _ : state) linear_forward(M, N, K, x.data(), w.data(), DType::kF32, bias.data(), y.data());
      state.SetLabel("f32");
      break;
    case 1:
      for (auto _ : state) linear_forward(M, N, K, xb.data(), wb.data(), DType::kBf16, bias.data(), y.data());
      state.SetLabel(gemm_bf16_native() ? "bf16" : "bf16 emulated in f32");
      break;
    case 2:
      for (auto _ : state) int8_linear_fwd(y.data(), x.data(), layer, bias.data(), M);
      state.SetLabel("int8 layer (quantize + product + dequantize), " + gemm_int8_impl());
      break;
    case 3:
      for (auto _ : state) matmul_u8s8s32(M, N, K, q.data(), layer.w.data(), y.data());
      state.SetLabel("int8 product alone, " + gemm_int8_impl());
      break;
    case 4: {
      std::vector<float> scale(static_cast<size_t>(M));
      std::vector<int32_t> zero(static_cast<size_t>(M));
      for (auto _ : state) quantize_rows_u8(q.data(), scale.data(), zero.data(), x.data(), M, K, 127);
      state.SetLabel("quantizing the input alone");
      break;
    }
    default: {
      std::vector<float> scale(static_cast<size_t>(M), 0.01f);
      std::vector<int32_t> zero(static_cast<size_t>(M), 60);
      for (auto _ : state)
        dequantize_s32(y.data(), reinterpret_cast<const int32_t*>(y.data()), scale.data(), zero.data(),
                       layer.w_scale.data(), layer.w_colsum.data(), bias.data(), M, N);
      state.SetLabel("dequantizing the output alone");
    }
  }
  gflops(state, 2.0 * M * N * K);
}

BENCHMARK(BM_MiniLmLinear)
    ->ArgNames({"N", "K", "variant"})
    ->ArgsProduct({{384}, {384}, {0, 1, 2, 3, 4, 5}})
    ->ArgsProduct({{1536}, {384}, {0, 1, 2, 3, 4, 5}})
    ->ArgsProduct({{384}, {1536}, {0, 1, 2, 3, 4, 5}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace cpuft
