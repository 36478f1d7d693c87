// Test-only AVX-512 instantiation of the vector exp and normal CDF (vec_math_fns.h); compiled with AVX-512 flags.
// GCC 12's own avx512fintrin.h trips -W(maybe-)uninitialized on its _mm512_undefined_* helpers.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include "cpuft/kernels/vec_avx512.h"
#include "kernels/vec_math_arrays.h"

namespace cpuft::test {

const VecMathFns& vec_math_avx512() { return vec_math_fns<VecAvx512>(); }

}  // namespace cpuft::test
