// Internal to gemm.cc (and its tests): the process-wide oneDNN engine and stream, and the cache of matmul
// primitives keyed by everything that shapes one (sizes, strides, dtypes, alpha, bias, accumulate).
#pragma once

#include <cstdint>
#include <optional>

#include <dnnl.hpp>

#include "cpuft/kernels/gemm.h"
#include "cpuft/kernels/weight_blocks.h"

namespace cpuft::gemm_detail {

// Everything matmul() needs to build a primitive; the data pointers are not part of it.
struct ProductShape {
  int64_t B = 1, H = 1, M = 0, N = 0, K = 0;
  DType a_type = DType::kF32, b_type = DType::kF32, c_type = DType::kF32;
  int64_t a_row = 0, a_batch = 0, a_head = 0;
  int64_t b_row = 0, b_batch = 0, b_head = 0;
  int64_t c_row = 0, c_batch = 0, c_head = 0;
  bool a_trans = false, b_trans = false;
  float alpha = 1.0f;
  bool bias = false;
  bool accumulate = false;
  bool b_blocked = false;  // B (B == H == 1, bf16) in the blocked layout of blocked_bytes (K, N)
};

class Primitive;

// The cached primitive for `shape`, built on first use; nullptr when oneDNN cannot build it, or
// offers only its reference implementation for a product involving bf16 (then the caller
// emulates in f32). Thread-safe.
const Primitive* find_primitive(const ProductShape& shape);

// The layout oneDNN's bf16 product prefers for a bf16 [K, N] B operand (its blocked weights format: the
// same for every M), which write_weight_blocks writes; nullopt where bf16 products are not native, or where
// that layout is not pairs of rows in blocks (the products then read row-major weights). Cached per
// (K, N), at most kCacheCapacity of them (blocked_layouts_cached).
std::optional<PairBlockLayout> blocked_layout(int64_t K, int64_t N);
int64_t blocked_layouts_cached();
// For tests on CPUs whose bf16 products are not native: on, blocked_layout gives BA16a64b2a's layout
// where it would give none, so that blocked weight copies are made, and matmul reads such copies back
// row-major (no product of oneDNN's reads them here): the blocked path of a model runs end to end on
// any CPU. Set it before the model is made, with no product running.
void set_pair_blocks_everywhere(bool on);
// The layout of oneDNN's format tag `tag` for a bf16 [rows, cols] operand, as blocked_layout reads the
// product's choice; nullopt where it is not pairs of rows in blocks. For the tests of other tags.
std::optional<PairBlockLayout> pair_blocks_of_tag(int64_t rows, int64_t cols, dnnl::memory::format_tag tag);

// Runs a primitive from find_primitive on the shared stream and waits for it.
void execute(const Primitive& p, const void* a, const void* b, void* c, const float* bias);

// oneDNN's name for the implementation a primitive runs ("brg:avx512_core_bf16", "gemm:jit", ...).
const char* impl_name(const Primitive& p);

// The rows of A (and C) an emulated product converts at a time: the scratch of a long product (the
// forward of a b64 s384 evaluation batch: 24,576 rows) stays at one such block instead of holding
// every row in f32 twice.
constexpr int64_t kEmulatedRows = 4096;

// The product with every bf16 operand converted to f32 scratch, the f32 product, and a bf16 output
// rounded once from it: what matmul() does where oneDNN has no bf16 product (gemm.h). Exposed so
// that tests run it on CPUs where bf16 products are native too.
void emulate_in_f32(int64_t B, int64_t H, int64_t M, int64_t N, int64_t K, const MatIn& a,
                    const MatIn& b, const MatOut& c, const MatmulOptions& opt);

int64_t primitives_created();
int64_t primitives_cached();

// The most primitives the cache holds (see find_primitive). Packed evaluation at batch 8 x 384 makes
// 5 shapes for each of up to 48 row counts (rounded to kProductRowBlock): 256 keeps them all. A
// training step with dynamic padding makes about 15 per padded length, so the cache must be bounded.
constexpr int64_t kCacheCapacity = 256;

}  // namespace cpuft::gemm_detail
