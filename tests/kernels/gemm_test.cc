// oneDNN products against a naive double-precision loop that reads the operands through the same
// (strided, transposed, batched) descriptions, in f32 and bf16.
#include "cpuft/kernels/gemm.h"
#include "cpuft/kernels/gemm_primitives.h"
#include "cpuft/kernels/gemm_tile_paths.h"
#include "cpuft/kernels/gemm_weight_grad.h"

#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <dnnl_version.h>

#include "cpuft/cpu/cpu_features.h"
#include "cpuft/cpu/isa.h"
#include "cpuft/cpu/onednn_info.h"
#include "cpuft/tensor/bf16.h"
#include "cpuft/util/error.h"

namespace cpuft {
namespace {

// A buffer that holds either f32 or bf16 elements, filled with random values in [-1, 1).
struct Buf {
  DType dtype;
  std::vector<float> f;
  std::vector<uint16_t> h;
  Buf(DType t, int64_t n, uint32_t seed) : dtype(t) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    if (t == DType::kF32) {
      f.resize(n);
      for (float& x : f) x = u(rng);
    } else {
      h.resize(n);
      for (uint16_t& x : h) x = f32_to_bf16(u(rng));
    }
  }
  void* data() { return dtype == DType::kF32 ? static_cast<void*>(f.data()) : h.data(); }
  double at(int64_t i) const { return dtype == DType::kF32 ? f[i] : bf16_to_f32(h[i]); }
};

double read(const void* p, DType t, int64_t i) {
  return t == DType::kF32 ? static_cast<const float*>(p)[i] : bf16_to_f32(static_cast<const uint16_t*>(p)[i]);
}

int64_t in_offset(const MatIn& m, int64_t b, int64_t h, int64_t i, int64_t j) {
  return b * m.batch_stride + h * m.head_stride + (m.trans ? j * m.row_stride + i : i * m.row_stride + j);
}

int64_t out_offset(const MatOut& m, int64_t b, int64_t h, int64_t i, int64_t j) {
  return b * m.batch_stride + h * m.head_stride + i * m.row_stride + j;
}

// Tolerance: f32 accumulation error is bounded by a small multiple of eps * sum |a_ik * b_kj|
// (1e-5 covers K up to a few hundred with margin); a bf16 output adds one rounding, at most
// 2^-8 relative (twice that allowed, for the accumulation error on top).
constexpr double kAccumTol = 1e-5;
constexpr double kBf16OutTol = 1.0 / 128;

// Runs matmul and checks every element of C against the double-precision reference computed from
// the operands as stored (bf16 operands are compared on their bf16 values); c_before holds C's
// contents before the call (read only when accumulating). Elements of C outside the described
// matrices must be unchanged.
void check_matmul(int64_t B, int64_t H, int64_t M, int64_t N, int64_t K, const MatIn& a,
                  const MatIn& b, Buf& c, const MatOut& cd, const MatmulOptions& opt,
                  const std::string& what) {
  const int64_t cn = static_cast<int64_t>(c.dtype == DType::kF32 ? c.f.size() : c.h.size());
  std::vector<double> before(cn);
  for (int64_t i = 0; i < cn; ++i) before[i] = c.at(i);
  std::vector<bool> covered(cn, false);
  // cd may start inside c (e.g. the V third of a fused QKV gradient buffer).
  const int64_t base = (static_cast<const char*>(cd.data) - static_cast<const char*>(c.data())) /
                       static_cast<int64_t>(dtype_size(c.dtype));
  matmul(B, H, M, N, K, a, b, cd, opt);
  double worst = 0;
  for (int64_t bb = 0; bb < B; ++bb)
    for (int64_t hh = 0; hh < H; ++hh)
      for (int64_t i = 0; i < M; ++i)
        for (int64_t j = 0; j < N; ++j) {
          double sum = 0, mag = 0;
          for (int64_t k = 0; k < K; ++k) {
            double p = read(a.data, a.dtype, in_offset(a, bb, hh, i, k)) *
                       read(b.data, b.dtype, in_offset(b, bb, hh, k, j));
            sum += p;
            mag += std::fabs(p);
          }
          const int64_t o = base + out_offset(cd, bb, hh, i, j);
          double want = opt.alpha * sum + (opt.bias ? opt.bias[j] : 0.0) + (opt.accumulate ? before[o] : 0.0);
          mag = std::fabs(opt.alpha) * mag + (opt.accumulate ? std::fabs(before[o]) : 0.0) +
                (opt.bias ? std::fabs(opt.bias[j]) : 0.0);
          double tol = kAccumTol * mag + 1e-6 + (cd.dtype == DType::kBf16 ? kBf16OutTol * std::fabs(want) : 0.0);
          double err = std::fabs(c.at(o) - want);
          worst = std::max(worst, err / tol);
          ASSERT_LE(err, tol) << what << " at b=" << bb << " h=" << hh << " i=" << i << " j=" << j
                              << " got " << c.at(o) << " want " << want;
          covered[o] = true;
        }
  for (int64_t i = 0; i < cn; ++i) {
    if (!covered[i]) {
      ASSERT_EQ(c.at(i), before[i]) << what << ": wrote outside C at " << i;
    }
  }
  ::testing::Test::RecordProperty(what, std::to_string(worst));
}

struct Shape {
  int64_t M, N, K;
};
const Shape kShapes[] = {{7, 13, 5}, {37, 65, 33}, {1, 1, 1}, {64, 3, 129}};
const DType kTypes[] = {DType::kF32, DType::kBf16};

std::string tag(const char* op, const Shape& s, DType in, DType out, bool flag) {
  return std::string(op) + " " + std::to_string(s.M) + "x" + std::to_string(s.N) + "x" + std::to_string(s.K) +
         " in=" + dtype_name(in) + " out=" + dtype_name(out) + (flag ? " +flag" : "");
}

TEST(Gemm, LinearForwardWithAndWithoutBias) {
  uint32_t seed = 1;
  for (const Shape& s : kShapes)
    for (DType in : kTypes)
      for (DType out : kTypes)
        for (bool with_bias : {false, true}) {
          Buf x(in, s.M * s.K, ++seed), w(in, s.N * s.K, ++seed), y(out, s.M * s.N, ++seed);
          Buf bias(DType::kF32, s.N, ++seed);
          MatmulOptions opt;
          opt.bias = with_bias ? bias.f.data() : nullptr;
          // What linear_forward promises, checked through the reference on the same layout.
          MatIn a{x.data(), in, s.K}, b{w.data(), in, s.K, true};
          MatOut c{y.data(), out, s.N};
          Buf y2(out, s.M * s.N, seed);
          check_matmul(1, 1, s.M, s.N, s.K, a, b, y, c, opt, tag("fwd", s, in, out, with_bias));
          linear_forward(s.M, s.N, s.K, x.data(), w.data(), in, opt.bias, y2.data(), out);
          for (int64_t i = 0; i < s.M * s.N; ++i) ASSERT_EQ(y2.at(i), y.at(i)) << "linear_forward differs";
        }
}

TEST(Gemm, LinearBackwardDataAccumulates) {
  uint32_t seed = 100;
  for (const Shape& s : kShapes)
    for (DType in : kTypes)
      for (DType out : kTypes)
        for (bool acc : {false, true}) {
          Buf dy(in, s.M * s.N, ++seed), w(in, s.N * s.K, ++seed), dx(out, s.M * s.K, ++seed);
          Buf dx2 = dx;
          MatmulOptions opt;
          opt.accumulate = acc;
          check_matmul(1, 1, s.M, s.K, s.N, MatIn{dy.data(), in, s.N}, MatIn{w.data(), in, s.K},
                       dx, MatOut{dx.data(), out, s.K}, opt, tag("bwd_data", s, in, out, acc));
          linear_backward_data(s.M, s.N, s.K, dy.data(), w.data(), in, dx2.data(), out, acc);
          for (int64_t i = 0; i < s.M * s.K; ++i) ASSERT_EQ(dx2.at(i), dx.at(i)) << "linear_backward_data differs";
        }
}

TEST(Gemm, LinearBackwardWeightAccumulates) {
  uint32_t seed = 200;
  for (const Shape& s : kShapes)
    for (DType in : kTypes)
      for (bool acc : {false, true}) {
        Buf dy(in, s.M * s.N, ++seed), x(in, s.M * s.K, ++seed), dw(DType::kF32, s.N * s.K, ++seed);
        Buf dw2 = dw;
        MatmulOptions opt;
        opt.accumulate = acc;
        check_matmul(1, 1, s.N, s.K, s.M, MatIn{dy.data(), in, s.N, true}, MatIn{x.data(), in, s.K},
                     dw, MatOut{dw.data(), DType::kF32, s.K}, opt, tag("bwd_weight", s, in, DType::kF32, acc));
        linear_backward_weight(s.M, s.N, s.K, dy.data(), x.data(), in, dw2.f.data(), acc);
        for (int64_t i = 0; i < s.N * s.K; ++i) ASSERT_EQ(dw2.at(i), dw.at(i)) << "linear_backward_weight differs";
      }
}

// Where f32 x rows are a multiple of 4 KiB and longer than dy's, the weight gradient is computed as its
// transpose and added transposed (gemm.h): the gradient up to f32 rounding, written or accumulated.
TEST(Gemm, WeightGradientThroughItsTransposeIsTheGradient) {
  EXPECT_TRUE(weight_gradient_by_transpose(768, 3072, DType::kF32));  // an FFN output layer
  EXPECT_FALSE(weight_gradient_by_transpose(768, 4096, DType::kBf16));
  EXPECT_FALSE(weight_gradient_by_transpose(3072, 768, DType::kF32));
  EXPECT_FALSE(weight_gradient_by_transpose(768, 768, DType::kF32));
  EXPECT_FALSE(weight_gradient_by_transpose(8, 1000, DType::kF32));
  uint32_t seed = 300;
  const DType in = DType::kF32;
  const Shape s{37, 9, 1024};
  ASSERT_TRUE(weight_gradient_by_transpose(s.N, s.K, in));
  for (bool acc : {false, true}) {
    Buf dy(in, s.M * s.N, ++seed), x(in, s.M * s.K, ++seed), dw(DType::kF32, s.N * s.K, ++seed);
    Buf dw2 = dw;
    MatmulOptions opt;
    opt.accumulate = acc;
    check_matmul(1, 1, s.N, s.K, s.M, MatIn{dy.data(), in, s.N, true}, MatIn{x.data(), in, s.K}, dw,
                 MatOut{dw.data(), DType::kF32, s.K}, opt, tag("bwd_weight^T", s, in, DType::kF32, acc));
    linear_backward_weight(s.M, s.N, s.K, dy.data(), x.data(), in, dw2.f.data(), acc);
    for (int64_t i = 0; i < s.N * s.K; ++i)
      ASSERT_NEAR(dw2.at(i), dw.at(i), 1e-5) << tag("bwd_weight^T", s, in, DType::kF32, acc) << " at " << i;
  }
}

// Expects dw = dy^T x (+ before, accumulating) for bf16 dy [M, N] and x [M, K], against the double-precision
// sum within check_matmul's tolerance.
void expect_weight_gradient(const Buf& dy, const Buf& x, const std::vector<float>& before, const std::vector<float>& dw,
                            int64_t M, int64_t N, int64_t K, bool acc, const std::string& what) {
  for (int64_t n = 0; n < N; ++n)
    for (int64_t k = 0; k < K; ++k) {
      double sum = 0, mag = 0;
      for (int64_t t = 0; t < M; ++t) {
        const double p = dy.at(t * N + n) * x.at(t * K + k);
        sum += p;
        mag += std::fabs(p);
      }
      const double b = acc ? before[n * K + k] : 0.0, want = sum + b;
      ASSERT_NEAR(dw[n * K + k], want, kAccumTol * (mag + std::fabs(b)) + 1e-6) << what << " at n=" << n << " k=" << k;
    }
}

// bf16 weight gradients whose N and K are multiples of 32, of at least 512 x 512 elements, run on AMX tiles
// at the amx kernel level (gemm_weight_grad.h), over chunks of 256 tokens and passes of at most 1,536
// columns: one token, an odd token count, tokens past two chunks, columns past a pass, partial 256-column
// groups; written or accumulated. At the other levels the same promise holds through oneDNN.
TEST(Gemm, Bf16WeightGradientOfWholeBlocksIsTheProduct) {
  EXPECT_TRUE(gemm_weight_grad::amx_shape(768, 3072));
  EXPECT_TRUE(gemm_weight_grad::amx_shape(2304, 768));
  EXPECT_TRUE(gemm_weight_grad::amx_shape(1152, 384));
  EXPECT_FALSE(gemm_weight_grad::amx_shape(384, 384));  // faster through oneDNN
  EXPECT_FALSE(gemm_weight_grad::amx_shape(2, 768));    // a QA head's
  EXPECT_FALSE(gemm_weight_grad::amx_shape(768, 1000));
  uint32_t seed = 350;
  const Shape shapes[] = {{1, 512, 512}, {37, 256, 1056}, {513, 512, 512}, {300, 160, 1664}};
  for (const Shape& s : shapes)
    for (bool acc : {false, true}) {
      ASSERT_TRUE(gemm_weight_grad::amx_shape(s.N, s.K));
      Buf dy(DType::kBf16, s.M * s.N, ++seed), x(DType::kBf16, s.M * s.K, ++seed), dw(DType::kF32, s.N * s.K, ++seed);
      const std::vector<float> before = dw.f;
      linear_backward_weight(s.M, s.N, s.K, dy.data(), x.data(), DType::kBf16, dw.f.data(), acc);
      expect_weight_gradient(dy, x, before, dw.f, s.M, s.N, s.K, acc, tag("bwd_weight amx", s, DType::kBf16, DType::kF32, acc));
    }
}

// bf16 weight gradients of at least kBlockedXMinRows rows read x from a copy in oneDNN's blocked layout
// and dy^T from a row-major copy, both written first (gemm.h): the product, written or accumulated, for
// token counts and widths that leave padding in the copy's blocks and partial blocks in the transpose
// (token counts that are and are not multiples of 32; a width that is not a multiple of 8). Where bf16
// products are not native the x copy is made in a stand-in layout (set_pair_blocks_everywhere) and the
// product reads x itself.
TEST(Gemm, Bf16WeightGradientFromABlockedXIsTheProduct) {
  EXPECT_TRUE(weight_gradient_blocks_x(768, DType::kBf16));
  EXPECT_TRUE(weight_gradient_blocks_x(kBlockedXMinRows, DType::kBf16));
  EXPECT_FALSE(weight_gradient_blocks_x(kBlockedXMinRows - 1, DType::kBf16));
  EXPECT_FALSE(weight_gradient_blocks_x(2, DType::kBf16));  // a QA head's
  EXPECT_FALSE(weight_gradient_blocks_x(768, DType::kF32));
  gemm_detail::set_pair_blocks_everywhere(!gemm_bf16_native());
  uint32_t seed = 370;
  const Shape shapes[] = {{1, 256, 70}, {37, 300, 33}, {129, 256, 130}, {300, 384, 96}, {320, 260, 40}};
  for (const Shape& s : shapes)
    for (bool acc : {false, true}) {
      ASSERT_FALSE(kernel_isa() == Isa::kAmx && gemm_weight_grad::amx_shape(s.N, s.K));
      Buf dy(DType::kBf16, s.M * s.N, ++seed), x(DType::kBf16, s.M * s.K, ++seed), dw(DType::kF32, s.N * s.K, ++seed);
      const std::vector<float> before = dw.f;
      linear_backward_weight(s.M, s.N, s.K, dy.data(), x.data(), DType::kBf16, dw.f.data(), acc);
      expect_weight_gradient(dy, x, before, dw.f, s.M, s.N, s.K, acc,
                             tag("bwd_weight blocked x", s, DType::kBf16, DType::kF32, acc));
    }
  gemm_detail::set_pair_blocks_everywhere(false);
}

// The weight gradients ask for x's blocked layout with the token count, which varies from batch to batch
// under dynamic padding: the layouts' cache stays bounded, a layout asked again after it started again is
// the one given before, and a weight gradient after that is still the product.
TEST(Gemm, BlockedLayoutCacheStaysBounded) {
  gemm_detail::set_pair_blocks_everywhere(!gemm_bf16_native());
  const auto first = gemm_detail::blocked_layout(130, 96);
  ASSERT_TRUE(first.has_value());
  for (int64_t tokens = 1; tokens <= gemm_detail::kCacheCapacity + 40; ++tokens) {
    ASSERT_TRUE(gemm_detail::blocked_layout(tokens, 96).has_value()) << tokens << " tokens";
    ASSERT_LE(gemm_detail::blocked_layouts_cached(), gemm_detail::kCacheCapacity) << "after " << tokens << " tokens";
  }
  const auto again = gemm_detail::blocked_layout(130, 96);
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(0, std::memcmp(&*first, &*again, sizeof(PairBlockLayout)));
  const Shape s{129, 256, 130};
  Buf dy(DType::kBf16, s.M * s.N, 401), x(DType::kBf16, s.M * s.K, 402), dw(DType::kF32, s.N * s.K, 403);
  const std::vector<float> before = dw.f;
  linear_backward_weight(s.M, s.N, s.K, dy.data(), x.data(), DType::kBf16, dw.f.data(), /*accumulate=*/false);
  expect_weight_gradient(dy, x, before, dw.f, s.M, s.N, s.K, false,
                         tag("bwd_weight after the layouts' cache started again", s, DType::kBf16, DType::kF32, false));
  gemm_detail::set_pair_blocks_everywhere(false);
}

// On AMX each element of dW is computed by one thread, chunk after chunk in order: the same bits for any
// thread count (reproducible training, as the kernels of kernel_table.h promise).
TEST(Gemm, Bf16WeightGradientOnAmxIsTheSameOnAnyThreadCount) {
  if (kernel_isa() != Isa::kAmx) GTEST_SKIP() << "kernel level " << isa_name(kernel_isa()) << ": oneDNN's product";
  const Shape s{613, 192, 1600};
  ASSERT_TRUE(gemm_weight_grad::amx_shape(s.N, s.K));
  Buf dy(DType::kBf16, s.M * s.N, 361), x(DType::kBf16, s.M * s.K, 362), dw(DType::kF32, s.N * s.K, 363);
  const int threads = omp_get_max_threads();
  std::vector<float> got[2];
  for (int i = 0; i < 2; ++i) {
    omp_set_num_threads(i == 0 ? 1 : 3);
    got[i] = dw.f;
    linear_backward_weight(s.M, s.N, s.K, dy.data(), x.data(), DType::kBf16, got[i].data(), /*accumulate=*/true);
  }
  omp_set_num_threads(threads);
  EXPECT_EQ(got[0], got[1]);
}

// An f32 W whose rows are a multiple of 4 KiB is read from a copy with longer rows (gemm.h): the bits of
// the product of W as stored, written or accumulated.
TEST(Gemm, BackwardDataOfAWideF32WeightIsTheProduct) {
  uint32_t seed = 400;
  const Shape s{37, 9, 1024};
  for (bool acc : {false, true}) {
    Buf dy(DType::kF32, s.M * s.N, ++seed), w(DType::kF32, s.N * s.K, ++seed), dx(DType::kF32, s.M * s.K, ++seed);
    Buf dx2 = dx;
    MatmulOptions opt;
    opt.accumulate = acc;
    check_matmul(1, 1, s.M, s.K, s.N, MatIn{dy.data(), DType::kF32, s.N}, MatIn{w.data(), DType::kF32, s.K}, dx,
                 MatOut{dx.data(), DType::kF32, s.K}, opt, tag("bwd_data wide", s, DType::kF32, DType::kF32, acc));
    linear_backward_data(s.M, s.N, s.K, dy.data(), w.data(), DType::kF32, dx2.data(), DType::kF32, acc);
    for (int64_t i = 0; i < s.M * s.K; ++i) ASSERT_EQ(dx2.at(i), dx.at(i)) << "at " << i;
  }
}

TEST(Gemm, MixedInputDtypesAndScaledAccumulate) {
  Shape s{9, 11, 17};
  Buf a(DType::kBf16, s.M * s.K, 1), b(DType::kF32, s.K * s.N, 2), c(DType::kF32, s.M * s.N, 3);
  MatmulOptions opt;
  opt.alpha = -0.375f;
  opt.accumulate = true;
  check_matmul(1, 1, s.M, s.N, s.K, MatIn{a.data(), DType::kBf16, s.K}, MatIn{b.data(), DType::kF32, s.N}, c,
               MatOut{c.data(), DType::kF32, s.N}, opt, "mixed bf16 x f32, alpha, accumulate");
}

// tile_matmul: the small products of the attention tiles, every transpose combination, tail sizes
// around the kernels' blocks (AVX512_BF16: 6 rows, 16-column vectors, pairs along k; AMX: 32 x 32
// blocks of 16 x 16 tiles, 16 pairs along k, A read as stored when k is a multiple of 32).
struct Tile {
  int64_t m, n, k;
};
const Tile kTiles[] = {{1, 1, 1},     {5, 15, 2},     {6, 16, 3},    {7, 17, 31},   {13, 64, 32},
                       {12, 65, 64},  {31, 100, 65},  {64, 384, 64}, {384, 64, 96}, {33, 47, 70},
                       {17, 31, 130}, {45, 40, 64}};

// Random values rounded to bf16 (and a few exact zeros), in f32 storage, row-major with `ld` >= cols.
std::vector<float> bf16_values(int64_t rows, int64_t cols, int64_t ld, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-2.0f, 2.0f);
  std::vector<float> x(static_cast<size_t>(rows * ld), std::nanf(""));  // padding past cols is never read
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) x[r * ld + c] = rng() % 17 == 0 ? 0.0f : bf16_to_f32(f32_to_bf16(u(rng)));
  return x;
}

