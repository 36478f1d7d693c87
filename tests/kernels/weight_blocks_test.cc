// write_weight_blocks against oneDNN's own reorder into the same layouts (the blocked weights of its bf16
// products on AVX512_BF16 and AMX), on any CPU: the layouts are built from their format tags here.
#include "cpuft/kernels/weight_blocks.h"

#include <gtest/gtest.h>
#include <omp.h>

#include <random>
#include <string>
#include <vector>

#include <dnnl.hpp>

#include "cpuft/kernels/gemm_primitives.h"
#include "cpuft/tensor/bf16.h"

namespace cpuft {
namespace {

using tag = dnnl::memory::format_tag;

std::vector<float> random_weight(int64_t N, int64_t K, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.f, 0.3f);
  std::vector<float> w(static_cast<size_t>(N * K));
  for (float& v : w) v = normal(rng);
  return w;
}

// What the products read before cpuft wrote the layouts: W rounded to bf16 row-major, then oneDNN's reorder
// of W^T ([K, N], stored [N, K]: the forward's) or of W ([N, K]: backward-data's) into `t`.
std::vector<uint16_t> onednn_blocks(const std::vector<uint16_t>& w16, int64_t N, int64_t K, bool forward, tag t) {
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream s(eng);
  const int64_t rows = forward ? K : N, cols = forward ? N : K;
  const dnnl::memory::desc plain({rows, cols}, dnnl::memory::data_type::bf16,
                                 forward ? dnnl::memory::dims{1, K} : dnnl::memory::dims{K, 1});
  const dnnl::memory::desc blocked({rows, cols}, dnnl::memory::data_type::bf16, t);
  std::vector<uint16_t> out(blocked.get_size() / 2, 0xabcd);
  dnnl::memory from(plain, eng, const_cast<uint16_t*>(w16.data())), to(blocked, eng, out.data());
  dnnl::reorder(from, to).execute(s, from, to);
  s.wait();
  return out;
}

struct Shape {
  int64_t N, K;
};
// DistilBERT's q, k, v and FFN shapes (scaled down in N), and sizes that leave padding in both directions.
const Shape kShapes[] = {{37, 32}, {2, 50}, {70, 33}, {130, 96}, {256, 768}, {96, 3072}, {1, 1}};
const tag kTags[] = {tag::BA16a64b2a, tag::BA16a48b2a, tag::BA16a32b2a, tag::BA16a16b2a};

TEST(WeightBlocks, EveryPairBlockTagGetsOneDnnsReorderOfTheRoundedWeight) {
  for (const Shape& s : kShapes)
    for (tag t : kTags) {
      const std::string what =
          "N=" + std::to_string(s.N) + " K=" + std::to_string(s.K) + " tag " + std::to_string(static_cast<int>(t));
      const auto fwd = gemm_detail::pair_blocks_of_tag(s.K, s.N, t), bwd = gemm_detail::pair_blocks_of_tag(s.N, s.K, t);
      ASSERT_TRUE(fwd && bwd) << what;
      const std::vector<float> w = random_weight(s.N, s.K, 7);
      std::vector<uint16_t> w16(w.size());
      f32_to_bf16_array(w.data(), w16.data(), static_cast<int64_t>(w.size()));
      const std::vector<uint16_t> want_fwd = onednn_blocks(w16, s.N, s.K, true, t),
                                  want_bwd = onednn_blocks(w16, s.N, s.K, false, t);
      ASSERT_EQ(want_fwd.size() * 2, fwd->bytes) << what;
      ASSERT_EQ(want_bwd.size() * 2, bwd->bytes) << what;
      // Destinations full of another pattern: the padding must be written (zeros), as the reorder writes it.
      std::vector<uint16_t> got_fwd(want_fwd.size(), 0x7777), got_bwd(want_bwd.size(), 0x7777);
      write_weight_blocks(got_fwd.data(), &*fwd, got_bwd.data(), &*bwd, w.data(), DType::kF32, s.N, s.K);
      EXPECT_EQ(got_fwd, want_fwd) << "forward, from f32, " << what;
      EXPECT_EQ(got_bwd, want_bwd) << "backward-data, from f32, " << what;
      // One copy alone, from the bf16 weight, and inside a parallel region (one thread writes it all).
      std::vector<uint16_t> alone(want_bwd.size(), 0x7777);
      write_weight_blocks(nullptr, &*fwd, alone.data(), &*bwd, w16.data(), DType::kBf16, s.N, s.K);
      EXPECT_EQ(alone, want_bwd) << "backward-data alone, from bf16, " << what;
      std::vector<uint16_t> any(want_bwd.size(), 0x7777);  // the same copy of any bf16 operand
      write_pair_blocks(any.data(), *bwd, w16.data(), s.N, s.K);
      EXPECT_EQ(any, want_bwd) << "write_pair_blocks, " << what;
      std::vector<uint16_t> inner(want_fwd.size(), 0x7777);
#pragma omp parallel num_threads(2)
      {
#pragma omp single
        write_weight_blocks(inner.data(), &*fwd, nullptr, nullptr, w.data(), DType::kF32, s.N, s.K);
      }
      EXPECT_EQ(inner, want_fwd) << "forward in a parallel region, " << what;
      // Destinations 4 bytes past a 16-byte boundary: the pairs one at a time instead of streamed vectors.
      std::vector<uint16_t> off_fwd(want_fwd.size() + 8, 0x7777), off_bwd(want_bwd.size() + 8, 0x7777);
      uint16_t* f4 = off_fwd.data() + (8 - reinterpret_cast<uintptr_t>(off_fwd.data()) % 16 / 2) % 8 + 2;
      uint16_t* b4 = off_bwd.data() + (8 - reinterpret_cast<uintptr_t>(off_bwd.data()) % 16 / 2) % 8 + 2;
      write_weight_blocks(f4, &*fwd, b4, &*bwd, w.data(), DType::kF32, s.N, s.K);
      EXPECT_EQ(std::vector<uint16_t>(f4, f4 + want_fwd.size()), want_fwd) << "forward, unaligned, " << what;
      EXPECT_EQ(std::vector<uint16_t>(b4, b4 + want_bwd.size()), want_bwd) << "backward-data, unaligned, " << what;
    }
}

// The offset formula of weight_blocks.h, element by element, against the bf16 rounding of W.
TEST(WeightBlocks, EveryElementSitsWherePairBlockOffsetSays) {
  const int64_t N = 70, K = 33;
  const auto fwd = gemm_detail::pair_blocks_of_tag(K, N, tag::BA16a64b2a),
             bwd = gemm_detail::pair_blocks_of_tag(N, K, tag::BA16a32b2a);
  ASSERT_TRUE(fwd && bwd);
  EXPECT_EQ(fwd->row_block, 32);
  EXPECT_EQ(fwd->col_block, 64);
  EXPECT_EQ(fwd->padded_rows, 64);
  EXPECT_EQ(fwd->padded_cols, 128);
  EXPECT_EQ(bwd->col_block, 32);
  const std::vector<float> w = random_weight(N, K, 3);
  std::vector<uint16_t> f(fwd->bytes / 2), b(bwd->bytes / 2);
  write_weight_blocks(f.data(), &*fwd, b.data(), &*bwd, w.data(), DType::kF32, N, K);
  size_t nonzero_f = 0, nonzero_b = 0;
  for (uint16_t v : f) nonzero_f += v != 0;
  for (uint16_t v : b) nonzero_b += v != 0;
  size_t nonzero_w = 0;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t k = 0; k < K; ++k) {
      const uint16_t want = f32_to_bf16(w[static_cast<size_t>(n * K + k)]);
      nonzero_w += want != 0;
      ASSERT_EQ(f[static_cast<size_t>(pair_block_offset(*fwd, k, n))], want) << "forward n=" << n << " k=" << k;
      ASSERT_EQ(b[static_cast<size_t>(pair_block_offset(*bwd, n, k))], want) << "backward n=" << n << " k=" << k;
    }
  EXPECT_EQ(nonzero_f, nonzero_w);  // everything else is padding, and zero
  EXPECT_EQ(nonzero_b, nonzero_w);
}

