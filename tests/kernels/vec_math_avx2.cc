// Test-only AVX2+FMA instantiation of the vector exp and normal CDF (vec_math_fns.h); compiled with AVX2 flags.
#include "cpuft/kernels/vec_avx2.h"
#include "kernels/vec_math_arrays.h"

namespace cpuft::test {

const VecMathFns& vec_math_avx2() { return vec_math_fns<VecAvx2>(); }

}  // namespace cpuft::test
