// The attention core (model/attention.h) on key masks the model fixtures do not have: keys masked
// between unmasked ones, beside a padded tail. A masked key gets no probability, so its key and value
// rows change nothing and get no gradient, in f32 and bf16 mode; f32 mode's context is the masked
// softmax's, computed here in double; bf16 mode writes every gradient row where f32 mode does, and adds
// the q, k, v bias gradient from the unrounded gradient, the same bits for any thread count.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "cpuft/kernels/gemm.h"
#include "cpuft/kernels/softmax.h"
#include "cpuft/model/attention.h"
#include "cpuft/tensor/bf16.h"

namespace cpuft {
namespace {

constexpr int64_t kB = 2, kT = 40, kH = 32, kHeads = 2, kHd = kH / kHeads, kN = kB * kT;
constexpr float kScale = 0.25f;  // 1 / sqrt(kHd)
// Sequence 0: keys 5 and 6 masked. Sequence 1: key 10 masked and a padded tail from 30.
constexpr int64_t kMaskedKeys[] = {5, 6, kT + 10};

struct Inputs {
  std::vector<float> qkv, dctx;
  std::vector<uint16_t> qkv16, dctx16;
  std::vector<int8_t> mask = std::vector<int8_t>(kN, 1);
  Inputs() {
    std::mt19937 gen(11);
    std::normal_distribution<float> n(0.0f, 1.0f);
    qkv.resize(kN * 3 * kH);
    dctx.resize(kN * kH);
    for (float& x : qkv) x = n(gen);
    for (float& x : dctx) x = n(gen);
    for (int64_t row : kMaskedKeys) mask[row] = 0;
    for (int64_t t = 30; t < kT; ++t) mask[kT + t] = 0;
    round_to_bf16_copies();
  }
  void round_to_bf16_copies() {
    qkv16.resize(qkv.size());
    dctx16.resize(dctx.size());
    f32_to_bf16_array(qkv.data(), qkv16.data(), static_cast<int64_t>(qkv.size()));
    f32_to_bf16_array(dctx.data(), dctx16.data(), static_cast<int64_t>(dctx.size()));
  }
};

struct Outputs {
  std::vector<float> ctx, dqkv;  // bf16 mode: dqkv is the bf16 gradient's values
  std::vector<float> dbias;      // bf16 mode: the bias gradient added into kBiasStart
};

constexpr float kBiasStart = 1.0f;

// The output gradient starts as `fill`: backward must write every element.
Outputs run(const Inputs& in, bool bf16, float fill = 0.0f) {
  const AttentionShape shape{kB, kT, kH, kHeads};
  std::vector<float> tiles(static_cast<size_t>(omp_get_max_threads() * kTilesPerThread * kT * kT));
  Outputs out{std::vector<float>(kN * kH), std::vector<float>(in.qkv.size(), fill),
              std::vector<float>(bf16 ? 3 * kH : 0, kBiasStart)};
  std::vector<uint16_t> ctx16(kN * kH), dqkv16(in.qkv.size(), f32_to_bf16(fill));
  std::vector<float> stats(static_cast<size_t>(attention_stats_floats(kB, kHeads, kT)));
  attention_fwd(bf16 ? nullptr : out.ctx.data(), bf16 ? ctx16.data() : nullptr, tiles.data(), stats.data(),
                bf16 ? nullptr : in.qkv.data(), bf16 ? in.qkv16.data() : nullptr, in.mask.data(), shape, kScale,
                AttentionDropout{});
  if (bf16) bf16_to_f32_array(ctx16.data(), out.ctx.data(), kN * kH);
  attention_bwd(bf16 ? nullptr : out.dqkv.data(), bf16 ? dqkv16.data() : nullptr, bf16 ? out.dbias.data() : nullptr,
                tiles.data(), stats.data(), bf16 ? nullptr : in.dctx.data(), bf16 ? in.dctx16.data() : nullptr,
                bf16 ? nullptr : in.qkv.data(), bf16 ? in.qkv16.data() : nullptr, in.mask.data(), shape, kScale, kScale,
                AttentionDropout{});
  if (bf16) bf16_to_f32_array(dqkv16.data(), out.dqkv.data(), static_cast<int64_t>(dqkv16.size()));
  return out;
}

TEST(Attention, AKeyMaskedInsideTheWindowChangesNothingAndGetsNoGradient) {
  for (bool bf16 : {false, true}) {
    const Inputs in;
    const Outputs base = run(in, bf16);
    Inputs changed = in;
    for (int64_t row : kMaskedKeys)
      for (int64_t c = kH; c < 3 * kH; ++c) changed.qkv[row * 3 * kH + c] += 3.0f;  // its k and v
    changed.round_to_bf16_copies();
    const Outputs other = run(changed, bf16);
    EXPECT_EQ(other.ctx, base.ctx) << "bf16 " << bf16;
    EXPECT_EQ(other.dqkv, base.dqkv) << "bf16 " << bf16;
    for (int64_t row : kMaskedKeys)
      for (int64_t c = kH; c < 3 * kH; ++c) ASSERT_EQ(base.dqkv[row * 3 * kH + c], 0.0f) << "row " << row << " bf16 " << bf16;
  }
}

// bf16 mode's dQ, dK and dV (the products' f32 sums, kept in per-thread blocks, rounded to bf16 and
// streamed into dqkv16) against f32 mode's on the same values: every element written, each where f32
// mode writes it, within the bf16 roundings of the scores, probabilities, score gradients and the
// gradient itself; padded keys' exactly 0.
TEST(Attention, Bf16GradientsLandWhereF32OnesDo) {
  Inputs in;
  bf16_to_f32_array(in.qkv16.data(), in.qkv.data(), static_cast<int64_t>(in.qkv.size()));
  bf16_to_f32_array(in.dctx16.data(), in.dctx.data(), static_cast<int64_t>(in.dctx.size()));
  const float nan = std::nanf("");
  const Outputs f32 = run(in, false, nan), bf16 = run(in, true, nan);
  float largest = 0.0f;
  for (float x : f32.dqkv) largest = std::max(largest, std::fabs(x));
  for (size_t i = 0; i < f32.dqkv.size(); ++i) {
    ASSERT_FALSE(std::isnan(f32.dqkv[i])) << "f32, element " << i;
    ASSERT_NEAR(bf16.dqkv[i], f32.dqkv[i], 0.02f * largest) << "element " << i << " (row " << i / (3 * kH) << ")";
  }
  for (int64_t t = 30; t < kT; ++t)
    for (int64_t c = kH; c < 3 * kH; ++c) ASSERT_EQ(bf16.dqkv[(kT + t) * 3 * kH + c], 0.0f) << "padded key " << t;
}

// bf16 mode's bias gradient: added to what dbias held, the column sums of the f32 gradient whose bf16
// roundings dqkv16 holds, so within half a bf16 step of each element (2^-9 relative) of their sums.
TEST(Attention, Bf16BiasGradientIsAddedFromTheUnroundedGradient) {
  const Inputs in;
  const Outputs out = run(in, true);
  for (int64_t c = 0; c < 3 * kH; ++c) {
    double sum = 0.0, size = 0.0;
    for (int64_t r = 0; r < kN; ++r) {
      sum += out.dqkv[r * 3 * kH + c];
      size += std::fabs(out.dqkv[r * 3 * kH + c]);
    }
    const double got = out.dbias[c] - kBiasStart;
    ASSERT_NEAR(got, sum, size * std::ldexp(1.0, -9) + 1e-6) << "column " << c;
  }
}

// The same gradient and bias gradient bits with 1 and 3 threads: each column's sums run in a fixed order.
TEST(Attention, Bf16GradientsAreTheSameBitsForAnyThreadCount) {
  const Inputs in;
  const int saved = omp_get_max_threads();
  omp_set_num_threads(1);
  const Outputs one = run(in, true);
  omp_set_num_threads(3);
  const Outputs three = run(in, true);
  omp_set_num_threads(saved);
  EXPECT_EQ(one.dqkv, three.dqkv);
  EXPECT_EQ(one.dbias, three.dbias);
}

// bf16 mode's context, bit for bit, from the kernels of one sequence-head at a time: the scores product
// over the keys up to the last unmasked one, the softmax (with the dropout of mask index bh*T*T + i*L + j,
// drawn here and kept in `keep`), and P V rounded to bf16; and the dropout bits kept where backward reads
// them. A forward that computes these another way (in blocks of queries, say) must give the same bits.
TEST(Attention, Bf16ContextIsTheBitsOfTheTileProductsAndTheSoftmax) {
  const Inputs in;
  const AttentionShape shape{kB, kT, kH, kHeads};
  std::vector<float> tiles(static_cast<size_t>(omp_get_max_threads() * kTilesPerThread * kT * kT));
  const int64_t keep_bytes = kB * kHeads * attention_keep_bytes(kT);
  for (float p : {0.0f, 0.25f}) {
    std::vector<uint8_t> keep(static_cast<size_t>(keep_bytes), 0), want_keep(keep.size(), 0);
    const AttentionDropout drop{p, 5, 3, 1000, p > 0.f ? keep.data() : nullptr};
    std::vector<uint16_t> ctx(kN * kH, 0xffff), want(kN * kH, 0xffff);
    attention_fwd(nullptr, ctx.data(), tiles.data(), nullptr, nullptr, in.qkv16.data(), in.mask.data(), shape, kScale,
                  drop);
    for (int64_t b = 0; b < kB; ++b)
      for (int64_t h = 0; h < kHeads; ++h) {
        const int8_t* keys = in.mask.data() + b * kT;
        int64_t L = kT;
        while (L > 0 && !keys[L - 1]) --L;
        // q, k and v of this sequence-head as (T, HD) blocks.
        std::vector<uint16_t> q(kT * kHd), k(kT * kHd), v(kT * kHd);
        for (int64_t t = 0; t < kT; ++t)
          for (int64_t d = 0; d < kHd; ++d) {
            const uint16_t* row = in.qkv16.data() + (b * kT + t) * 3 * kH + h * kHd + d;
            q[t * kHd + d] = row[0], k[t * kHd + d] = row[kH], v[t * kHd + d] = row[2 * kH];
          }
        std::vector<float> scores(kT * L);
        std::vector<uint16_t> probs(kT * L);
        tile_matmul_bf16(false, true, kT, L, kHd, 1.f, q.data(), kHd, k.data(), kHd, scores.data(), L, TileStore::kF32);
        const ScoreRead read{kScale, true};
        const int64_t bh = b * kHeads + h;
        if (p > 0.f)
          softmax_dropout_fwd(scores.data(), nullptr, probs.data(), scores.data(), keys, kT, static_cast<int>(L), read,
                              kMaskLowestF32,
                              SoftmaxDropout{p, 5, 3, 1000 + static_cast<uint64_t>(bh * kT * kT),
                                             want_keep.data() + bh * attention_keep_bytes(kT)});
        else
          softmax_fwd(scores.data(), probs.data(), scores.data(), keys, 1, 1, kT, static_cast<int>(L), read,
                      kMaskLowestF32);
        tile_matmul_bf16(false, false, kT, kHd, L, 1.f, probs.data(), L, v.data(), kHd,
                         want.data() + b * kT * kH + h * kHd, kH, TileStore::kBf16);
      }
    EXPECT_EQ(ctx, want) << "dropout " << p;
    EXPECT_EQ(keep, want_keep) << "dropout " << p;
  }
}

TEST(Attention, F32ContextIsTheMaskedSoftmaxOfTheScores) {
  const Inputs in;
  const Outputs out = run(in, false);
  for (int64_t b = 0; b < kB; ++b)
    for (int64_t h = 0; h < kHeads; ++h)
      for (int64_t i = 0; i < kT; ++i) {
        const float* q = in.qkv.data() + (b * kT + i) * 3 * kH + h * kHd;
        std::vector<double> p(kT, 0.0);
        double mx = -1e300, sum = 0.0;
        for (int64_t j = 0; j < kT; ++j) {
          if (!in.mask[b * kT + j]) continue;
          const float* k = in.qkv.data() + (b * kT + j) * 3 * kH + kH + h * kHd;
          double s = 0.0;
          for (int64_t d = 0; d < kHd; ++d) s += double(q[d]) * k[d];
          p[j] = s * kScale;
          mx = std::max(mx, p[j]);
        }
        for (int64_t j = 0; j < kT; ++j) sum += in.mask[b * kT + j] ? std::exp(p[j] - mx) : 0.0;
        for (int64_t d = 0; d < kHd; ++d) {
          double want = 0.0;
          for (int64_t j = 0; j < kT; ++j)
            if (in.mask[b * kT + j]) want += std::exp(p[j] - mx) / sum * in.qkv[(b * kT + j) * 3 * kH + 2 * kH + h * kHd + d];
          ASSERT_NEAR(out.ctx[(b * kT + i) * kH + h * kHd + d], want, 2e-5) << "b " << b << " h " << h << " i " << i;
        }
      }
}

}  // namespace
}  // namespace cpuft
