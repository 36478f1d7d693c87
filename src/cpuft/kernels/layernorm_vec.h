// Residual + LayerNorm forward/backward over any Vec (see layernorm.h for the contract).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "cpuft/kernels/vec_loop.h"

namespace cpuft {

template <class V>
void layernorm_fwd_vec(float* out, uint16_t* out_bf16, float* mean, float* rstd, float* x_sum, const float* a,
                       const uint16_t* a_bf16, const float* r, const float* w, const float* b, int N, int C,
                       float eps) {
  using F = typename V::F;
#pragma omp parallel for schedule(static)
  for (int64_t n = 0; n < N; ++n) {
    const int64_t off = n * C;
    // Pass 1: x = a + r (kept in x_sum when given) and its sum.
    F acc = V::zero();
    over_columns<V>(0, C, [&](int64_t c, int k) CPUFT_INLINE_BODY {
      F x = load_f32_or_bf16<V>(a, a_bf16, off + c, k);
      if (r) x = V::add(x, load_k<V>(r + off + c, k));
      if (x_sum) store_k<V>(x_sum + off + c, k, x);
      acc = V::add(acc, x);
    });
    const float* xs = x_sum ? x_sum + off : nullptr;
    auto load_x = [&](int64_t c, int k) CPUFT_INLINE_BODY {
      if (xs) return load_k<V>(xs + c, k);
      F x = load_f32_or_bf16<V>(a, a_bf16, off + c, k);
      return r ? V::add(x, load_k<V>(r + off + c, k)) : x;
    };
    const float mu = V::hsum(acc) / static_cast<float>(C);
    // Pass 2: biased variance about the mean (two-pass for accuracy).
    const F vmu = V::set1(mu);
    F acc2 = V::zero();
    over_columns<V>(0, C, [&](int64_t c, int k) CPUFT_INLINE_BODY {
      F d = V::sub(load_x(c, k), vmu);
      if (k < V::W) d = V::select(V::first(k), d, V::zero());
      acc2 = V::fma(d, d, acc2);
    });
    const float rs = 1.0f / std::sqrt(V::hsum(acc2) / static_cast<float>(C) + eps);
    if (mean) mean[n] = mu;
    if (rstd) rstd[n] = rs;
    // Pass 3: normalise, scale, shift.
    const F vrs = V::set1(rs);
    over_columns<V>(0, C, [&](int64_t c, int k) CPUFT_INLINE_BODY {
      F y = V::mul(V::sub(load_x(c, k), vmu), vrs);
      y = V::fma(y, load_k<V>(w + c, k), load_k<V>(b + c, k));
      store_k<V>(out + off + c, k, y);
      if (out_bf16) store_bf16_k<V>(out_bf16 + off + c, k, y);
    });
  }
}

template <class V>
void layernorm_bwd_vec(float* dx, float* dw, float* db, const float* dout, const float* x,
                       const float* mean, const float* rstd, const float* w, int N, int C) {
  using F = typename V::F;
  // Column sums first (dx may alias dout): dw += sum_n dout * xhat, db += sum_n dout, down the rows in
  // order, each row's chunk read in one piece (vec_loop.h's for_each_column_chunk, as bias_grad).
  for_each_column_chunk<V>(C, [=](int64_t c0, int64_t c1) {
    alignas(64) float aw[kColumnChunk], ab[kColumnChunk];
    std::fill(aw, aw + (c1 - c0), 0.0f);
    std::fill(ab, ab + (c1 - c0), 0.0f);
    for (int64_t n = 0; n < N; ++n) {
      const F vmu = V::set1(mean[n]);
      const F vrs = V::set1(rstd[n]);
      const int64_t off = n * C;
      over_columns<V>(c0, c1, [&](int64_t c, int k) CPUFT_INLINE_BODY {
        const F d = load_k<V>(dout + off + c, k);
        const F xhat = V::mul(V::sub(load_k<V>(x + off + c, k), vmu), vrs);
        store_k<V>(aw + (c - c0), k, V::fma(d, xhat, load_k<V>(aw + (c - c0), k)));
        store_k<V>(ab + (c - c0), k, V::add(load_k<V>(ab + (c - c0), k), d));
      });
    }
    for (int64_t c = c0; c < c1; ++c) {
      dw[c] += aw[c - c0];
      db[c] += ab[c - c0];
    }
  });
  // Rows: dx = rstd * (g - mean(g) - xhat * mean(g * xhat)), g = dout * w.
#pragma omp parallel for schedule(static)
  for (int64_t n = 0; n < N; ++n) {
    const int64_t off = n * C;
    if (C == 1) {  // constant output: see layernorm.h
      dx[off] = 0.0f;
      continue;
    }
    const F vmu = V::set1(mean[n]);
    const F vrs = V::set1(rstd[n]);
    F sg = V::zero(), sgx = V::zero();
    over_columns<V>(0, C, [&](int64_t c, int k) CPUFT_INLINE_BODY {
      F g = V::mul(load_k<V>(dout + off + c, k), load_k<V>(w + c, k));
      F xhat = V::mul(V::sub(load_k<V>(x + off + c, k), vmu), vrs);
      sg = V::add(sg, g);
      sgx = V::fma(g, xhat, sgx);
    });
    const F mg = V::set1(V::hsum(sg) / static_cast<float>(C));
    const F mgx = V::set1(V::hsum(sgx) / static_cast<float>(C));
    over_columns<V>(0, C, [&](int64_t c, int k) CPUFT_INLINE_BODY {
      F g = V::mul(load_k<V>(dout + off + c, k), load_k<V>(w + c, k));
      F xhat = V::mul(V::sub(load_k<V>(x + off + c, k), vmu), vrs);
      F t = V::sub(V::sub(g, mg), V::mul(xhat, mgx));
      store_k<V>(dx + off + c, k, V::mul(t, vrs));
    });
  }
}

}  // namespace cpuft
