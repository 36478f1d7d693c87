// The array conversion paths behind bf16.h, one per instruction set. Internal to the tensor
// module: callers use f32_to_bf16_array / bf16_to_f32_array, which run the one of kernel_isa()
// (cpu/isa.h, which checks the CPU). The AVX2 and AVX-512 paths live in bf16_avx2.cc and
// bf16_avx512.cc.
#pragma once

#include <cstdint>

namespace cpuft::bf16_paths {

void f32_to_bf16_ref(const float* src, uint16_t* dst, int64_t n);
void bf16_to_f32_ref(const uint16_t* src, float* dst, int64_t n);
// dst[i] = round_to_bf16(src[i]); dst may equal src.
void round_bf16_ref(const float* src, float* dst, int64_t n);

void f32_to_bf16_avx2(const float* src, uint16_t* dst, int64_t n);
void bf16_to_f32_avx2(const uint16_t* src, float* dst, int64_t n);
void round_bf16_avx2(const float* src, float* dst, int64_t n);

// AVX-512 F/BW/VL: integer round to nearest even.
void f32_to_bf16_avx512(const float* src, uint16_t* dst, int64_t n);
void bf16_to_f32_avx512(const uint16_t* src, float* dst, int64_t n);
void round_bf16_avx512(const float* src, float* dst, int64_t n);
// AVX512_BF16: vcvtne2ps2bf16 (with the integer path for blocks holding denormals, which the
// instruction would flush to zero).
void f32_to_bf16_avx512bf16(const float* src, uint16_t* dst, int64_t n);

}  // namespace cpuft::bf16_paths
