#include "cpuft/kernels/gemm.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "cpuft/cpu/isa.h"
#include "cpuft/cpu/onednn_info.h"
#include "cpuft/kernels/gemm_primitives.h"
#include "cpuft/kernels/gemm_weight_grad.h"
#include "cpuft/kernels/transpose.h"
#include "cpuft/kernels/weight_blocks.h"
#include "cpuft/tensor/bf16.h"
#include "cpuft/util/aligned_vector.h"
#include "cpuft/util/error.h"

namespace cpuft {
namespace {

using gemm_detail::ProductShape;

bool is_float(DType t) { return t == DType::kF32 || t == DType::kBf16; }

void check_operand(const char* what, const void* data, DType type, int64_t row_stride,
                   int64_t row_len) {
  if (!data) fail("matmul: operand ", what, " is a null pointer");
  if (!is_float(type)) fail("matmul: operand ", what, " has dtype ", dtype_name(type), ", expected f32 or bf16");
  if (row_stride < row_len)
    fail("matmul: operand ", what, " has row_stride ", row_stride, ", expected >= ", row_len);
}

void validate(int64_t B, int64_t H, int64_t M, int64_t N, int64_t K, const MatIn& a,
              const MatIn& b, const MatOut& c, const MatmulOptions& opt) {
  const int64_t sizes[] = {B, H, M, N, K};
  const char* names[] = {"B", "H", "M", "N", "K"};
  for (int i = 0; i < 5; ++i)
    if (sizes[i] <= 0) fail("matmul: ", names[i], " is ", sizes[i], ", expected > 0");
  check_operand("A", a.data, a.dtype, a.row_stride, a.trans ? M : K);
  check_operand("B", b.data ? b.data : b.blocked, b.dtype, b.row_stride, b.trans ? K : N);
  check_operand("C", c.data, c.dtype, c.row_stride, N);
  if (opt.bias && (B != 1 || H != 1))
    fail("matmul: a bias needs B == H == 1, got B = ", B, ", H = ", H);
  if (opt.bias && opt.alpha != 1.0f) fail("matmul: a bias needs alpha == 1, got ", opt.alpha);
}

// Scratch for the f32 emulation (slots 0-2), the transposed weight gradient or a bf16 weight gradient's
// blocked x (3), the re-strided f32 weight of backward-data (4) and a bf16 weight gradient's dy^T (5),
// grown on demand and kept: after the first step of a training run no more memory is allocated here.
float* scratch(int slot, int64_t n) {
  thread_local AlignedVector<float> buffers[6];
  AlignedVector<float>& v = buffers[slot];
  if (static_cast<int64_t>(v.size()) < n) v.resize(static_cast<size_t>(n));
  return v.data();
}

// Copies the [rows, cols] matrices of every (b, h) from a strided layout (f32 or bf16) into a
// contiguous f32 buffer, one matrix after another.
void gather_f32(int64_t B, int64_t H, int64_t rows, int64_t cols, const void* src, DType type,
                int64_t row, int64_t batch, int64_t head, float* dst) {
  const int64_t lines = B * H * rows;
#pragma omp parallel for schedule(static) if (lines * cols > (1 << 15))
  for (int64_t l = 0; l < lines; ++l) {
    const int64_t r = l % rows, bh = l / rows, h = bh % H, b = bh / H;
    const int64_t off = b * batch + h * head + r * row;
    float* out = dst + l * cols;
    if (type == DType::kBf16) {
      bf16_to_f32_array(static_cast<const uint16_t*>(src) + off, out, cols);
    } else {
      const float* in = static_cast<const float*>(src) + off;
      for (int64_t j = 0; j < cols; ++j) out[j] = in[j];
    }
  }
}

// The reverse for a bf16 destination: contiguous f32 matrices rounded into a strided bf16 layout.
void scatter_bf16(int64_t B, int64_t H, int64_t rows, int64_t cols, const float* src, void* dst,
                  int64_t row, int64_t batch, int64_t head) {
  const int64_t lines = B * H * rows;
#pragma omp parallel for schedule(static) if (lines * cols > (1 << 15))
  for (int64_t l = 0; l < lines; ++l) {
    const int64_t r = l % rows, bh = l / rows, h = bh % H, b = bh / H;
    f32_to_bf16_array(src + l * cols, static_cast<uint16_t*>(dst) + b * batch + h * head + r * row, cols);
  }
}

// An input operand as contiguous f32: itself when already f32, else converted into scratch slot.
MatIn as_f32(int64_t B, int64_t H, int64_t rows, int64_t cols, const MatIn& m, int slot) {
  if (m.dtype == DType::kF32) return m;
  // The stored matrix is [cols, rows] when read transposed.
  const int64_t sr = m.trans ? cols : rows, sc = m.trans ? rows : cols;
  float* buf = scratch(slot, B * H * sr * sc);
  gather_f32(B, H, sr, sc, m.data, m.dtype, m.row_stride, m.batch_stride, m.head_stride, buf);
  MatIn out;
  out.data = buf;
  out.dtype = DType::kF32;
  out.row_stride = sc;
  out.trans = m.trans;
  out.batch_stride = H * sr * sc;
  out.head_stride = sr * sc;
  return out;
}

// The emulated product once B is f32 (b32): A converted, the f32 product, a bf16 C rounded from it.
void emulate_with_f32_b(int64_t B, int64_t H, int64_t M, int64_t N, int64_t K, const MatIn& a, const MatIn& b32,
                        const MatOut& c, const MatmulOptions& opt) {
  const MatIn a32 = as_f32(B, H, M, K, a, 0);
  if (c.dtype == DType::kF32) {
    matmul(B, H, M, N, K, a32, b32, c, opt);
    return;
  }
  float* buf = scratch(2, B * H * M * N);
  if (opt.accumulate) gather_f32(B, H, M, N, c.data, c.dtype, c.row_stride, c.batch_stride, c.head_stride, buf);
  MatOut c32;
  c32.data = buf;
  c32.dtype = DType::kF32;
  c32.row_stride = N;
  c32.batch_stride = H * M * N;
  c32.head_stride = M * N;
  matmul(B, H, M, N, K, a32, b32, c32, opt);
  scatter_bf16(B, H, M, N, buf, c.data, c.row_stride, c.batch_stride, c.head_stride);
}

}  // namespace

namespace gemm_detail {

void emulate_in_f32(int64_t B, int64_t H, int64_t M, int64_t N, int64_t K, const MatIn& a,
                    const MatIn& b, const MatOut& c, const MatmulOptions& opt) {
  const MatIn b32 = as_f32(B, H, K, N, b, 1);
  if (B != 1 || H != 1 || a.trans) {
    emulate_with_f32_b(B, H, M, N, K, a, b32, c, opt);
    return;
  }
  // Each output row depends on its own row of A only, so the rows go block by block (one block for
  // M <= kEmulatedRows).
  for (int64_t r = 0; r < M; r += kEmulatedRows) {
    MatIn ar = a;
    MatOut cr = c;
    ar.data = static_cast<const char*>(a.data) + r * a.row_stride * static_cast<int64_t>(dtype_size(a.dtype));
    cr.data = static_cast<char*>(c.data) + r * c.row_stride * static_cast<int64_t>(dtype_size(c.dtype));
    emulate_with_f32_b(1, 1, std::min(kEmulatedRows, M - r), N, K, ar, b32, cr, opt);
  }
}

}  // namespace gemm_detail

void matmul(int64_t B, int64_t H, int64_t M, int64_t N, int64_t K, const MatIn& a, const MatIn& b,
            const MatOut& c, const MatmulOptions& opt) {
  validate(B, H, M, N, K, a, b, c, opt);
  ProductShape s;
  s.B = B, s.H = H, s.M = M, s.N = N, s.K = K;
  s.a_type = a.dtype, s.b_type = b.dtype, s.c_type = c.dtype;
  // Strides of a size-1 batch dimension never matter: zero them so they do not split the cache.
  s.a_row = a.row_stride, s.a_batch = B > 1 ? a.batch_stride : 0, s.a_head = H > 1 ? a.head_stride : 0;
  s.b_row = b.row_stride, s.b_batch = B > 1 ? b.batch_stride : 0, s.b_head = H > 1 ? b.head_stride : 0;
  s.c_row = c.row_stride, s.c_batch = B > 1 ? c.batch_stride : 0, s.c_head = H > 1 ? c.head_stride : 0;
  s.a_trans = a.trans, s.b_trans = b.trans;
  s.alpha = opt.alpha, s.bias = opt.bias != nullptr, s.accumulate = opt.accumulate;
  if (b.blocked) {
    s.b_blocked = true;
    if (const gemm_detail::Primitive* p = gemm_detail::find_primitive(s)) {
      gemm_detail::execute(*p, a.data, b.blocked, c.data, opt.bias);
      return;
    }
    s.b_blocked = false;
    if (!b.data) {
      // No product of oneDNN's reads this blocked B here (gemm_detail::set_pair_blocks_everywhere): the
      // product of its values read back as a dense B stored as b says (transposed or not), which is
      // the product the row-major weight gives.
      const std::optional<PairBlockLayout> l = gemm_detail::blocked_layout(K, N);
      if (!l) fail_internal("matmul: a blocked B of K=", K, " N=", N, " where there is no blocked layout");
      std::vector<uint16_t> values(static_cast<size_t>(K * N));
      read_pair_blocks(values.data(), *l, static_cast<const uint16_t*>(b.blocked), K, N, b.trans);
      MatIn plain = b;
      plain.data = values.data(), plain.row_stride = b.trans ? K : N, plain.blocked = nullptr;
      matmul(B, H, M, N, K, a, plain, c, opt);
      return;
    }
  }
  if (const gemm_detail::Primitive* p = gemm_detail::find_primitive(s)) {
    gemm_detail::execute(*p, a.data, b.data, c.data, opt.bias);
    return;
  }
  if (a.dtype == DType::kF32 && b.dtype == DType::kF32 && c.dtype == DType::kF32)
    fail("matmul: oneDNN cannot build an f32 product for B=", B, " H=", H, " M=", M, " N=", N, " K=", K);
  gemm_detail::emulate_in_f32(B, H, M, N, K, a, b, c, opt);
}

namespace {

// The layout of W [N, K]'s copy for `use`: the forward reads W^T ([K, N], stored [N, K]); backward-data
// reads W ([N, K] as stored).
std::optional<PairBlockLayout> weight_layout(int64_t N, int64_t K, WeightUse use) {
  return use == WeightUse::kForward ? gemm_detail::blocked_layout(K, N) : gemm_detail::blocked_layout(N, K);
}

}  // namespace

size_t blocked_weight_bytes(int64_t N, int64_t K, WeightUse use) {
  const std::optional<PairBlockLayout> l = weight_layout(N, K, use);
  return l ? l->bytes : 0;
}

void block_weight(void* forward, void* backward_data, const void* w, DType w_type, int64_t N, int64_t K) {
  const std::optional<PairBlockLayout> fwd =
      forward ? weight_layout(N, K, WeightUse::kForward) : std::nullopt;
  const std::optional<PairBlockLayout> bwd =
      backward_data ? weight_layout(N, K, WeightUse::kBackwardData) : std::nullopt;
  if ((forward && !fwd) || (backward_data && !bwd))
    fail("block_weight: no blocked layout here (bf16 products are not native)");
  if (!is_float(w_type)) fail("block_weight: weight dtype ", dtype_name(w_type), ", expected f32 or bf16");
  write_weight_blocks(static_cast<uint16_t*>(forward), fwd ? &*fwd : nullptr, static_cast<uint16_t*>(backward_data),
                      bwd ? &*bwd : nullptr, w, w_type, N, K);
}

namespace {

// True when rows of K f32 values are a multiple of 4 KiB long: oneDNN's f32 products read such rows
// slowly as their B operand (on Sapphire Rapids: the rows of a panel share a few L1 sets), so the
// products around the FFN's 3,072-wide side avoid it (linear_backward_data, linear_backward_weight).
bool f32_rows_alias(int64_t K) { return (K * static_cast<int64_t>(sizeof(float))) % 4096 == 0; }

// W [N, K] as the B of the forward product (W^T) or of backward-data (W).
MatIn weight_operand(const void* w, DType in, int64_t K, bool forward, const void* w_blocked) {
  MatIn b{w, in, K, /*trans=*/forward};
  if (in == DType::kBf16) b.blocked = w_blocked;
  return b;
}

}  // namespace

void linear_forward(int64_t M, int64_t N, int64_t K, const void* x, const void* w, DType in,
                    const float* bias, void* y, DType out, const void* w_blocked) {
  MatmulOptions opt;
  opt.bias = bias;
  matmul(1, 1, M, N, K, MatIn{x, in, K}, weight_operand(w, in, K, true, w_blocked), MatOut{y, out, N}, opt);
}

void linear_backward_data(int64_t M, int64_t N, int64_t K, const void* dy, const void* w, DType in,
                          void* dx, DType out, bool accumulate, const void* w_blocked) {
  MatmulOptions opt;
  opt.accumulate = accumulate;
  MatIn b = weight_operand(w, in, K, false, w_blocked);
  if (in == DType::kF32 && w && f32_rows_alias(K)) {  // W copied with rows 64 bytes longer
    const int64_t ld = K + 16;
    float* wp = scratch(4, N * ld);
#pragma omp parallel for schedule(static)
    for (int64_t n = 0; n < N; ++n)
      std::memcpy(wp + n * ld, static_cast<const float*>(w) + n * K, static_cast<size_t>(K) * sizeof(float));
    b = MatIn{wp, DType::kF32, ld};
  }
  matmul(1, 1, M, K, N, MatIn{dy, in, N}, b, MatOut{dx, out, K}, opt);
}

void linear_backward_weight(int64_t M, int64_t N, int64_t K, const void* dy, const void* x, DType in,
                            float* dw, bool accumulate) {
  if (in == DType::kBf16 && M > 0 && kernel_isa() == Isa::kAmx && gemm_weight_grad::amx_shape(N, K)) {
    gemm_weight_grad::amx(M, N, K, static_cast<const uint16_t*>(dy), static_cast<const uint16_t*>(x), dw, accumulate);
    return;
  }
  if (!weight_gradient_by_transpose(N, K, in)) {
    MatmulOptions opt;
    opt.accumulate = accumulate;
    MatIn a{dy, in, N, /*trans=*/true}, b{x, in, K};
    if (const std::optional<PairBlockLayout> l =
            weight_gradient_blocks_x(N, in) ? gemm_detail::blocked_layout(M, K) : std::nullopt) {
      auto* xb = reinterpret_cast<uint16_t*>(scratch(3, static_cast<int64_t>(l->bytes + 3) / 4));
      write_pair_blocks(xb, *l, static_cast<const uint16_t*>(x), M, K);
      b.blocked = xb;
      // dy^T row-major, its rows on cache lines.
      const int64_t ld = transpose_bf16_ld(M);
      auto* dyt = reinterpret_cast<uint16_t*>(scratch(5, (N * ld + 1) / 2));
      transpose_bf16(dyt, ld, static_cast<const uint16_t*>(dy), M, N);
      a = MatIn{dyt, in, ld};
    }
    matmul(1, 1, N, K, M, a, b, MatOut{dw, DType::kF32, K}, opt);
    return;
  }
  // dW^T [K, N] = x^T dy into scratch, then into dW transposed, 32 x 32 at a time.
  float* t = scratch(3, N * K);  // slots 0-2: the emulation's, which the product may use
  matmul(1, 1, K, N, M, MatIn{x, in, K, /*trans=*/true}, MatIn{dy, in, N}, MatOut{t, DType::kF32, N});
  constexpr int64_t kBlock = 32;
#pragma omp parallel for schedule(static)
  for (int64_t n0 = 0; n0 < N; n0 += kBlock)
    for (int64_t k0 = 0; k0 < K; k0 += kBlock)
      for (int64_t n = n0; n < std::min(N, n0 + kBlock); ++n)
        for (int64_t k = k0; k < std::min(K, k0 + kBlock); ++k)
          dw[n * K + k] = accumulate ? dw[n * K + k] + t[k * N + n] : t[k * N + n];
}

bool weight_gradient_blocks_x(int64_t N, DType in) { return in == DType::kBf16 && N >= kBlockedXMinRows; }

bool weight_gradient_by_transpose(int64_t N, int64_t K, DType in) {
  return in == DType::kF32 && K > N && f32_rows_alias(K);
}

const std::string& gemm_bf16_impl() {
  static const std::string impl = [] {
    // A layer-sized product, so that oneDNN picks what it picks for the model's shapes.
    ProductShape s;
    s.M = 128, s.N = 256, s.K = 256;
    s.a_type = s.b_type = DType::kBf16;
    s.a_row = s.K, s.b_row = s.N, s.c_row = s.N;
    const gemm_detail::Primitive* p = gemm_detail::find_primitive(s);
    return p ? std::string(gemm_detail::impl_name(*p)) : std::string();
  }();
  return impl;
}

bool gemm_bf16_native() { return !gemm_bf16_impl().empty(); }

int64_t gemm_primitives_created() { return gemm_detail::primitives_created(); }

int64_t gemm_primitives_cached() { return gemm_detail::primitives_cached(); }

std::string describe_gemm() {
  return describe_onednn() + ", bf16 matmul: " +
         (gemm_bf16_native() ? "native (" + gemm_bf16_impl() + ")" : "emulated in f32");
}

}  // namespace cpuft
