// GELU forward/backward over any Vec (see gelu.h).
#pragma once

#include <cstdint>

#include "cpuft/kernels/vec_loop.h"
#include "cpuft/kernels/vec_math.h"

namespace cpuft {

template <class V>
typename V::F gelu_of(typename V::F x) {
  auto cdf1 = V::add(V::set1(1.0f), verf<V>(V::mul(x, V::set1(0.70710678118654752f))));
  return V::mul(V::mul(x, V::set1(0.5f)), cdf1);
}

template <class V>
void gelu_fwd_vec(float* out, uint16_t* out_bf16, float* pre, const float* bias, int64_t M,
                  int64_t N) {
#pragma omp parallel for schedule(static)
  for (int64_t m = 0; m < M; ++m) {
    const int64_t off = m * N;
    for (int64_t c = 0; c < N; c += V::W) {
      int k = width_at<V>(c, N);
      auto x = load_k<V>(pre + off + c, k);
      if (bias) {
        x = V::add(x, load_k<V>(bias + c, k));
        store_k<V>(pre + off + c, k, x);
      }
      auto y = gelu_of<V>(x);
      if (out) store_k<V>(out + off + c, k, y);
      if (out_bf16) store_bf16_k<V>(out_bf16 + off + c, k, y);
    }
  }
}

// torch's GeluBackward: dy * (cdf + x * pdf), cdf = 0.5 * (1 + erf(x / sqrt2)),
// pdf = (2/sqrt(pi) * 1/sqrt2 * 0.5) * exp(-0.5 * x * x).
template <class V>
void gelu_bwd_vec(float* dpre, const float* dout, const float* pre, int64_t n) {
  const int64_t chunks = (n + kFlatChunk - 1) / kFlatChunk;
#pragma omp parallel for schedule(static)
  for (int64_t ch = 0; ch < chunks; ++ch) {
    const int64_t end = (ch + 1) * kFlatChunk < n ? (ch + 1) * kFlatChunk : n;
    for (int64_t i = ch * kFlatChunk; i < end; i += V::W) {
      int k = width_at<V>(i, end);
      auto x = load_k<V>(pre + i, k);
      auto cdf = V::mul(V::set1(0.5f),
                        V::add(V::set1(1.0f), verf<V>(V::mul(x, V::set1(0.70710678118654752f)))));
      auto pdf = V::mul(V::set1(0.39894228040143268f),
                        vexp<V>(V::mul(V::mul(x, x), V::set1(-0.5f))));
      auto g = V::mul(load_k<V>(dout + i, k), V::add(cdf, V::mul(x, pdf)));
      store_k<V>(dpre + i, k, g);
    }
  }
}

}  // namespace cpuft
