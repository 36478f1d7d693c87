// The bias gradient of a Linear layer: scalar reference (cpuft::ref).
#include "cpuft/kernels/ref_kernels.h"

namespace cpuft {
namespace ref {

void bias_grad(float* db, const float* dy, int64_t M, int64_t N) {
  for (int64_t c = 0; c < N; ++c) {
    float acc = 0.0f;
    for (int64_t m = 0; m < M; ++m) acc += dy[m * N + c];
    db[c] += acc;
  }
}

}  // namespace ref
}  // namespace cpuft
