// cpuft's f32 and bf16 matrix products (the int8 ones are gemm_int8.h's): the linear layers (forward,
// backward data, backward weights) through oneDNN matmul primitives, and the small single-threaded
// products of the attention tiles; beside them the linear layers' bias gradient (bias_grad).
//
// Every product runs on one process-wide oneDNN CPU engine and stream. A primitive is built the
// first time a (shapes, strides, dtypes, alpha, bias, accumulate) combination is seen and cached,
// so with fixed shapes no primitive is created after the first training step. The cache holds up
// to 1,024 primitives and starts again when full (shapes that change every batch, as with dynamic
// padding, would otherwise grow it without bound).
// Pointers are raw; element strides count elements, not bytes. Operands must not alias the output.
//
// Call from one thread at a time: each product already uses every OpenMP thread.
//
// Precision: inputs are f32 or bf16 (uint16_t storage); accumulation is always f32; the output is
// f32 or bf16 (rounded to nearest even once, at the end). Where oneDNN cannot build the product
// with the requested dtypes (bf16 in oneDNN 2.6 without AVX-512, e.g. AMD Zen 3; a bf16 output
// from f32 inputs; one bf16 and one f32 input), the bf16 operands are converted to f32 scratch,
// the f32 product runs, and a bf16 output is rounded from the f32 result: numerically the same as
// a bf16 product with f32 accumulation. A long product (B == H == 1, A not transposed) converts its
// rows 4,096 at a time, so that this scratch stays bounded. gemm_bf16_native() says which case
// applies to bf16 inputs.
#pragma once

#include <cstdint>
#include <string>

#include "cpuft/tensor/dtype.h"

