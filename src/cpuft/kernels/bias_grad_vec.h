// The bias-gradient column sum over any Vec (bias_grad, declared in gemm.h).
#pragma once

#include <algorithm>
#include <cstdint>

#include "cpuft/kernels/vec_loop.h"

namespace cpuft {

// Column-owned sums (vec_loop.h's for_each_column_chunk): all M rows added in order, each row's chunk
// read in one piece.
template <class V>
void bias_grad_vec(float* db, const float* dy, int64_t M, int64_t N) {
  for_each_column_chunk<V>(N, [=](int64_t c0, int64_t c1) {
    alignas(64) float acc[kColumnChunk];
    std::fill(acc, acc + (c1 - c0), 0.0f);
    for (int64_t m = 0; m < M; ++m)
      over_columns<V>(c0, c1, [&](int64_t c, int k) CPUFT_INLINE_BODY {
        store_k<V>(acc + (c - c0), k, V::add(load_k<V>(acc + (c - c0), k), load_k<V>(dy + m * N + c, k)));
      });
    for (int64_t c = c0; c < c1; ++c) db[c] += acc[c - c0];
  });
}

}  // namespace cpuft