// bf16 storage of values already bf16 (NaN padding as a quiet NaN: never read either).
std::vector<uint16_t> as_bf16(const std::vector<float>& x) {
  std::vector<uint16_t> h(x.size());
  for (size_t i = 0; i < x.size(); ++i) h[i] = f32_to_bf16(x[i]);
  return h;
}

struct TileCase {
  bool ta, tb;
  Tile t;
  std::vector<float> a, b;
  std::vector<uint16_t> a16, b16;
  int64_t lda, ldb, ldc;
  // a_pad: A's row stride past its row. An even k with an even row stride is the case the AVX512_BF16
  // kernel reads A as stored (its rows are pair words already) instead of packing it.
  TileCase(bool ta_, bool tb_, Tile t_, uint32_t seed, int64_t a_pad = 3) : ta(ta_), tb(tb_), t(t_) {
    const int64_t ar = ta ? t.k : t.m, ac = ta ? t.m : t.k, br = tb ? t.n : t.k, bc = tb ? t.k : t.n;
    lda = ac + a_pad, ldb = bc + 1, ldc = t.n + 2;  // strided, as the attention tiles' head slices are
    a = bf16_values(ar, ac, lda, seed);
    b = bf16_values(br, bc, ldb, seed + 1);
    a16 = as_bf16(a);
    b16 = as_bf16(b);
  }
  std::string name() const {
    return "m=" + std::to_string(t.m) + " n=" + std::to_string(t.n) + " k=" + std::to_string(t.k) +
           (ta ? " A^T" : "") + (tb ? " B^T" : "");
  }
  // The exact product in double, for the f32 path's tolerance.
  double exact(int64_t i, int64_t j) const {
    double s = 0;
    for (int64_t p = 0; p < t.k; ++p)
      s += double(ta ? a[p * lda + i] : a[i * lda + p]) * double(tb ? b[j * ldb + p] : b[p * ldb + j]);
    return s;
  }
  // The sum of the products' magnitudes of output (i, j): the scale of its rounding errors.
  double magnitude(int64_t i, int64_t j) const {
    double s = 0;
    for (int64_t p = 0; p < t.k; ++p)
      s += std::fabs(double(ta ? a[p * lda + i] : a[i * lda + p]) * double(tb ? b[j * ldb + p] : b[p * ldb + j]));
    return s;
  }
  // tile_matmul_bf16 into an output of -7 (bf16 0xc0e0 for TileStore::kBf16), as floats.
  std::vector<float> bf16_product(TileStore store, bool reference = false, float alpha = 0.125f) const {
    const size_t size = static_cast<size_t>(t.m * ldc);
    std::vector<float> out(size, -7.0f);
    std::vector<uint16_t> out16(size, f32_to_bf16(-7.0f));
    void* c = store == TileStore::kBf16 ? static_cast<void*>(out16.data()) : static_cast<void*>(out.data());
    if (reference)
      gemm_tile::bf16_reference(ta, tb, t.m, t.n, t.k, alpha, a16.data(), lda, b16.data(), ldb, c, ldc, store);
    else
      tile_matmul_bf16(ta, tb, t.m, t.n, t.k, alpha, a16.data(), lda, b16.data(), ldb, c, ldc, store);
    if (store == TileStore::kBf16)
      for (size_t i = 0; i < size; ++i) out[i] = bf16_to_f32(out16[i]);
    return out;
  }
};

