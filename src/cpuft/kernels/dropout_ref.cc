// Dropout: scalar reference (cpuft::ref).
#include "cpuft/kernels/ref_kernels.h"

#include <algorithm>

#include "cpuft/kernels/dropout_hash.h"
#include "cpuft/tensor/bf16.h"

namespace cpuft {
namespace ref {

void dropout_apply(float* out, uint16_t* out_bf16, const float* in, int64_t n, float scale,
                   uint64_t key, uint32_t threshold24, const uint8_t* keep_in, uint8_t* keep_out) {
  // Blocks of 64 elements, so that no two threads write bits of one byte.
  const int64_t blocks = (n + 63) / 64;
#pragma omp parallel for schedule(static)
  for (int64_t blk = 0; blk < blocks; ++blk) {
    const int64_t end = std::min(n, (blk + 1) * 64);
    for (int64_t i = blk * 64; i < end; ++i) {
      const uint8_t bit = static_cast<uint8_t>(1u << (i % 8));
      const bool keep = keep_in ? (keep_in[i / 8] & bit) != 0
                                : (dropout_hash(key, static_cast<uint32_t>(i)) >> 8) >= threshold24;
      if (keep_out) keep_out[i / 8] = static_cast<uint8_t>(i % 8 == 0 ? 0 : keep_out[i / 8]) | (keep ? bit : 0);
      const float y = in[i] * (keep ? scale : 0.0f);
      if (out) out[i] = y;
      if (out_bf16) out_bf16[i] = f32_to_bf16(y);
    }
  }
}

}  // namespace ref
}  // namespace cpuft
