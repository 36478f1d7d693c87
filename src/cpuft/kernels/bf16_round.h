// f32 -> bf16 for the scalar kernels: round to nearest even, NaN kept a quiet NaN with its sign.
// The vector structs implement the same integer rounding, so all ISAs write identical bits.
// (static inline: each translation unit keeps its own copy, whatever its ISA flags.)
#pragma once

#include <cstdint>
#include <cstring>

namespace cpuft {

static inline uint16_t bf16_round(float x) {
  uint32_t b;
  std::memcpy(&b, &x, sizeof b);
  if ((b & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((b >> 16) | 0x40u);
  return static_cast<uint16_t>((b + 0x7fffu + ((b >> 16) & 1u)) >> 16);
}

}  // namespace cpuft