constexpr TileStore kTileStores[] = {TileStore::kF32, TileStore::kBf16};

TEST(TileMatmul, F32ProductsAreTheProduct) {
  for (bool ta : {false, true})
    for (bool tb : {false, true})
      for (const Tile& t : kTiles) {
        TileCase c(ta, tb, t, 5);
        std::vector<float> out(static_cast<size_t>(t.m * c.ldc), -7.0f);
        tile_matmul(ta, tb, t.m, t.n, t.k, 0.5f, c.a.data(), c.lda, c.b.data(), c.ldb, out.data(), c.ldc);
        for (int64_t i = 0; i < t.m; ++i) {
          for (int64_t j = 0; j < t.n; ++j)
            ASSERT_NEAR(out[i * c.ldc + j], 0.5 * c.exact(i, j), 1e-5 * (1 + std::sqrt(double(t.k)))) << c.name();
          for (int64_t j = t.n; j < c.ldc; ++j) ASSERT_EQ(out[i * c.ldc + j], -7.0f) << "wrote past n " << c.name();
        }
      }
}

// The AVX512_BF16 kernel gives vdpbf16ps's arithmetic: one pair of exact bf16 products added per
// step (the odd element first), as the scalar model computes it; bit for bit on this CPU, for every
// way of storing the result.
TEST(TileMatmul, Bf16KernelMatchesItsScalarModel) {
  if (kernel_isa() != Isa::kAvx512Bf16)
    GTEST_SKIP() << "the kernel level is " << isa_name(kernel_isa()) << ", not avx512_bf16";
  for (bool ta : {false, true})
    for (bool tb : {false, true})
      for (const Tile& t : kTiles)
        for (int64_t a_pad : {3, 2})
          for (TileStore store : kTileStores) {
            TileCase c(ta, tb, t, 9, a_pad);
            const std::vector<float> got = c.bf16_product(store), want = c.bf16_product(store, /*reference=*/true);
            for (int64_t i = 0; i < t.m; ++i)
              for (int64_t j = 0; j < c.ldc; ++j) {
                ASSERT_EQ(got[i * c.ldc + j], want[i * c.ldc + j])
                    << c.name() << " lda " << c.lda << " store " << static_cast<int>(store) << " at " << i << ", " << j;
                if (j >= t.n) {
                  ASSERT_EQ(got[i * c.ldc + j], -7.0f) << "wrote past n " << c.name();
                }
              }
          }
}

