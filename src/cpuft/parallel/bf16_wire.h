// BF16 on the wire for gradient allreduce: halves the bytes sent. Values are rounded to bf16
// (round to nearest even, NaN kept NaN), each pairwise reduction step adds in f32 and rounds the
// partial sum back to bf16, and the result is widened to f32 again. So the reduced gradient carries
// bf16 precision (about 3 significant digits), like torch DDP's bf16 compression hook. The conversion
// itself is tensor/bf16.h's; this header adds only what the wire needs.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cpuft/tensor/bf16.h"

namespace cpuft {

// inout[i] = bf16(f32(in[i]) + f32(inout[i])): the reduction operator of the bf16 wire.
void bf16_sum_into(const uint16_t* in, uint16_t* inout, size_t n);

}  // namespace cpuft
