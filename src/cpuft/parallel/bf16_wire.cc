#include "cpuft/parallel/bf16_wire.h"

namespace cpuft {

void bf16_sum_into(const uint16_t* in, uint16_t* inout, size_t n) {
  for (size_t i = 0; i < n; ++i) inout[i] = f32_to_bf16(bf16_to_f32(in[i]) + bf16_to_f32(inout[i]));
}

}  // namespace cpuft