// Products below f32's range: vdpbf16ps adds each product exactly, so a sum of such products is a zero
// with the sign of the last one added (+0 + -2^-200 is -0), where products rounded to f32 first would
// give +0 (+0 + -0). The kernel and its scalar model give the same bits, signs of zero included.
TEST(TileMatmul, Bf16KernelAndItsModelAddEachProductExactly) {
  if (kernel_isa() != Isa::kAvx512Bf16)
    GTEST_SKIP() << "the kernel level is " << isa_name(kernel_isa()) << ", not avx512_bf16";
  const int64_t m = 3, n = 16, k = 4;
  std::vector<uint16_t> a(m * k), b(k * n);
  for (int64_t i = 0; i < m * k; ++i) a[i] = f32_to_bf16(std::ldexp(i % 3 == 1 ? -1.0f : 1.0f, -100));
  for (int64_t i = 0; i < k * n; ++i) b[i] = f32_to_bf16(std::ldexp(i % 5 < 2 ? -1.5f : 1.0f, -100));
  std::vector<float> got(m * n, 7.0f), want(m * n, 7.0f);
  tile_matmul_bf16(false, false, m, n, k, 0.5f, a.data(), k, b.data(), n, got.data(), n, TileStore::kF32);
  gemm_tile::bf16_reference(false, false, m, n, k, 0.5f, a.data(), k, b.data(), n, want.data(), n, TileStore::kF32);
  int negative_zeros = 0;
  for (int64_t i = 0; i < m * n; ++i) {
    ASSERT_EQ(got[i], 0.0f) << "at " << i;
    ASSERT_EQ(std::signbit(got[i]), std::signbit(want[i])) << "sign of the zero at " << i;
    negative_zeros += std::signbit(got[i]) ? 1 : 0;
  }
  EXPECT_GT(negative_zeros, 0);
  EXPECT_LT(negative_zeros, m * n);
}

