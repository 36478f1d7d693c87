// AdamW step, sum of squares and scaling over any Vec (see adamw.h). The two fused multiply-adds
// are the ones torch's CPU kernels use (lerp_ and addcmul_); every other product is rounded
// before the next operation, so all ISAs and the scalar reference agree bit for bit.
#pragma once

#include <cstdint>

#include "cpuft/kernels/adamw_scalars.h"
#include "cpuft/kernels/kernel_table.h"
#include "cpuft/kernels/vec_loop.h"

namespace cpuft {

template <class V>
void adamw_step_vec(float* w, float* m, float* v, uint16_t* w_bf16, float* g, int64_t n, const AdamWParams& p,
                    int64_t step) {
  const AdamWScalars s = adamw_scalars(p, step);
  const bool decay = p.weight_decay != 0.0;
  for_each_flat_chunk<V>(n, [=](int64_t i, int k) CPUFT_INLINE_BODY {
    auto vw = load_k<V>(w + i, k);
    auto vm = load_k<V>(m + i, k);
    auto vv = load_k<V>(v + i, k);
    auto vg = V::mul(load_k<V>(g + i, k), V::set1(p.grad_scale));
    if (p.zero_grad) store_k<V>(g + i, k, V::zero());
    if (decay) vw = V::mul(vw, V::set1(s.decay));
    vm = V::fma(V::set1(s.one_m_b1), V::sub(vg, vm), vm);
    vv = V::fma(V::mul(V::set1(s.one_m_b2), vg), vg, V::mul(vv, V::set1(s.b2)));
    auto den = V::add(V::div(V::sqrt(vv), V::set1(s.bc2_sqrt)), V::set1(s.eps));
    vw = V::add(vw, V::div(V::mul(V::set1(s.neg_step), vm), den));
    store_k<V>(w + i, k, vw);
    store_k<V>(m + i, k, vm);
    store_k<V>(v + i, k, vv);
    if (w_bf16) store_bf16_k<V>(w_bf16 + i, k, vw);
  });
}

template <class V>
void block_sum_squares_vec(double* out, const float* x, int64_t n) {
  const int64_t blocks = (n + kSumSquaresBlock - 1) / kSumSquaresBlock;
#pragma omp parallel for schedule(static)
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t end = (b + 1) * kSumSquaresBlock < n ? (b + 1) * kSumSquaresBlock : n;
    auto acc = V::dzero();
    over_columns<V>(b * kSumSquaresBlock, end,
                    [&](int64_t i, int k) CPUFT_INLINE_BODY { acc = V::add_squares(acc, load_k<V>(x + i, k)); });
    out[b] = V::dhsum(acc);
  }
}

template <class V>
void scale_inplace_vec(float* x, int64_t n, float s) {
  for_each_flat_chunk<V>(
      n, [=](int64_t i, int k) CPUFT_INLINE_BODY { store_k<V>(x + i, k, V::mul(load_k<V>(x + i, k), V::set1(s))); });
}

}  // namespace cpuft
