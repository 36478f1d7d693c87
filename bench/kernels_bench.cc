// Throughput of cpuft's own kernels on the DistilBERT training shapes (8 sequences x 384 tokens
// = 3072 rows; hidden 768, FFN 3072; attention scores 8 x 12 x 384 x 384), per ISA the CPU can
// run (argument isa: 0 ref, 1 avx2, 2 avx512; others are skipped). The GB counter is a rate of
// the bytes each kernel must read and write (GB=x/s).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "cpuft/kernels/kernel_table.h"
#include "cpuft/kernels/softmax.h"
#include "cpuft/tensor/bf16.h"
#include "cpuft/util/aligned_vector.h"

namespace cpuft {
namespace {

constexpr int kB = 8, kT = 384, kC = 768, kFfn = 3072, kHeads = 12;
constexpr int64_t kRows = int64_t(kB) * kT;

// Aligned as the model's buffers are (util/aligned_vector.h).
AlignedVector<float> random_floats(int64_t n, float scale = 1.0f) {
  std::mt19937 gen(7);
  std::normal_distribution<float> d(0.0f, scale);
  AlignedVector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = d(gen);
  return v;
}

// The table for the isa argument, or nullptr after marking the run skipped.
const KernelTable* table_for(benchmark::State& state) {
  try {
    return &kernel_table(static_cast<Isa>(state.range(0)));
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return nullptr;
  }
}

void set_bytes(benchmark::State& state, double bytes) {
  state.counters["GB"] =
      benchmark::Counter(bytes * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(isa_name(static_cast<Isa>(state.range(0))));
}

void BM_LayerNormFwd(benchmark::State& state) {
  const KernelTable* k = table_for(state);
  if (!k) return;
  auto a = random_floats(kRows * kC), r = random_floats(kRows * kC), w = random_floats(kC),
       b = random_floats(kC);
  std::vector<float> out(a.size()), x(a.size()), mean(kRows), rstd(kRows);
  std::vector<uint16_t> bf(a.size());
  for (auto _ : state) {
    k->layernorm_fwd(out.data(), bf.data(), mean.data(), rstd.data(), x.data(), a.data(), nullptr, r.data(), w.data(),
                     b.data(), kRows, kC, 1e-12f);
  }
  set_bytes(state, kRows * kC * (4.0 * 4 + 2));  // a, r in; x, out out; bf16 out
}

void BM_LayerNormBwd(benchmark::State& state) {
  const KernelTable* k = table_for(state);
  if (!k) return;
  auto d = random_floats(kRows * kC), x = random_floats(kRows * kC), w = random_floats(kC);
  std::vector<float> mean(kRows, 0.0f), rstd(kRows, 1.0f), dx(d.size()), dw(kC), db(kC);
  for (auto _ : state) {
    k->layernorm_bwd(dx.data(), dw.data(), db.data(), d.data(), x.data(), mean.data(),
                     rstd.data(), w.data(), kRows, kC);
  }
  set_bytes(state, kRows * kC * 4.0 * 5);  // dout, x read twice; dx written
}

// The FFN's GELU as the model's forward runs it: f32 in and out (f32 mode), or bf16 in and out, by table
// (bf16 mode). Args: isa, bf16.
void BM_GeluFwd(benchmark::State& state) {
  const KernelTable* k = table_for(state);
  if (!k) return;
  auto pre = random_floats(kRows * kFfn, 2.0f);
  std::vector<float> out(pre.size());
  std::vector<uint16_t> pre_bf16(pre.size()), out_bf16(pre.size());
  for (size_t i = 0; i < pre.size(); ++i) pre_bf16[i] = f32_to_bf16(pre[i]);
  const bool bf16 = state.range(1) != 0;
  for (auto _ : state) {
    if (bf16)
      k->gelu_fwd(nullptr, out_bf16.data(), nullptr, pre_bf16.data(), kRows, kFfn);
    else
      k->gelu_fwd(out.data(), nullptr, pre.data(), nullptr, kRows, kFfn);
  }
  set_bytes(state, kRows * kFfn * (bf16 ? 2.0 * 2 : 4.0 * 2));
}

void BM_GeluBwd(benchmark::State& state) {
  const KernelTable* k = table_for(state);
  if (!k) return;
  auto pre = random_floats(kRows * kFfn, 2.0f), d = random_floats(kRows * kFfn);
  std::vector<float> dpre(pre.size());
  for (auto _ : state) k->gelu_bwd(dpre.data(), nullptr, nullptr, d.data(), nullptr, pre.data(), nullptr, kRows, kFfn);
  set_bytes(state, kRows * kFfn * 4.0 * 3);
}

// f32 training's GELU in backward, one FFN of a b8 s384 step: the output recomputed (lin2's weight gradient
// reads it) and the gradient with the bias gradient; way 0 as gelu_fwd then gelu_bwd, each computing the
// normal CDF, way 1 as gelu_recompute (the gradient factor kept in place of the pre-activation) then
// gelu_bwd_factored. Args: isa, way.
void BM_GeluF32Backward(benchmark::State& state) {
  const KernelTable* k = table_for(state);
  if (!k) return;
  const auto pre = random_floats(kRows * kFfn, 2.0f), d = random_floats(kRows * kFfn);
  auto work = pre;
  AlignedVector<float> g(pre.size()), dpre(pre.size()), db(kFfn);
  for (auto _ : state) {
    if (state.range(1) == 0) {
      k->gelu_fwd(g.data(), nullptr, pre.data(), nullptr, kRows, kFfn);
      k->gelu_bwd(dpre.data(), nullptr, db.data(), d.data(), nullptr, pre.data(), nullptr, kRows, kFfn);
    } else {
      state.PauseTiming();
      std::copy(pre.begin(), pre.end(), work.begin());  // the recompute overwrites it
      state.ResumeTiming();
      k->gelu_recompute(g.data(), work.data(), kRows, kFfn);
      k->gelu_bwd_factored(dpre.data(), db.data(), d.data(), work.data(), kRows, kFfn);
    }
  }
  set_bytes(state, kRows * kFfn * 4.0 * (state.range(1) == 0 ? 5 : 6));
}

// The bf16 training form: a bf16 pre-activation, the output gradient and the gradient as bf16, and the
// bias gradient.
void BM_GeluBwdBf16Bias(benchmark::State& state) {
  const KernelTable* k = table_for(state);
  if (!k) return;
  auto pre = random_floats(kRows * kFfn, 2.0f), d = random_floats(kRows * kFfn);
  std::vector<uint16_t> pre16(pre.size()), d16(d.size()), dpre(pre.size());
  f32_to_bf16_array(pre.data(), pre16.data(), static_cast<int64_t>(pre.size()));
  f32_to_bf16_array(d.data(), d16.data(), static_cast<int64_t>(d.size()));
  std::vector<float> db(kFfn);
  for (auto _ : state)
    k->gelu_bwd(nullptr, dpre.data(), db.data(), nullptr, d16.data(), nullptr, pre16.data(), kRows, kFfn);
  set_bytes(state, kRows * kFfn * (2.0 + 2 + 2));
}

void BM_BiasGrad(benchmark::State& state) {
  const KernelTable* k = table_for(state);
  if (!k) return;
  auto dy = random_floats(kRows * kFfn);
  std::vector<float> db(kFfn);
  for (auto _ : state) k->bias_grad(db.data(), dy.data(), kRows, kFfn);
  set_bytes(state, kRows * kFfn * 4.0);
}

void BM_SoftmaxFwd(benchmark::State& state) {
  const KernelTable* k = table_for(state);
  if (!k) return;
  const int64_t n = int64_t(kB) * kHeads * kT * kT;
  auto s = random_floats(n, 3.0f);
  std::vector<int8_t> mask(size_t(kB) * kT, 1);
  for (int b = 0; b < kB; ++b) {
    for (int t = 300; t < kT; ++t) mask[size_t(b) * kT + t] = 0;
  }
  std::vector<float> p(s.size());
  std::vector<uint16_t> bf(s.size());
  for (auto _ : state) {
    k->softmax_fwd(p.data(), bf.data(), s.data(), mask.data(), kB, kHeads, kT, kT, ScoreRead{}, kMaskLowestF32, nullptr,
                   nullptr);
  }
  set_bytes(state, n * (4.0 * 2 + 2));
}

// The backward's softmax from the forward's row statistics (run over its own output after the first
// iteration: the same work).
void BM_SoftmaxBwd(benchmark::State& state) {
  const KernelTable* k = table_for(state);
  if (!k) return;
  const int rows = kB * kHeads * kT;
  const int64_t n = int64_t(rows) * kT;
  auto s = random_floats(n, 3.0f), dp = random_floats(n);
  std::vector<float> p(n), ds(n), stats(static_cast<size_t>(2 * rows));
  k->softmax_fwd(p.data(), nullptr, s.data(), nullptr, 1, 1, rows, kT, ScoreRead{}, kMaskLowestF32, nullptr,
                 stats.data());
  for (auto _ : state)
    k->softmax_recompute_bwd(ds.data(), nullptr, nullptr, nullptr, s.data(), dp.data(), nullptr, rows, kT, ScoreRead{},
                             kMaskLowestF32, stats.data(), nullptr);
  set_bytes(state, n * 4.0 * 4);
}

void BM_DropoutScores(benchmark::State& state) {
  const KernelTable* k = table_for(state);
  if (!k) return;
  const int64_t n = int64_t(kB) * kHeads * kT * kT;
  auto x = random_floats(n);
  std::vector<float> y(n);
  std::vector<uint16_t> bf(n);
  for (auto _ : state) k->dropout_apply(y.data(), bf.data(), x.data(), nullptr, n, 1.0f / 0.9f, 42, 1677722);
  set_bytes(state, n * (4.0 * 2 + 2));
}

void BM_AdamW(benchmark::State& state) {
  const KernelTable* k = table_for(state);
  if (!k) return;
  const int64_t n = int64_t(kC) * kFfn;
  auto w = random_floats(n, 0.02f), g = random_floats(n, 0.01f);
  std::vector<float> m(n, 0.0f), v(n, 0.0f);
  std::vector<uint16_t> bf(n);
  AdamWParams p;
  p.lr = 3e-5;
  p.weight_decay = 0.01;
  int64_t step = 0;
  for (auto _ : state) k->adamw_step(w.data(), m.data(), v.data(), bf.data(), g.data(), n, p, ++step);
  set_bytes(state, n * (4.0 * 7 + 2));  // w, m, v read+written, g read, bf16 written
}

// AdamW over the word embeddings' 23.4M elements with its four arrays (w, m, v, g) exactly 256 MiB apart,
// as separate 2 MiB-aligned buffers of DistilBERT's parameter count lay (stagger:0), or each one stagger
// step (kLargeBufferStaggerStep, 4160 bytes) further on, as AlignedVector places consecutive ones (stagger:1). Carved
// out of one buffer; only the arrays are touched.
void BM_AdamWBuffersApart(benchmark::State& state) {
  const KernelTable* k = table_for(state);
  if (!k) return;
  const int64_t n = int64_t(30522) * kC;
  const size_t apart =
      (size_t{256} << 20) / sizeof(float) + (state.range(1) ? kLargeBufferStaggerStep / sizeof(float) : 0);
  AlignedVector<float> buffer(4 * apart);
  float *w = buffer.data(), *m = w + apart, *v = m + apart, *g = v + apart;
  const auto init = random_floats(n, 0.02f);
  std::copy(init.begin(), init.end(), w);
  std::copy(init.begin(), init.end(), g);
  AdamWParams p;
  p.lr = 3e-5;
  p.weight_decay = 0.01;
  p.zero_grad = true;
  int64_t step = 0;
  for (auto _ : state) k->adamw_step(w, m, v, nullptr, g, n, p, ++step);
  set_bytes(state, n * (4.0 * 8));  // w, m, v, g read and written
  state.SetLabel(std::string(isa_name(static_cast<Isa>(state.range(0)))) +
                 (state.range(1) ? " staggered" : " 256 MiB apart"));
}

void BM_EmbeddingBwd(benchmark::State& state) {
  const KernelTable* k = table_for(state);
  if (!k) return;
  const int vocab = 30522;
  std::vector<int32_t> ids(kRows);
  std::mt19937 gen(3);
  for (auto& id : ids) id = static_cast<int32_t>(gen() % vocab);
  std::vector<int32_t> positions(kRows);
  for (size_t i = 0; i < positions.size(); ++i) positions[i] = static_cast<int32_t>(i % kT);
  auto d = random_floats(kRows * kC);
  std::vector<float> dwte(size_t(vocab) * kC), dwpe(size_t(kT) * kC);
  for (auto _ : state) {
    k->embedding_bwd(dwte.data(), dwpe.data(), nullptr, d.data(), ids.data(), nullptr, positions.data(), kRows, kC, 0);
  }
  set_bytes(state, kRows * kC * 4.0 * 5);  // dout read; two rows read+written per token
}

void isa_args(benchmark::internal::Benchmark* b) {
  b->ArgName("isa")->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
}

BENCHMARK(BM_LayerNormFwd)->Apply(isa_args);
BENCHMARK(BM_LayerNormBwd)->Apply(isa_args);
BENCHMARK(BM_GeluFwd)
    ->ArgsProduct({{0, 1, 2}, {0, 1}})
    ->ArgNames({"isa", "bf16"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_GeluBwd)->Apply(isa_args);
BENCHMARK(BM_GeluBwdBf16Bias)->Apply(isa_args);
BENCHMARK(BM_GeluF32Backward)
    ->ArgsProduct({{0, 1, 2}, {0, 1}})
    ->ArgNames({"isa", "way"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_BiasGrad)->Apply(isa_args);
BENCHMARK(BM_SoftmaxFwd)->Apply(isa_args);
BENCHMARK(BM_SoftmaxBwd)->Apply(isa_args);
BENCHMARK(BM_DropoutScores)->Apply(isa_args);
BENCHMARK(BM_AdamW)->Apply(isa_args);
BENCHMARK(BM_AdamWBuffersApart)
    ->ArgsProduct({{1, 2}, {0, 1}})
    ->ArgNames({"isa", "stagger"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_EmbeddingBwd)->Apply(isa_args);

}  // namespace
}  // namespace cpuft