// The AMX kernel has no scalar model (gemm_tile_paths.h): it agrees with the pair model within a few
// f32 roundings of the products' magnitudes (and one bf16 step more for the rounded stores), writes
// nothing past n, and each output's bits come from its own row of A and column of B only: a row or a
// column computed alone gives the bits it gets among the others (so a window's attention does not
// depend on the windows beside it).
TEST(TileMatmul, AmxKernelAgreesWithThePairModelAndEachOutputStandsAlone) {
  if (kernel_isa() != Isa::kAmx) GTEST_SKIP() << "the kernel level is " << isa_name(kernel_isa()) << ", not amx";
  for (bool ta : {false, true})
    for (bool tb : {false, true})
      for (const Tile& t : kTiles) {
        for (TileStore store : kTileStores) {
          TileCase c(ta, tb, t, 21);
          const std::vector<float> got = c.bf16_product(store), want = c.bf16_product(store, /*reference=*/true);
          for (int64_t i = 0; i < t.m; ++i)
            for (int64_t j = 0; j < c.ldc; ++j) {
              const float g = got[i * c.ldc + j], w = want[i * c.ldc + j];
              if (j >= t.n) {
                ASSERT_EQ(g, -7.0f) << "wrote past n " << c.name();
                continue;
              }
              double bound = 0.125 * c.magnitude(i, j) * std::ldexp(1.0, -21);
              if (store != TileStore::kF32) bound += std::fabs(w) * std::ldexp(1.0, -7);
              ASSERT_LE(std::fabs(double(g) - w), bound) << c.name() << " store " << static_cast<int>(store) << " at " << i << ", " << j;
            }
        }
        TileCase c(ta, tb, t, 23);
        const std::vector<float> all = c.bf16_product(TileStore::kF32);
        for (int64_t i : {int64_t{0}, t.m / 2, t.m - 1}) {  // row i alone
          std::vector<float> row(static_cast<size_t>(t.n));
          const uint16_t* ai = c.a16.data() + (ta ? i : i * c.lda);
          tile_matmul_bf16(ta, tb, 1, t.n, t.k, 0.125f, ai, c.lda, c.b16.data(), c.ldb, row.data(), t.n, TileStore::kF32);
          for (int64_t j = 0; j < t.n; ++j) ASSERT_EQ(row[j], all[i * c.ldc + j]) << c.name() << " row " << i;
        }
        for (int64_t j : {int64_t{0}, t.n - 1}) {  // column j alone
          std::vector<float> col(static_cast<size_t>(t.m));
          const uint16_t* bj = c.b16.data() + (tb ? j * c.ldb : j);
          tile_matmul_bf16(ta, tb, t.m, 1, t.k, 0.125f, c.a16.data(), c.lda, bj, c.ldb, col.data(), 1, TileStore::kF32);
          for (int64_t i = 0; i < t.m; ++i) ASSERT_EQ(col[i], all[i * c.ldc + j]) << c.name() << " column " << j;
        }
      }
}

