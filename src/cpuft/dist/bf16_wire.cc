#include "cpuft/dist/bf16_wire.h"

namespace cpuft {

void f32_to_bf16(const float* in, uint16_t* out, size_t n) { f32_to_bf16_array(in, out, static_cast<int64_t>(n)); }

void bf16_to_f32(const uint16_t* in, float* out, size_t n) { bf16_to_f32_array(in, out, static_cast<int64_t>(n)); }

void bf16_sum_into(const uint16_t* in, uint16_t* inout, size_t n) {
  for (size_t i = 0; i < n; ++i) inout[i] = f32_to_bf16(bf16_to_f32(in[i]) + bf16_to_f32(inout[i]));
}

}  // namespace cpuft
