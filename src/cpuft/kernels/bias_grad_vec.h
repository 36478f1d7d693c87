// The bias-gradient column sum over any Vec (bias_grad, declared in gemm.h).
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstdint>

#include "cpuft/kernels/vec_loop.h"

namespace cpuft {

// Column-owned sums: each thread owns a contiguous range of columns and adds all M rows in order, a
// chunk of at most kColumnChunk columns at a time, reading each row's chunk in one piece.
template <class V>
void bias_grad_vec(float* db, const float* dy, int64_t M, int64_t N) {
  const int64_t vectors = (N + V::W - 1) / V::W;
#pragma omp parallel
  {
    const int64_t threads = omp_get_num_threads(), t = omp_get_thread_num();
    const int64_t c_begin = vectors * t / threads * V::W;
    const int64_t c_end = std::min(N, vectors * (t + 1) / threads * V::W);
    alignas(64) float acc[kColumnChunk];
    for (int64_t c0 = c_begin; c0 < c_end; c0 += kColumnChunk) {
      const int64_t c1 = std::min(c_end, c0 + kColumnChunk);
      for (int64_t c = c0; c < c1; ++c) acc[c - c0] = 0.0f;
      for (int64_t m = 0; m < M; ++m)
        for (int64_t c = c0; c < c1; c += V::W) {
          const int k = width_at<V>(c, c1);
          store_k<V>(acc + (c - c0), k, V::add(load_k<V>(acc + (c - c0), k), load_k<V>(dy + m * N + c, k)));
        }
      for (int64_t c = c0; c < c1; ++c) db[c] += acc[c - c0];
    }
  }
}

}  // namespace cpuft