// The AMX kernel's ways of storing and of reading A give the same bits: f32 blocks stored straight
// from the tiles (alpha 1) hold 8 times the values stored through its buffer at alpha 1/8 (a power of
// two scales exactly), nothing past n; and a transposed A (a product the kernel computes as C^T = B^T A
// when A is the larger operand, in 32 x 32 blocks) gives the bits of the same values stored untransposed
// (for a k of at most 64, computed 32 x 16 at a time with A's tiles held: the scores' shape).
TEST(TileMatmul, AmxKernelGivesTheSameBitsWhicheverWayItStoresAndReads) {
  if (kernel_isa() != Isa::kAmx) GTEST_SKIP() << "the kernel level is " << isa_name(kernel_isa()) << ", not amx";
  std::vector<Tile> tiles(std::begin(kTiles), std::end(kTiles));
  for (const Tile& t : {Tile{384, 64, 384}, Tile{250, 64, 384}, Tile{100, 31, 65}, Tile{64, 64, 250},
                        Tile{384, 100, 64}, Tile{70, 33, 50}, Tile{40, 17, 20}})
    tiles.push_back(t);
  for (bool ta : {false, true})
    for (bool tb : {false, true})
      for (const Tile& t : tiles) {
        TileCase c(ta, tb, t, 31);
        const std::vector<float> direct = c.bf16_product(TileStore::kF32, false, 1.f),
                                 buffered = c.bf16_product(TileStore::kF32, false, 0.125f);
        for (int64_t i = 0; i < t.m; ++i)
          for (int64_t j = 0; j < c.ldc; ++j)
            ASSERT_EQ(direct[i * c.ldc + j], j < t.n ? 8.f * buffered[i * c.ldc + j] : -7.f)
                << c.name() << " at " << i << ", " << j;
        if (!ta) continue;
        // A^T as stored rows: at[i][p] = A[p][i].
        const int64_t ldat = t.k + 2;
        std::vector<uint16_t> at(static_cast<size_t>(t.m * ldat), 0);
        for (int64_t i = 0; i < t.m; ++i)
          for (int64_t p = 0; p < t.k; ++p) at[i * ldat + p] = c.a16[p * c.lda + i];
        for (TileStore store : kTileStores) {
          const std::vector<float> want = c.bf16_product(store);
          std::vector<float> got(want.size(), -7.0f);
          std::vector<uint16_t> got16(want.size(), f32_to_bf16(-7.0f));
          void* out = store == TileStore::kBf16 ? static_cast<void*>(got16.data()) : static_cast<void*>(got.data());
          tile_matmul_bf16(false, tb, t.m, t.n, t.k, 0.125f, at.data(), ldat, c.b16.data(), c.ldb, out, c.ldc, store);
          if (store == TileStore::kBf16)
            for (size_t e = 0; e < got.size(); ++e) got[e] = bf16_to_f32(got16[e]);
          for (size_t e = 0; e < got.size(); ++e)
            ASSERT_EQ(got[e], want[e]) << c.name() << " store " << static_cast<int>(store) << " at " << e;
        }
      }
}

// On every path: the product of the bf16 values up to f32 rounding, and the bf16 store is that product
// rounded to bf16 (round_to_bf16), nothing written past n.
TEST(TileMatmul, Bf16ProductsAreTheProductOfTheBf16Values) {
  for (bool ta : {false, true})
    for (bool tb : {false, true})
      for (const Tile& t : kTiles) {
        TileCase c(ta, tb, t, 13);
        const std::vector<float> f32 = c.bf16_product(TileStore::kF32);
        const std::vector<float> b16 = c.bf16_product(TileStore::kBf16);
        for (int64_t i = 0; i < t.m; ++i)
          for (int64_t j = 0; j < c.ldc; ++j) {
            const int64_t at = i * c.ldc + j;
            if (j >= t.n) {
              ASSERT_EQ(f32[at], -7.0f) << "wrote past n " << c.name();
              ASSERT_EQ(b16[at], -7.0f) << "wrote past n " << c.name();
              continue;
            }
            ASSERT_NEAR(f32[at], 0.125 * c.exact(i, j), 0.125 * 1e-5 * (1 + std::sqrt(double(t.k))) * 4) << c.name();
            ASSERT_EQ(b16[at], round_to_bf16(f32[at])) << c.name();
          }
      }
}

