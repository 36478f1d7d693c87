// BF16 on the wire for gradient allreduce: halves the bytes sent. Values are rounded to bf16
// (round to nearest even, NaN kept NaN), each pairwise reduction step adds in f32 and rounds the
// partial sum back to bf16, and the result is widened to f32 again. So the reduced gradient carries
// bf16 precision (about 3 significant digits), like torch DDP's bf16 compression hook.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace cpuft {

inline uint16_t f32_to_bf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if ((u & 0x7f800000u) == 0x7f800000u && (u & 0x007fffffu)) return static_cast<uint16_t>((u >> 16) | 0x40);
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}

inline float bf16_to_f32(uint16_t h) {
  uint32_t u = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

void f32_to_bf16(const float* in, uint16_t* out, size_t n);
void bf16_to_f32(const uint16_t* in, float* out, size_t n);

// inout[i] = bf16(f32(in[i]) + f32(inout[i])): the reduction operator of the bf16 wire.
void bf16_sum_into(const uint16_t* in, uint16_t* inout, size_t n);

}  // namespace cpuft
