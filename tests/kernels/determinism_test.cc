// Results must not depend on the OpenMP thread count (reproducible training; the kernel conventions of
// kernels/kernel_table.h), including the reductions down rows (parameter gradients) and the embedding scatter.
#include <omp.h>

#include "cpuft/kernels/vec_loop.h"
#include "cpuft/tensor/bf16.h"
#include "kernel_test_util.h"

namespace cpuft::test {
namespace {

class ThreadCount : public IsaTest {
 protected:
  // Runs fn with 1 and with 3 threads and expects identical outputs.
  template <class Fn>
  void expect_same(Fn fn) {
    const int threads = omp_get_max_threads();
    omp_set_num_threads(1);
    auto one = fn();
    omp_set_num_threads(3);
    auto three = fn();
    omp_set_num_threads(threads);
    EXPECT_EQ(one, three);
  }
};

TEST_P(ThreadCount, LayerNormBackwardParameterGradients) {
  const int N = 37, C = 769;
  auto dout = randn(size_t(N) * C, 1), x = randn(size_t(N) * C, 2), w = randn(C, 3);
  std::vector<float> mean(N, 0.1f), rstd(N, 0.9f);
  expect_same([&] {
    std::vector<float> dx(dout.size()), dw(C, 0.0f), db(C, 0.0f);
    vec().layernorm_bwd(dx.data(), dw.data(), db.data(), dout.data(), x.data(), mean.data(),
                        rstd.data(), w.data(), N, C);
    dx.insert(dx.end(), dw.begin(), dw.end());
    dx.insert(dx.end(), db.begin(), db.end());
    return dx;
  });
}

TEST_P(ThreadCount, BiasGradAndEmbeddingScatter) {
  const int B = 3, T = 41, C = 131;
  auto dy = randn(size_t(B) * T * C, 4);
  std::vector<int32_t> ids(size_t(B) * T);
  std::vector<int32_t> positions(ids.size());
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int32_t>((i * 7) % 13);
  for (size_t i = 0; i < ids.size(); ++i) positions[i] = static_cast<int32_t>(i % T);
  expect_same([&] {
    std::vector<float> db(C, 0.0f), dwte(size_t(13) * C, 0.0f), dwpe(size_t(T) * C, 0.0f);
    vec().bias_grad(db.data(), dy.data(), int64_t(B) * T, C);
    vec().embedding_bwd(dwte.data(), dwpe.data(), nullptr, dy.data(), ids.data(), nullptr, positions.data(),
                        int64_t(B) * T, C, 0);
    db.insert(db.end(), dwte.begin(), dwte.end());
    db.insert(db.end(), dwpe.begin(), dwpe.end());
    return db;
  });
}

// Rows wider than two column chunks (vec_loop.h): every column summed over the rows in order, the same
// with 1 and 3 threads, and bias_grad's and layernorm_bwd's bias sums the reference's, bit for bit.
TEST_P(ThreadCount, ColumnSumsWiderThanAChunk) {
  const int N = 5, C = static_cast<int>(2 * kColumnChunk + 37);
  auto dy = randn(size_t(N) * C, 6), x = randn(size_t(N) * C, 7), w = randn(C, 8);
  std::vector<float> mean(N, -0.2f), rstd(N, 1.1f);
  std::vector<uint16_t> pre(dy.size());
  f32_to_bf16_array(x.data(), pre.data(), static_cast<int64_t>(x.size()));
  std::vector<float> want(C, 0.5f), want0(C, 0.0f);
  ref().bias_grad(want.data(), dy.data(), N, C);
  ref().bias_grad(want0.data(), dy.data(), N, C);
  expect_same([&] {
    std::vector<float> db(C, 0.5f), ln_dw(C, 0.0f), ln_db(C, 0.0f), gelu_db(C, 0.0f), dx(dy.size());
    std::vector<uint16_t> dpre(dy.size());
    vec().bias_grad(db.data(), dy.data(), N, C);
    EXPECT_EQ(db, want);
    vec().layernorm_bwd(dx.data(), ln_dw.data(), ln_db.data(), dy.data(), x.data(), mean.data(), rstd.data(), w.data(),
                        N, C);
    EXPECT_EQ(ln_db, want0);
    vec().gelu_bwd(nullptr, dpre.data(), gelu_db.data(), dy.data(), nullptr, nullptr, pre.data(), N, C);
    db.insert(db.end(), ln_dw.begin(), ln_dw.end());
    db.insert(db.end(), ln_db.begin(), ln_db.end());
    db.insert(db.end(), gelu_db.begin(), gelu_db.end());
    return db;
  });
}

TEST_P(ThreadCount, BlockSumsOfSquares) {
  auto x = randn(100003, 5);
  expect_same([&] {
    std::vector<double> blocks((x.size() + kSumSquaresBlock - 1) / kSumSquaresBlock);
    vec().block_sum_squares(blocks.data(), x.data(), int64_t(x.size()));
    return blocks;
  });
}

CPUFT_INSTANTIATE_ISA_TEST(ThreadCount);

}  // namespace
}  // namespace cpuft::test
