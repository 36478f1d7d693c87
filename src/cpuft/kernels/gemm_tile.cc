// tile_matmul (gemm.h): oneDNN's f32 sgemm; tile_matmul_bf16: the AMX or AVX512_BF16 kernel where the
// kernel level has it, else the f32 sgemm of the same values; and the scalar model of the AVX512_BF16
// kernel that the tests hold it to.
#include <dnnl.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "cpuft/cpu/isa.h"
#include "cpuft/kernels/gemm.h"
#include "cpuft/kernels/gemm_tile_paths.h"
#include "cpuft/tensor/bf16.h"
#include "cpuft/util/aligned_vector.h"
#include "cpuft/util/error.h"

namespace cpuft {
namespace {

// Element (i, j) of op(X) for X stored row-major with stride ld, as f32.
float at(const uint16_t* x, int64_t ld, bool trans, int64_t i, int64_t j) {
  return bf16_to_f32(trans ? x[j * ld + i] : x[i * ld + j]);
}

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

void store_at(void* c, int64_t at, float y, TileStore store) {
  if (store == TileStore::kBf16)
    static_cast<uint16_t*>(c)[at] = f32_to_bf16(y);
  else
    static_cast<float*>(c)[at] = y;
}

void check_sizes(const char* what, int64_t m, int64_t n, int64_t k) {
  if (m <= 0 || n <= 0 || k <= 0) fail(what, ": m = ", m, ", n = ", n, ", k = ", k, ", expected all > 0");
}

void sgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
           const float* b, int64_t ldb, float* c, int64_t ldc) {
  const dnnl_status_t st =
      dnnl_sgemm(trans_a ? 'T' : 'N', trans_b ? 'T' : 'N', m, n, k, alpha, a, lda, b, ldb, 0.0f, c, ldc);
  if (st != dnnl_success) fail("oneDNN sgemm failed (status ", static_cast<int>(st), ") for m=", m, " n=", n, " k=", k);
}

// A stored matrix of bf16 values (rows x cols, row stride ld) as f32 in `slot`'s scratch, rows packed.
float* as_f32(int slot, const uint16_t* x, int64_t rows, int64_t cols, int64_t ld) {
  thread_local AlignedVector<float> scratch[2];
  AlignedVector<float>& v = scratch[slot];
  if (v.size() < static_cast<size_t>(rows * cols)) v.resize(static_cast<size_t>(rows * cols));
  for (int64_t r = 0; r < rows; ++r) bf16_to_f32_array(x + r * ld, v.data() + r * cols, cols);
  return v.data();
}

}  // namespace

namespace gemm_tile {

void bf16_reference(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const uint16_t* a,
                    int64_t lda, const uint16_t* b, int64_t ldb, void* c, int64_t ldc, TileStore store) {
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (int64_t p = 0; 2 * p < k; ++p) {
        const int64_t e = 2 * p, o = 2 * p + 1;
        const double odd =
            o < k ? double{bf16_in(at(a, lda, trans_a, i, o))} * bf16_in(at(b, ldb, trans_b, o, j)) : 0.0;
        const double even = double{bf16_in(at(a, lda, trans_a, i, e))} * bf16_in(at(b, ldb, trans_b, e, j));
        acc = flush(static_cast<float>(acc + odd));
        acc = flush(static_cast<float>(acc + even));
      }
      store_at(c, i * ldc + j, acc * alpha, store);
    }
}

}  // namespace gemm_tile

bool tile_matmul_bf16_native() {
  static const bool native = kernel_isa() >= Isa::kAvx512Bf16;
  return native;
}

void tile_matmul(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                 int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc) {
  check_sizes("tile_matmul", m, n, k);
  sgemm(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, c, ldc);
}

void tile_matmul_bf16(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const uint16_t* a,
                      int64_t lda, const uint16_t* b, int64_t ldb, void* c, int64_t ldc, TileStore store) {
  check_sizes("tile_matmul_bf16", m, n, k);
  if (tile_matmul_bf16_native()) {
    static const auto kernel = kernel_isa() == Isa::kAmx ? gemm_tile::bf16_amx : gemm_tile::bf16_avx512;
    kernel(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, c, ldc, store);
    return;
  }
  // Elsewhere the operands' values go to f32 scratch (their stored rows packed) for the f32 product.
  const float* a32 = as_f32(0, a, trans_a ? k : m, trans_a ? m : k, lda);
  const float* b32 = as_f32(1, b, trans_b ? n : k, trans_b ? k : n, ldb);
  if (store == TileStore::kBf16) {  // the f32 result in scratch, then rounded into C
    thread_local AlignedVector<float> out;
    if (out.size() < static_cast<size_t>(m * n)) out.resize(static_cast<size_t>(m * n));
    sgemm(trans_a, trans_b, m, n, k, alpha, a32, trans_a ? m : k, b32, trans_b ? k : n, out.data(), n);
    for (int64_t i = 0; i < m; ++i) f32_to_bf16_array(out.data() + i * n, static_cast<uint16_t*>(c) + i * ldc, n);
    return;
  }
  sgemm(trans_a, trans_b, m, n, k, alpha, a32, trans_a ? m : k, b32, trans_b ? k : n, static_cast<float*>(c), ldc);
}

}  // namespace cpuft
