// Test-only: VecAvx512Bf16's bf16 rounding (kernels/vec_avx512_bf16.h) as array functions; compiled with
// AVX-512 flags (which include AVX512_BF16). Call only where isa_supported(Isa::kAvx512Bf16).
// GCC 12's own avx512fintrin.h trips -W(maybe-)uninitialized on its _mm512_undefined_* helpers.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include "cpuft/kernels/vec_avx512_bf16.h"
#include "cpuft/kernels/vec_loop.h"
#include "kernels/vec_bf16_fns.h"

namespace cpuft::test {

void to_bf16_avx512_bf16(uint16_t* out, const float* in, int64_t n) {
  using V = VecAvx512Bf16;
  over_columns<V>(0, n, [&](int64_t i, int k) CPUFT_INLINE_BODY { store_bf16_k<V>(out + i, k, load_k<V>(in + i, k)); });
}

void round_bf16_avx512_bf16(float* out, const float* in, int64_t n) {
  using V = VecAvx512Bf16;
  over_columns<V>(
      0, n, [&](int64_t i, int k) CPUFT_INLINE_BODY { store_k<V>(out + i, k, V::round_bf16(load_k<V>(in + i, k))); });
}

}  // namespace cpuft::test