// A weight in oneDNN's blocked layout (block_weight) gives the product of the row-major weight, for the
// forward (x W^T, plain and GELU) and backward-data (dy W, written and accumulated) products, any rows.
TEST(Gemm, BlockedWeightsGiveTheRowMajorProducts) {
  if (blocked_weight_bytes(64, 64, WeightUse::kForward) == 0)
    GTEST_SKIP() << "bf16 products are not native here: no blocked weights";
  struct Shape {
    int64_t M, N, K;
  };
  for (const Shape& s : {Shape{5, 37, 32}, Shape{64, 768, 768}, Shape{7, 2, 32}, Shape{130, 96, 48}, Shape{1, 64, 256}}) {
    const std::vector<float> wv = bf16_values(s.N, s.K, s.K, 3), xv = bf16_values(s.M, s.K, s.K, 4),
                             dyv = bf16_values(s.M, s.N, s.N, 5);
    const std::vector<uint16_t> w = as_bf16(wv), x = as_bf16(xv), dy = as_bf16(dyv);
    std::vector<float> bias(static_cast<size_t>(s.N));
    for (int64_t j = 0; j < s.N; ++j) bias[j] = 0.25f * static_cast<float>(j % 7);
    std::vector<uint8_t> fwd(blocked_weight_bytes(s.N, s.K, WeightUse::kForward) + 64),
        bwd(blocked_weight_bytes(s.N, s.K, WeightUse::kBackwardData) + 64);
    uint8_t* f = fwd.data() + (64 - reinterpret_cast<uintptr_t>(fwd.data()) % 64) % 64;
    uint8_t* b = bwd.data() + (64 - reinterpret_cast<uintptr_t>(bwd.data()) % 64) % 64;
    block_weight(f, b, w.data(), DType::kBf16, s.N, s.K);
    // From f32 values, the copy of their bf16 rounding (f32_to_bf16's), byte for byte; each copy alone as
    // both in one pass.
    std::vector<float> w32(static_cast<size_t>(s.N * s.K));
    std::mt19937 rng(11);
    std::normal_distribution<float> normal(0.f, 0.3f);
    for (float& v : w32) v = normal(rng);
    std::vector<uint16_t> w16(w32.size());
    f32_to_bf16_array(w32.data(), w16.data(), static_cast<int64_t>(w32.size()));
    std::vector<uint32_t> both[2] = {
        std::vector<uint32_t>(blocked_weight_bytes(s.N, s.K, WeightUse::kForward) / 4),
        std::vector<uint32_t>(blocked_weight_bytes(s.N, s.K, WeightUse::kBackwardData) / 4)};
    block_weight(both[0].data(), both[1].data(), w32.data(), DType::kF32, s.N, s.K);
    for (WeightUse use : {WeightUse::kForward, WeightUse::kBackwardData}) {
      const size_t bytes = blocked_weight_bytes(s.N, s.K, use);
      std::vector<uint32_t> from32(bytes / 4), from16(bytes / 4);
      const bool f32_first = use == WeightUse::kForward;
      block_weight(f32_first ? from32.data() : nullptr, f32_first ? nullptr : from32.data(), w32.data(), DType::kF32,
                   s.N, s.K);
      block_weight(f32_first ? from16.data() : nullptr, f32_first ? nullptr : from16.data(), w16.data(), DType::kBf16,
                   s.N, s.K);
      EXPECT_EQ(from32, from16) << "use " << static_cast<int>(use);
      EXPECT_EQ(0, std::memcmp(from32.data(), both[static_cast<int>(use)].data(), bytes))
          << "use " << static_cast<int>(use);
    }
    const std::string what = "M=" + std::to_string(s.M) + " N=" + std::to_string(s.N) + " K=" + std::to_string(s.K);
    std::vector<float> y0(static_cast<size_t>(s.M * s.N)), y1 = y0;
    linear_forward(s.M, s.N, s.K, x.data(), w.data(), DType::kBf16, bias.data(), y0.data());
    linear_forward(s.M, s.N, s.K, x.data(), w.data(), DType::kBf16, bias.data(), y1.data(), DType::kF32, f);
    EXPECT_EQ(y1, y0) << "forward " << what;
    for (bool accumulate : {false, true}) {
      std::vector<float> d0(static_cast<size_t>(s.M * s.K), 0.5f), d1 = d0;
      linear_backward_data(s.M, s.N, s.K, dy.data(), w.data(), DType::kBf16, d0.data(), DType::kF32, accumulate);
      linear_backward_data(s.M, s.N, s.K, dy.data(), w.data(), DType::kBf16, d1.data(), DType::kF32, accumulate, b);
      EXPECT_EQ(d1, d0) << "backward-data " << what << " accumulate " << accumulate;
    }
  }
}

TEST(Gemm, PrimitivesAreBuiltOncePerShape) {
  Buf x(DType::kF32, 6 * 10, 1), w(DType::kF32, 4 * 10, 2), y(DType::kF32, 6 * 4, 3);
  linear_forward(6, 4, 10, x.data(), w.data(), DType::kF32, nullptr, y.data());
  const int64_t built = gemm_primitives_created();
  for (int i = 0; i < 3; ++i) linear_forward(6, 4, 10, x.data(), w.data(), DType::kF32, nullptr, y.data());
  EXPECT_EQ(gemm_primitives_created(), built);
  linear_forward(6, 4, 10, x.data(), w.data(), DType::kF32, nullptr, y.data(), DType::kF32);
  Buf xb(DType::kBf16, 6 * 10, 1), wb(DType::kBf16, 4 * 10, 2);
  linear_forward(6, 4, 10, xb.data(), wb.data(), DType::kBf16, nullptr, y.data());
  const int64_t after_bf16 = gemm_primitives_created();
  linear_forward(6, 4, 10, xb.data(), wb.data(), DType::kBf16, nullptr, y.data());
  EXPECT_EQ(gemm_primitives_created(), after_bf16) << "the emulated bf16 path must reuse its f32 primitive";
}

// Shapes that change every call (dynamic padding) do not grow the cache past its capacity, and a
// product after the cache started again is still right.
TEST(Gemm, PrimitiveCacheStaysBounded) {
  const int64_t rows = 1100;
  Buf x(DType::kF32, rows * 3, 1), w(DType::kF32, 2 * 3, 2), y(DType::kF32, rows * 2, 3);
  for (int64_t m = 1; m <= rows; ++m) {
    linear_forward(m, 2, 3, x.data(), w.data(), DType::kF32, nullptr, y.data());
    ASSERT_LE(gemm_primitives_cached(), 1024) << "after " << m << " shapes";
  }
  for (int64_t i = 0; i < rows; i += 97)
    for (int64_t j = 0; j < 2; ++j) {
      double want = 0;
      for (int64_t k = 0; k < 3; ++k) want += double(x.f[i * 3 + k]) * w.f[j * 3 + k];
      ASSERT_NEAR(y.f[i * 2 + j], want, 1e-5) << "row " << i;
    }
}

