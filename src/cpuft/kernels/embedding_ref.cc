// Embedding: scalar reference (cpuft::ref).
#include "cpuft/kernels/ref_kernels.h"

namespace cpuft {
namespace ref {

void embedding_fwd(float* out, const int32_t* ids, const int8_t* type_ids, const int32_t* positions,
                   const float* wte, const float* wpe, const float* wtt, int64_t N, int C) {
#pragma omp parallel for schedule(static)
  for (int64_t n = 0; n < N; ++n) {
    const float* w = wte + static_cast<int64_t>(ids[n]) * C;
    const float* p = wpe + static_cast<int64_t>(positions[n]) * C;
    const float* tt = wtt ? wtt + (type_ids ? static_cast<int64_t>(type_ids[n]) * C : 0) : nullptr;
    for (int64_t c = 0; c < C; ++c) {
      float x = w[c];
      if (tt) x += tt[c];
      out[n * C + c] = x + p[c];
    }
  }
}

void embedding_bwd(float* dwte, float* dwpe, float* dwtt, const float* dout, const int32_t* ids,
                   const int8_t* type_ids, const int32_t* positions, int64_t N, int C, int pad_id) {
  for (int64_t n = 0; n < N; ++n) {
    const float* d = dout + n * C;
    float* gw = ids[n] == pad_id ? nullptr : dwte + static_cast<int64_t>(ids[n]) * C;
    float* gp = dwpe + static_cast<int64_t>(positions[n]) * C;
    float* gt = dwtt ? dwtt + (type_ids ? static_cast<int64_t>(type_ids[n]) * C : 0) : nullptr;
    for (int64_t c = 0; c < C; ++c) {
      if (gw) gw[c] += d[c];
      gp[c] += d[c];
      if (gt) gt[c] += d[c];
    }
  }
}

}  // namespace ref
}  // namespace cpuft
