// Test-only: the array forms of the vector exp and normal CDF, and of GELU's value and gradient factor, over one Vec
// type, included only by vec_math_avx2.cc and vec_math_avx512.cc (see vec_math_fns.h).
#pragma once

#include <cstdint>

#include "cpuft/kernels/gelu_vec.h"
#include "cpuft/kernels/vec_loop.h"
#include "cpuft/kernels/vec_math.h"
#include "kernels/vec_math_fns.h"

namespace cpuft::test {

// out[i] = f(in[i]), vector by vector.
template <class V, typename V::F (*f)(typename V::F)>
void map_f32_vec(float* out, const float* in, int64_t n) {
  over_columns<V>(0, n, [&](int64_t i, int k) CPUFT_INLINE_BODY { store_k<V>(out + i, k, f(load_k<V>(in + i, k))); });
}

template <class V>
const VecMathFns& vec_math_fns() {
  static const VecMathFns fns{V::kName, map_f32_vec<V, vexp<V>>, map_f32_vec<V, vnormal_cdf<V>>,
                              map_f32_vec<V, gelu_of<V>>, map_f32_vec<V, gelu_grad_factor<V>>};
  return fns;
}

}  // namespace cpuft::test
