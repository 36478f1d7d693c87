// The implementations behind tile_matmul_bf16 (gemm.h): the AVX512_BF16 kernel and its scalar model,
// and the AMX kernel.
// Private to kernels/ and its tests.
#pragma once

#include <cstdint>

#include "cpuft/kernels/gemm.h"

namespace cpuft::gemm_tile {

// C = alpha op(A) op(B) as AVX512_BF16 dot products (gemm_tile_avx512.cc): the operands are packed
// into bf16 pairs along k (a zero pair completes an odd k), each output accumulates one pair at a
// time in f32 (vdpbf16ps), then is scaled by alpha and stored as `store` says. Only after
// tile_matmul_bf16_native().
void bf16_avx512(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const uint16_t* a,
                 int64_t lda, const uint16_t* b, int64_t ldb, void* c, int64_t ldc, TileStore store);

// The same product on AMX (gemm_tile_amx.cc): tdpbf16ps over tiles of 16 pairs (zero pairs past k),
// then scaled by alpha and stored as `store` says. tdpbf16ps sums the products of a tile inside the
// unit, in an order and with an internal rounding that Intel does not define (neither vdpbf16ps's
// pair at a time, in either order, nor one rounding of the exact sum, on Sapphire Rapids), so it has no
// scalar model: the tests hold it to the pair model within a few f32 roundings, and to giving each
// output's bits from its own row and column only. Only at the amx kernel level (cpu/isa.h).
void bf16_amx(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const uint16_t* a,
              int64_t lda, const uint16_t* b, int64_t ldb, void* c, int64_t ldc, TileStore store);

// The same arithmetic in scalar code, for the tests: for each pair p, acc = (acc + a[2p+1] b[2p+1]) +
// a[2p] b[2p], each sum rounded once to f32, as vdpbf16ps defines it, with denormal inputs and results
// flushed to zero; then acc * alpha, stored as `store` says. Each product enters its sum exactly, as on
// the CPU (in double, where the product of two bf16 values and its sum with an f32 are exact whenever the
// sum could round otherwise): a product below f32's range still gives a zero sum its sign.
void bf16_reference(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const uint16_t* a,
                    int64_t lda, const uint16_t* b, int64_t ldb, void* c, int64_t ldc, TileStore store);

}  // namespace cpuft::gemm_tile
