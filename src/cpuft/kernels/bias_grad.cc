// The bias gradient of a Linear layer (declared in gemm.h beside the products): dispatch through the
// ISA table.
#include "cpuft/kernels/gemm.h"
#include "cpuft/kernels/kernel_table.h"

namespace cpuft {

void bias_grad(float* db, const float* dy, int64_t M, int64_t N) { kernels().bias_grad(db, dy, M, N); }

}  // namespace cpuft
