// Test-only: the vector exp and normal CDF (kernels/vec_math.h), and GELU's value and gradient factor made
// of them (kernels/gelu_vec.h), as array functions of each vector ISA, so that their accuracy is measured
// directly. Defined in vec_math_avx2.cc / vec_math_avx512.cc (compiled with
// their ISA's flags, like the kernels); call one only where isa_supported() says the CPU runs it.
#pragma once

#include <cstdint>

#include "cpuft/cpu/isa.h"

namespace cpuft::test {

struct VecMathFns {
  const char* name;
  void (*exp_f32)(float* out, const float* in, int64_t n);  // out may alias in
  void (*normal_cdf_f32)(float* out, const float* in, int64_t n);
  // GELU's value and gradient factor (gelu_vec.h's gelu_of, gelu_grad_factor), vector by vector.
  void (*gelu_f32)(float* out, const float* in, int64_t n);
  void (*gelu_grad_factor_f32)(float* out, const float* in, int64_t n);
};

const VecMathFns& vec_math_avx2();
const VecMathFns& vec_math_avx512();

// The functions of a vector ISA: avx2, or avx512 (which avx512_bf16 runs too).
inline const VecMathFns& vec_math(Isa isa) { return isa == Isa::kAvx2 ? vec_math_avx2() : vec_math_avx512(); }

}  // namespace cpuft::test
