// bfloat16 <-> float32. A bf16 value is stored as uint16_t: the high 16 bits of the float32.
// f32 -> bf16 rounds to nearest, ties to even (like PyTorch's c10::BFloat16 and the AVX512_BF16
// instructions); infinities stay infinities, a NaN becomes a quiet NaN with the same sign (its top
// mantissa bits kept, the quiet bit set), and denormals are rounded like any other value (never
// flushed to zero). bf16 -> f32 is exact. Every array path gives the same bits as the scalar one.
// This is cpuft's one bf16 conversion: kernels/ (the scalar reference kernels) and parallel/ (the bf16
// allreduce wire) use it too.
#pragma once

#include <cstdint>
#include <cstring>

namespace cpuft {

// The scalar conversions are static inline: the *_avx2.cc / *_avx512.cc files include this header
// too, and with plain inline the linker could keep their copy (built for AVX) and call it from code
// that must run on any x86-64 CPU. static gives each translation unit its own copy.
static inline uint16_t f32_to_bf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x0040u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}

static inline float bf16_to_f32(uint16_t h) {
  uint32_t u = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// The float nearest to f that bf16 can hold (f32 -> bf16 -> f32).
static inline float round_to_bf16(float f) { return bf16_to_f32(f32_to_bf16(f)); }

// Array conversions of n elements (n >= 0; src and dst must not overlap). They run the path of
// kernel_isa() (cpu/isa.h: AVX512_BF16 instruction, AVX-512 integer, AVX2, ref) and split large arrays over OpenMP threads when called outside a parallel region.
void f32_to_bf16_array(const float* src, uint16_t* dst, int64_t n);
void bf16_to_f32_array(const uint16_t* src, float* dst, int64_t n);
// dst[i] = round_to_bf16(src[i]): f32 values a bf16 product would read. dst may equal src.
void round_bf16_array(const float* src, float* dst, int64_t n);

// Name of the path the array conversions use: isa_name(kernel_isa()): "avx512_bf16", "avx512", "avx2" or "ref".
const char* bf16_convert_path();

}  // namespace cpuft
