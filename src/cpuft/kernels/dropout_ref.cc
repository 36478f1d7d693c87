// Dropout: scalar reference (cpuft::ref).
#include "cpuft/kernels/ref_kernels.h"

#include "cpuft/kernels/dropout_hash.h"
#include "cpuft/tensor/bf16.h"

namespace cpuft {
namespace ref {

void dropout_apply(float* out, uint16_t* out_bf16, const float* in, const uint16_t* in_bf16, int64_t n, float scale,
                   uint64_t key, uint32_t threshold24) {
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i) {
    const bool keep = (dropout_hash(key, static_cast<uint32_t>(i)) >> 8) >= threshold24;
    const float y = (in ? in[i] : bf16_to_f32(in_bf16[i])) * (keep ? scale : 0.0f);
    if (out) out[i] = y;
    if (out_bf16) out_bf16[i] = f32_to_bf16(y);
  }
}

}  // namespace ref
}  // namespace cpuft