namespace cpuft {

// One input operand: a matrix per batch index (b, h). Element (i, j) of matrix (b, h) is at
//   data[b * batch_stride + h * head_stride + i * row_stride + j]            (trans == false)
//   data[b * batch_stride + h * head_stride + j * row_stride + i]            (trans == true)
// i.e. `trans` reads a row-major matrix as its transpose (e.g. W[N,K] read as W^T[K,N]).
struct MatIn {
  const void* data = nullptr;
  DType dtype = DType::kF32;  // f32 or bf16
  int64_t row_stride = 0;    // distance between consecutive rows of the stored matrix
  bool trans = false;
  int64_t batch_stride = 0;  // distance between consecutive b (unused when B == 1)
  int64_t head_stride = 0;   // distance between consecutive h (unused when H == 1)
  // B only (bf16, B == H == 1): the same matrix as block_weight made it, read in its place where oneDNN
  // builds that product (otherwise data is read; with data null, the blocked values read back into a
  // dense B stored as row_stride and trans say); null: none.
  const void* blocked = nullptr;
};

// The output: element (i, j) of matrix (b, h) is at
//   data[b * batch_stride + h * head_stride + i * row_stride + j].
struct MatOut {
  void* data = nullptr;
  DType dtype = DType::kF32;  // f32 or bf16
  int64_t row_stride = 0;
  int64_t batch_stride = 0;
  int64_t head_stride = 0;
};

struct MatmulOptions {
  float alpha = 1.0f;           // scales the product (not the accumulated C); must be 1 with a bias
  const float* bias = nullptr;  // optional f32 bias[N] added to every row (only with B == H == 1)
  bool accumulate = false;      // C += result instead of C = result
};

// For every b < B, h < H:  C[b,h] (+)= alpha * A[b,h] · Bm[b,h] (+ bias),
// with A [M, K], Bm [K, N] and C [M, N] as described by MatIn / MatOut. Throws cpuft::Error on
// non-positive sizes, null pointers, integer dtypes, a row stride shorter than a row, or a bias
// with a batch or with alpha != 1. M, N, K, B, H may be any positive size.
void matmul(int64_t B, int64_t H, int64_t M, int64_t N, int64_t K, const MatIn& a, const MatIn& b,
            const MatOut& c, const MatmulOptions& opt = {});

// ---- A linear layer's bf16 weight in oneDNN's own (blocked) layout. Where bf16 products are native,
// the forward product (x W^T) and the input gradient (dy W) read W [N, K] faster in the layout oneDNN
// picks for them than row-major (docs/performance.md, "Weights in oneDNN's layout"); the layout depends
// on N and K only, never on the rows of the product.
enum class WeightUse { kForward, kBackwardData };
// Bytes of W [N, K]'s copy for `use`; 0 where bf16 products are not native (no copy is made then).
size_t blocked_weight_bytes(int64_t N, int64_t K, WeightUse use);
// W [N, K] (row-major, f32 or bf16) as bf16 (f32 rounded to nearest even: the values of f32_to_bf16) in
// the layout of each use: forward and backward_data (each nullable; blocked_weight_bytes each, 4-byte
// aligned), in one pass over W (kernels/weight_blocks.h).
void block_weight(void* forward, void* backward_data, const void* w, DType w_type, int64_t N, int64_t K);

// ---- Linear layer: x [M, K] row-major, W [N, K] row-major (as Hugging Face stores [out, in]).
// `in` is the dtype of x/dy and W (f32 or bf16), `out` the dtype of the result. w_blocked (nullable,
// bf16 only): W as block_weight made it for the product's use, read instead of w where oneDNN builds it
// (w may then be null: a model that keeps only the blocked copies).

// y[M,N] = x[M,K] · W[N,K]^T (+ bias[N], may be null).
void linear_forward(int64_t M, int64_t N, int64_t K, const void* x, const void* w, DType in,
                    const float* bias, void* y, DType out = DType::kF32, const void* w_blocked = nullptr);

// dx[M,K] (+)= dy[M,N] · W[N,K]. An f32 W whose rows are a multiple of 4 KiB long (an FFN output layer's
// [768, 3072]) is first copied into kept scratch with rows 64 bytes longer, which oneDNN reads about 2x
// faster on Sapphire Rapids (the same values and summation order: the same bits).
void linear_backward_data(int64_t M, int64_t N, int64_t K, const void* dy, const void* w, DType in,
                          void* dx, DType out = DType::kF32, bool accumulate = false,
                          const void* w_blocked = nullptr);

// dW[N,K] (+)= dy[M,N]^T · x[M,K]   (f32 result; accumulate adds to the existing dW, for gradient
// accumulation over micro-batches). bf16 products of a weight that gemm_weight_grad::amx_shape takes (N
// and K multiples of 32, at least 512 x 512 elements) run on cpuft's AMX tile kernel at the amx kernel
// level (gemm_weight_grad.h: 1.1-1.9x oneDNN 2.6.3's, which reads dy transposed; the same bits for any
// thread count); every other product is oneDNN's, and where weight_gradient_blocks_x says so it reads x
// from a copy in the blocked layout oneDNN picks for it (gemm_primitives.h, blocked_layout) and dy^T from a
// row-major copy (kernels/transpose.h), both written first.
void linear_backward_weight(int64_t M, int64_t N, int64_t K, const void* dy, const void* x, DType in,
                            float* dw, bool accumulate);
// Where bf16 products are native, oneDNN 2.6.3 repacks a row-major x inside each weight-gradient product:
// the model's ran at 337-365 GFLOP/s in a Zen 4 training step, and at 425-429 reading a blocked copy that
// cpuft writes first in one pass over x (docs/performance.md, "The weight gradients from a blocked x").
// That pass reads M x K values for a product of M x N x K, so it pays from this many rows of dW up
// (DistilBERT's and MiniLM's layers: 384 to 3,072; a QA or classification head's: 2 to a few dozen).
// The same products read dy transposed, which oneDNN copies inside them too: they read a row-major dy^T
// that cpuft writes first (in a pass over dy at about the machine's copy bandwidth), at 412-438 GFLOP/s
// instead of 385-408 in a Zen 4 training step at b32 s128 (docs/performance.md, "dy^T written first").
constexpr int64_t kBlockedXMinRows = 256;
// True where linear_backward_weight reads x from its blocked copy and dy^T from its row-major one (where
// blocked_layout gives a layout).
bool weight_gradient_blocks_x(int64_t N, DType in);
// True where linear_backward_weight computes dW^T = x^T dy [K, N] instead (into scratch kept for the
// next call, then added to dW transposed): f32 products whose x rows are a multiple of 4 KiB long and
// longer than dy's. oneDNN reads such a B operand slowly (its rows fall into the same few L1 sets: about
// 95 against 250 GFLOP/s for an FFN output layer's f32 weight gradient on Sapphire Rapids) and reads it
// fast as the transposed A operand. Another summation order: not the bits of the direct product. bf16
// products keep the direct form (not measured to gain; their x is blocked instead, above).
bool weight_gradient_by_transpose(int64_t N, int64_t K, DType in);

// db (N) += sum over the M rows of dy (M,N): the bias gradient of a Linear layer whose output
// gradient is dy. Not a product: one of cpuft's own kernels (kernel_table.h; bias_grad.cc), declared
// here beside the layer's other backward passes. Deterministic: each column is summed over the rows
// in order (f32), and the threads split the columns, so every ISA and thread count gives the same bits.
void bias_grad(float* db, const float* dy, int64_t M, int64_t N);

// ---- Small products inside one thread: the attention tiles (model/attention.cc).

// C[m, n] = alpha * op(A) op(B), C overwritten; op(X) = X^T when trans_x. A is stored [m, k] (or
// [k, m] when trans_a) and B [k, n] (or [n, k] when trans_b), row-major with the row strides given
// (in elements). Runs on the calling thread only (the attention core runs one (sequence, head) per
// thread).

// f32 operands and result (oneDNN's sgemm).
void tile_matmul(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                 int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc);

// How tile_matmul_bf16 stores C: f32, or bf16 (uint16_t storage).
enum class TileStore { kF32, kBf16 };

// bf16 operands (uint16_t storage), f32 accumulation: AMX tiles (tdpbf16ps) at the amx kernel level,
// AVX512_BF16 dot products (vdpbf16ps) at avx512_bf16, else the f32 product of the same values
// (another summation order).
// c is a float* or, with TileStore::kBf16, a uint16_t*.
void tile_matmul_bf16(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const uint16_t* a,
                      int64_t lda, const uint16_t* b, int64_t ldb, void* c, int64_t ldc, TileStore store);
// True when tile_matmul_bf16 runs as bf16 dot products (the kernel level is avx512_bf16 or amx).
bool tile_matmul_bf16_native();

// ---- Introspection.

// oneDNN's implementation of a layer-sized bf16 product on this CPU ("brg:avx512_core_amx_bf16" on
// AMX, "brg:avx512_core_bf16" on AVX512_BF16), or "" when bf16 products are emulated in f32.
// Decided once, by building the primitive.
const std::string& gemm_bf16_impl();
// True when oneDNN builds bf16 products natively (gemm_bf16_impl() is not empty).
bool gemm_bf16_native();
// Number of primitives built so far (tests use it to show the cache works).
int64_t gemm_primitives_created();
// Number of primitives the cache holds now (at most 1,024).
int64_t gemm_primitives_cached();
// One line: "oneDNN 2.6.3, isa avx2, bf16 matmul: emulated in f32" or
// "oneDNN 2.6.3, isa avx512_core_bf16, bf16 matmul: native (brg:avx512_core_bf16)".
std::string describe_gemm();

}  // namespace cpuft