template <typename Fn>
void expect_error(Fn fn, const std::string& needle) {
  try {
    fn();
    FAIL() << "expected cpuft::Error containing: " << needle;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(Gemm, BadArgumentsAreRejected) {
  float a[64] = {}, b[64] = {}, c[64] = {}, bias[8] = {};
  MatIn A{a, DType::kF32, 4}, Bm{b, DType::kF32, 4};
  MatOut Cm{c, DType::kF32, 4};
  expect_error([&] { matmul(1, 1, 0, 4, 4, A, Bm, Cm); }, "matmul: M is 0, expected > 0");
  expect_error([&] { matmul(1, 1, 4, 4, 4, MatIn{nullptr, DType::kF32, 4}, Bm, Cm); }, "operand A is a null pointer");
  expect_error([&] { matmul(1, 1, 4, 4, 4, A, MatIn{b, DType::kI32, 4}, Cm); }, "operand B has dtype i32");
  expect_error([&] { matmul(1, 1, 4, 4, 4, A, Bm, MatOut{c, DType::kF32, 3}); }, "operand C has row_stride 3, expected >= 4");
  expect_error([&] { matmul(1, 1, 4, 4, 5, A, Bm, Cm); }, "operand A has row_stride 4, expected >= 5");
  MatmulOptions with_bias;
  with_bias.bias = bias;
  expect_error([&] { matmul(2, 1, 2, 2, 2, A, Bm, Cm, with_bias); }, "a bias needs B == H == 1");
  with_bias.alpha = 0.5f;
  expect_error([&] { matmul(1, 1, 2, 2, 2, A, Bm, Cm, with_bias); }, "a bias needs alpha == 1");
}

// The emulation (what runs where oneDNN has no bf16 product) is exactly the f32 product of the
// bf16 values, on every CPU: it is called directly, so CPUs with native bf16 products test it too.
TEST(Gemm, EmulatedBf16EqualsF32OnRoundedInputs) {
  const int64_t M = 37, N = 65, K = 33;
  Buf x(DType::kBf16, M * K, 7), w(DType::kBf16, N * K, 8), bias(DType::kF32, N, 9);
  std::vector<float> x32(M * K), w32(N * K), y16(M * N), y32(M * N);
  for (int64_t i = 0; i < M * K; ++i) x32[i] = bf16_to_f32(x.h[i]);
  for (int64_t i = 0; i < N * K; ++i) w32[i] = bf16_to_f32(w.h[i]);
  MatmulOptions opt;
  opt.bias = bias.f.data();
  gemm_detail::emulate_in_f32(1, 1, M, N, K, MatIn{x.data(), DType::kBf16, K}, MatIn{w.data(), DType::kBf16, K, true},
                              MatOut{y16.data(), DType::kF32, N}, opt);
  linear_forward(M, N, K, x32.data(), w32.data(), DType::kF32, bias.f.data(), y32.data());
  for (int64_t i = 0; i < M * N; ++i) ASSERT_EQ(y16[i], y32[i]) << "element " << i;
}

// A product longer than the rows the emulation converts at a time (kEmulatedRows) goes block by block:
// every element is still the f32-accumulated product of the bf16 values (checked against a double
// reference, to the f32 summation's error: oneDNN's f32 bits depend on the row count), for f32 and
// bf16 outputs, written and accumulated, with A and C rows longer than the product's (strided), and
// the columns past N untouched.
TEST(Gemm, EmulationOfALongProductGoesByRowBlocks) {
  const int64_t M = 2 * gemm_detail::kEmulatedRows + 37, N = 24, K = 20, lda = K + 3, ldc = N + 5;
  Buf x(DType::kBf16, M * lda, 17), w(DType::kBf16, N * K, 18), bias(DType::kF32, N, 19);
  const MatIn a{x.data(), DType::kBf16, lda}, b{w.data(), DType::kBf16, K, true};
  MatmulOptions with_bias;
  with_bias.bias = bias.f.data();
  MatmulOptions accumulate;
  accumulate.accumulate = true;
  for (const MatmulOptions& opt : {with_bias, accumulate}) {
    for (DType out : {DType::kF32, DType::kBf16}) {
      Buf c(out, M * ldc, 20);
      const Buf start = c;
      gemm_detail::emulate_in_f32(1, 1, M, N, K, a, b, MatOut{c.data(), out, ldc}, opt);
      for (int64_t i = 0; i < M; ++i) {
        for (int64_t j = 0; j < N; ++j) {
          double want = opt.bias ? opt.bias[j] : start.at(i * ldc + j), size = std::fabs(want);
          for (int64_t k = 0; k < K; ++k) {
            const double t = x.at(i * lda + k) * w.at(j * K + k);
            want += t;
            size += std::fabs(t);
          }
          const double tol = 1e-6 * size + (out == DType::kBf16 ? std::fabs(want) / 256 : 0.0);
          ASSERT_NEAR(c.at(i * ldc + j), want, tol)
              << dtype_name(out) << " C, row " << i << " column " << j << ", accumulate " << opt.accumulate;
        }
        for (int64_t j = N; j < ldc; ++j) ASSERT_EQ(c.at(i * ldc + j), start.at(i * ldc + j)) << "padding of row " << i;
      }
    }
  }
}

// Where oneDNN multiplies bf16 natively (AVX512_BF16, AMX), its products agree with the emulation
// up to the order of the f32 accumulation.
TEST(Gemm, NativeBf16AgreesWithTheEmulation) {
  if (!gemm_bf16_native()) GTEST_SKIP() << "bf16 products are emulated in f32 here (" << describe_gemm() << ")";
  std::printf("[ bf16     ] native products: %s\n", describe_gemm().c_str());
  const int64_t M = 70, N = 96, K = 300;
  Buf x(DType::kBf16, M * K, 17), w(DType::kBf16, N * K, 18);
  std::vector<float> native(M * N), emulated(M * N);
  const MatIn a{x.data(), DType::kBf16, K}, b{w.data(), DType::kBf16, K, true};
  matmul(1, 1, M, N, K, a, b, MatOut{native.data(), DType::kF32, N});
  gemm_detail::emulate_in_f32(1, 1, M, N, K, a, b, MatOut{emulated.data(), DType::kF32, N}, {});
  double worst = 0, scale = 0;
  for (int64_t i = 0; i < M * N; ++i) {
    worst = std::max(worst, std::fabs(double(native[i]) - emulated[i]));
    scale = std::max(scale, std::fabs(double(emulated[i])));
  }
  EXPECT_LT(worst, 1e-5 * scale + 1e-6) << "max |native - emulated| " << worst << " of " << scale;
}

TEST(Gemm, DescribesOneDnnAndBf16Support) {
  EXPECT_EQ(onednn_version(), std::to_string(DNNL_VERSION_MAJOR) + "." + std::to_string(DNNL_VERSION_MINOR) +
                                  "." + std::to_string(DNNL_VERSION_PATCH));
  const std::string isa = onednn_isa();
  EXPECT_FALSE(isa.empty());
  EXPECT_NE(isa, "unknown");
  const std::string d = describe_gemm();
  EXPECT_EQ(d.rfind("oneDNN ", 0), 0u) << d;
  EXPECT_NE(d.find(", isa "), std::string::npos) << d;
  EXPECT_NE(d.find(gemm_bf16_native() ? "bf16 matmul: native (" + gemm_bf16_impl() + ")" : "bf16 matmul: emulated in f32"),
            std::string::npos) << d;
  // The test log says which bf16 path this CPU runs.
  std::printf("[ bf16     ] %s\n", d.c_str());
  // oneDNN 2.x builds bf16 matmuls only on AVX-512 CPUs.
  if (!cpu_features().avx512f) {
    EXPECT_FALSE(gemm_bf16_native()) << d;
  }
  RecordProperty("describe_gemm", d);
}

}  // namespace
}  // namespace cpuft