// Blocks larger than any oneDNN picks (their tiles do not fit the stack buffer), rows of blocks outer.
TEST(WeightBlocks, LargeBlocksRowsOuterSitWherePairBlockOffsetSays) {
  const int64_t N = 300, K = 70;
  auto layout = [](int64_t rows, int64_t cols) {
    PairBlockLayout l;
    l.row_block = 64, l.col_block = 256;
    l.padded_rows = (rows + 63) / 64 * 64, l.padded_cols = (cols + 255) / 256 * 256;
    l.col_block_stride = 64 * 256, l.row_block_stride = l.padded_cols / 256 * l.col_block_stride;
    l.bytes = static_cast<size_t>(l.padded_rows * l.padded_cols) * 2;
    return l;
  };
  const PairBlockLayout fwd = layout(K, N), bwd = layout(N, K);
  const std::vector<float> w = random_weight(N, K, 5);
  std::vector<uint16_t> f(fwd.bytes / 2, 0x7777), b(bwd.bytes / 2, 0x7777);
  write_weight_blocks(f.data(), &fwd, b.data(), &bwd, w.data(), DType::kF32, N, K);
  std::vector<uint16_t> want_f(f.size(), 0), want_b(b.size(), 0);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t k = 0; k < K; ++k) {
      const uint16_t v = f32_to_bf16(w[static_cast<size_t>(n * K + k)]);
      want_f[static_cast<size_t>(pair_block_offset(fwd, k, n))] = v;
      want_b[static_cast<size_t>(pair_block_offset(bwd, n, k))] = v;
    }
  EXPECT_EQ(f, want_f);
  EXPECT_EQ(b, want_b);
}

// Layouts that are not pairs of rows in blocks are refused (the products then read row-major weights).
TEST(WeightBlocks, OtherLayoutsAreNotPairBlocks) {
  for (tag t : {tag::ab, tag::ba, tag::AB16b64a, tag::BA16a64b4a, tag::AB16b32a2b})
    EXPECT_FALSE(gemm_detail::pair_blocks_of_tag(64, 128, t)) << static_cast<int>(t);
}

}  // namespace
}  // namespace cpuft
