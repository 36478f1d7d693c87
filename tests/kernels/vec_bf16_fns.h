// Test-only: the bf16 rounding of the avx512_bf16 kernels (kernels/vec_avx512_bf16.h) as array functions,
// defined in vec_bf16_avx512.cc (compiled with AVX-512 flags); call them only where
// isa_supported(Isa::kAvx512Bf16).
#pragma once

#include <cstdint>

namespace cpuft::test {

// out[i] = the bf16 of in[i] (as store_bf16 / store_bf16_part write it, 16 lanes at a time).
void to_bf16_avx512_bf16(uint16_t* out, const float* in, int64_t n);
// out[i] = in[i] rounded to the value bf16 holds (round_bf16), as f32.
void round_bf16_avx512_bf16(float* out, const float* in, int64_t n);

}  // namespace cpuft::test
