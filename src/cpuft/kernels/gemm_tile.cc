// tile_matmul (gemm.h): the AVX512_BF16 kernel where the CPU has it and bf16 is asked for, else
// oneDNN's f32 sgemm; and the scalar model of the bf16 kernel that the tests hold it to.
#include <dnnl.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "cpuft/cpu/isa.h"
#include "cpuft/kernels/gemm.h"
#include "cpuft/kernels/gemm_tile_paths.h"
#include "cpuft/tensor/bf16.h"
#include "cpuft/util/error.h"

namespace cpuft {
namespace {

// Element (i, j) of op(X) for X stored row-major with stride ld.
float at(const float* x, int64_t ld, bool trans, int64_t i, int64_t j) { return trans ? x[j * ld + i] : x[i * ld + j]; }

// x's bf16 value (the high half of its f32 bits), a denormal flushed to zero as vdpbf16ps reads it.
float bf16_in(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  u &= 0xffff0000u;
  if ((u & 0x7f800000u) == 0) u &= 0x80000000u;
  float y;
  std::memcpy(&y, &u, 4);
  return y;
}

float flush(float x) { return std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(0.0f, x) : x; }

}  // namespace

namespace gemm_tile {

void bf16_reference(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                    int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc) {
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (int64_t p = 0; 2 * p < k; ++p) {
        const int64_t e = 2 * p, o = 2 * p + 1;
        const float odd = o < k ? bf16_in(at(a, lda, trans_a, i, o)) * bf16_in(at(b, ldb, trans_b, o, j)) : 0.0f;
        const float even = bf16_in(at(a, lda, trans_a, i, e)) * bf16_in(at(b, ldb, trans_b, e, j));
        acc = flush(flush(acc + odd) + even);
      }
      c[i * ldc + j] = acc * alpha;
    }
}

}  // namespace gemm_tile

bool tile_matmul_bf16_native() {
  static const bool native = kernel_isa() == Isa::kAvx512Bf16;
  return native;
}

void tile_matmul(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                 int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc, bool bf16, bool round_c) {
  if (m <= 0 || n <= 0 || k <= 0) fail("tile_matmul: m = ", m, ", n = ", n, ", k = ", k, ", expected all > 0");
  if (bf16 && tile_matmul_bf16_native()) {
    gemm_tile::bf16_avx512(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, c, ldc, round_c);
    return;
  }
  const dnnl_status_t st =
      dnnl_sgemm(trans_a ? 'T' : 'N', trans_b ? 'T' : 'N', m, n, k, alpha, a, lda, b, ldb, 0.0f, c, ldc);
  if (st != dnnl_success) fail("oneDNN sgemm failed (status ", static_cast<int>(st), ") for m=", m, " n=", n, " k=", k);
  if (bf16 && round_c)
    for (int64_t i = 0; i < m; ++i) round_bf16_array(c + i * ldc, c + i * ldc, n);
}

void tile_matmul_a16(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const uint16_t* a,
                     int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc) {
  if (m <= 0 || n <= 0 || k <= 0) fail("tile_matmul_a16: m = ", m, ", n = ", n, ", k = ", k, ", expected all > 0");
  if (tile_matmul_bf16_native()) {
    gemm_tile::bf16_avx512_a16(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, c, ldc);
    return;
  }
  // Elsewhere A's values go to f32 scratch for the f32 product (the stored rows: k of m, or m of k).
  const int64_t rows = trans_a ? k : m, cols = trans_a ? m : k;
  thread_local std::vector<float> scratch;
  if (scratch.size() < static_cast<size_t>(rows * cols)) scratch.resize(static_cast<size_t>(rows * cols));
  for (int64_t r = 0; r < rows; ++r) bf16_to_f32_array(a + r * lda, scratch.data() + r * cols, cols);
  tile_matmul(trans_a, trans_b, m, n, k, alpha, scratch.data(), cols, b, ldb, c, ldc, /*bf16=*/true);
}

}  // namespace cpuft
