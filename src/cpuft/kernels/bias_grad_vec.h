// The bias-gradient column sum over any Vec (bias_grad, declared in gemm.h).
#pragma once

#include <cstdint>

#include "cpuft/kernels/vec_loop.h"

namespace cpuft {

// Column-owned sums: each task adds all M rows of its slab of columns in order.
template <class V>
void bias_grad_vec(float* db, const float* dy, int64_t M, int64_t N) {
  using F = typename V::F;
  constexpr int kVecs = 4;
  const int64_t slab = kColumnSlab<V>;
  const int64_t n_slabs = (N + slab - 1) / slab;
#pragma omp parallel for schedule(static)
  for (int64_t s = 0; s < n_slabs; ++s) {
    const int64_t c0 = s * slab;
    F acc[kVecs];
    for (int j = 0; j < kVecs; ++j) acc[j] = V::zero();
    for (int64_t m = 0; m < M; ++m) {
      for (int j = 0; j < kVecs; ++j) {
        const int64_t c = c0 + j * V::W;
        if (c >= N) break;
        acc[j] = V::add(acc[j], load_k<V>(dy + m * N + c, width_at<V>(c, N)));
      }
    }
    for (int j = 0; j < kVecs; ++j) {
      const int64_t c = c0 + j * V::W;
      if (c >= N) break;
      int k = width_at<V>(c, N);
      store_k<V>(db + c, k, V::add(load_k<V>(db + c, k), acc[j]));
    }
  }
}

}  // namespace cpuft
