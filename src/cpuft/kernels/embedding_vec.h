// Embedding forward/backward over any Vec (see embedding.h for the contract).
#pragma once

#include <omp.h>

#include <cstdint>

#include "cpuft/kernels/vec_loop.h"

namespace cpuft {

template <class V>
void embedding_fwd_vec(float* out, const int32_t* ids, const int8_t* type_ids, const int32_t* positions,
                       const float* wte, const float* wpe, const float* wtt, int64_t N, int C) {
#pragma omp parallel for schedule(static)
  for (int64_t n = 0; n < N; ++n) {
    const float* w = wte + static_cast<int64_t>(ids[n]) * C;
    const float* p = wpe + static_cast<int64_t>(positions[n]) * C;
    const float* tt = wtt ? wtt + (type_ids ? static_cast<int64_t>(type_ids[n]) * C : 0) : nullptr;
    float* o = out + n * C;
    over_columns<V>(0, C, [&](int64_t c, int k) CPUFT_INLINE_BODY {
      auto x = load_k<V>(w + c, k);
      if (tt) x = V::add(x, load_k<V>(tt + c, k));
      store_k<V>(o + c, k, V::add(x, load_k<V>(p + c, k)));
    });
  }
}

// Each thread owns a slab of columns of all three tables and adds the rows in order. Every
// column is summed in row order whatever the slab width, so the width (one slab per thread, for
// long contiguous runs) does not change the result.
template <class V>
void embedding_bwd_vec(float* dwte, float* dwpe, float* dwtt, const float* dout,
                       const int32_t* ids, const int8_t* type_ids, const int32_t* positions, int64_t N,
                       int C, int pad_id) {
  const int64_t threads = omp_get_max_threads();
  const int64_t slab = ((C + threads - 1) / threads + V::W - 1) / V::W * V::W;
  const int64_t n_slabs = (C + slab - 1) / slab;
#pragma omp parallel for schedule(static)
  for (int64_t s = 0; s < n_slabs; ++s) {
    const int64_t c0 = s * slab;
    const int64_t c1 = c0 + slab < C ? c0 + slab : C;
    for (int64_t n = 0; n < N; ++n) {
      const float* d = dout + n * C;
      float* targets[3] = {ids[n] == pad_id ? nullptr : dwte + static_cast<int64_t>(ids[n]) * C,
                           dwpe + static_cast<int64_t>(positions[n]) * C,
                           dwtt ? dwtt + (type_ids ? static_cast<int64_t>(type_ids[n]) * C : 0)
                                : nullptr};
      for (float* g : targets) {
        if (!g) continue;
        over_columns<V>(c0, c1, [&](int64_t c, int k) CPUFT_INLINE_BODY {
          store_k<V>(g + c, k, V::add(load_k<V>(g + c, k), load_k<V>(d + c, k)));
        });
      }
    }
  }
}

}  // namespace cpuft
