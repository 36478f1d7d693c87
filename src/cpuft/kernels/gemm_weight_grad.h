// The bf16 weight gradient on AMX, behind linear_backward_weight (gemm.h). Private to kernels/ and its
// tests.
#pragma once

#include <cstdint>

namespace cpuft::gemm_weight_grad {

// True where amx() computes this product: N and K multiples of 32 (every hidden and feed-forward width
// of the supported models; a QA or classification head's few rows are left to oneDNN), and a weight of at
// least 512 x 512 elements' worth. Below that its packing weighs more than it saves: at 3,072 tokens a
// 384 x 384 weight (MiniLM's output projection) took 0.80 ms here against oneDNN's 0.68, while 1,152 x 384
// already gained (1.83 against 1.96 ms).
inline bool amx_shape(int64_t N, int64_t K) {
  return N > 0 && K > 0 && N % 32 == 0 && K % 32 == 0 && N * K >= int64_t{512} * 512;
}

// dW[N,K] (+)= dy[M,N]^T x[M,K] from bf16 dy and x (row-major, rows N and K long), f32 dW, for M > 0
// and an amx_shape. Only at the amx kernel level (cpu/isa.h); gemm_weight_grad_amx.cc.
//
// oneDNN 2.6.3 reads this product's A transposed, at 0.85-1.3 TFLOP/s on Sapphire Rapids against 1.2-1.9
// for the forward products of the same size. Here the M tokens run in chunks of 256, over passes of at
// most 1,536 columns of dW: the threads pair x's rows into B panels for the chunk (at most 768 KiB), then
// share out work items of 32 rows x 256 columns of dW; a thread transposes the 32 rows' dy columns into A
// tiles (16 KiB) once per row block, and runs the chunk's tdpbf16ps over each 32 x 32 block of the item,
// loaded from dW and stored back. Each element of dW is computed by one thread, chunk after chunk in
// order: the same bits for any thread count. Not oneDNN's bits in general: it splits 3,072 tokens otherwise,
// and adds an accumulated dW after the product where this kernel starts from it (from zeroed gradients, at
// the up to 1,024 tokens measured, the two agree bit for bit).
void amx(int64_t M, int64_t N, int64_t K, const uint16_t* dy, const uint16_t* x, float* dw, bool accumulate);

}  // namespace cpuft::gemm_weight_grad
