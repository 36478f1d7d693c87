// Dropout: scalar reference (cpuft::ref).
#include "cpuft/kernels/ref_kernels.h"

#include <type_traits>

#include "cpuft/kernels/dropout_hash.h"
#include "cpuft/tensor/bf16.h"

namespace cpuft {
namespace ref {
namespace {

// in[i] * keep(i) * scale for i in [0, n), written to out and out_bf16 (each nullable); In is f32 or
// bf16 (uint16_t). One loop per input type: a choice inside the loop kept the compiler from vectorizing it.
template <class In>
void apply(float* out, uint16_t* out_bf16, const In* in, int64_t n, float scale, uint64_t key, uint32_t threshold24) {
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i) {
    const bool keep = (dropout_hash(key, static_cast<uint32_t>(i)) >> 8) >= threshold24;
    float x;
    if constexpr (std::is_same_v<In, uint16_t>)
      x = bf16_to_f32(in[i]);
    else
      x = in[i];
    const float y = x * (keep ? scale : 0.0f);
    if (out) out[i] = y;
    if (out_bf16) out_bf16[i] = f32_to_bf16(y);
  }
}

}  // namespace

void dropout_apply(float* out, uint16_t* out_bf16, const float* in, const uint16_t* in_bf16, int64_t n, float scale,
                   uint64_t key, uint32_t threshold24) {
  if (in)
    apply(out, out_bf16, in, n, scale, key, threshold24);
  else
    apply(out, out_bf16, in_bf16, n, scale, key, threshold24);
}

}  // namespace ref
}  // namespace cpuft
