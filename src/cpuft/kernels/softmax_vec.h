// Masked attention softmax forward/backward over any Vec (see softmax.h for the contract).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "cpuft/kernels/dropout_vec.h"
#include "cpuft/kernels/softmax.h"
#include "cpuft/kernels/vec_loop.h"
#include "cpuft/kernels/vec_math.h"

namespace cpuft {

// The keep mask of lanes c .. c + W - 1 of row `row` (k of them real) under d: hashed from index
// row * Tk + c, its bits written, when drawing; else read from the bits. Always inlined: a call in the
// softmax's last pass spills its vector constants around it (GCC declined to inline the two calls).
template <class V>
[[gnu::always_inline]] inline typename V::M softmax_keep(const DropoutPass& d, int64_t row, int64_t c, int64_t Tk,
                                                         int k) {
  uint8_t* bits = d.keep + row * d.row_bytes + c / 8;
  constexpr size_t kBytes = V::W / 8;
  if (!d.draw) {
    uint32_t b = 0;
    std::memcpy(&b, bits, kBytes);
    return V::mask_of_bits(b);
  }
  const auto keep = dropout_keep_vec<V>(row * Tk + c, static_cast<uint32_t>(d.key),
                                        V::iset1(static_cast<uint32_t>(d.key >> 32)), V::iset1(d.threshold24),
                                        dropout_golden_steps<V>());
  const uint32_t b = V::mask_bits(keep) & (k == V::W ? ~0u : (1u << k) - 1u);
  std::memcpy(bits, &b, kBytes);
  return keep;
}

// keep ? 1 / (1 - p) : 0 over lanes c.. of row `row` (k of them), keep by d as softmax_keep gives it.
template <class V>
[[gnu::always_inline]] inline typename V::F softmax_kept_factor(const DropoutPass& d, int64_t row, int64_t c,
                                                                int64_t Tk, int k) {
  return V::select(softmax_keep<V>(d, row, c, Tk, k), V::set1(d.scale), V::zero());
}

// x times that factor: dropout_fwd's values in the forward's last pass, and the gradient through them in
// the backward.
template <class V>
[[gnu::always_inline]] inline typename V::F softmax_kept(const DropoutPass& d, int64_t row, int64_t c, int64_t Tk,
                                                         int k, typename V::F x) {
  return V::mul(x, softmax_kept_factor<V>(d, row, c, Tk, k));
}

// Lanes c.. (k of them) of a row of scores as `read` says (scaled, rounded) and masked by km (the key
// mask, nullable); -inf past the row. Always inlined, as softmax_keep: GCC made it a call, once a vector
// in the forward's first pass and the backward's.
// kScale, kBf16, kMask: read.scale != 1, read.bf16 and km != null, as with_flags gives them.
template <class V, bool kScale, bool kBf16, bool kMask>
[[gnu::always_inline]] inline typename V::F scores_as_read(const float* row, int64_t c, int k, ScoreRead read,
                                                           const int8_t* km, float mask_value) {
  typename V::F s = load_k<V>(row + c, k, -__builtin_inff());
  if constexpr (kScale) s = V::mul(s, V::set1(read.scale));
  if constexpr (kBf16) s = V::round_bf16(s);
  if constexpr (kMask) s = V::select(V::zero_i8(km + c, k), V::set1(mask_value), s);
  return s;
}

template <class V>
void softmax_fwd_vec(float* probs, uint16_t* probs_bf16, const float* scores, const int8_t* key_mask, int B, int H,
                     int Tq, int Tk, ScoreRead read, float mask_value, const DropoutPass* drop, float* stats) {
  using F = typename V::F;
  const int64_t rows = static_cast<int64_t>(B) * H * Tq, T = Tk;
#pragma omp parallel for schedule(static)
  for (int64_t row = 0; row < rows; ++row) {
    const int64_t off = row * T;
    const int8_t* km = key_mask ? key_mask + (row / (static_cast<int64_t>(H) * Tq)) * Tk : nullptr;
    // The row's copies of the shared arguments: the compiler keeps them in registers (read through the
    // parallel region's shared block, they were loaded again after every store).
    const ScoreRead rd = read;
    const float masked = mask_value;
    // Pass 1: read (scale, round), mask, max (the read and masked scores are parked in probs).
    const F vmax = with_flags(
        [&](auto scale, auto bf16, auto mask) {
          F m = V::set1(-__builtin_inff());
          over_columns<V>(0, T, [&](int64_t c, int k) CPUFT_INLINE_BODY {
            const F s = scores_as_read<V, scale, bf16, mask>(scores + off, c, k, rd, km, masked);
            store_k<V>(probs + off + c, k, s);
            m = V::max(m, s);
          });
          return m;
        },
        rd.scale != 1.0f, rd.bf16, km != nullptr);
    const float max = V::hmax(vmax);
    const F mx = V::set1(max);
    // Pass 2: e = exp(s - max) and its sum.
    F vsum = V::zero();
    over_columns<V>(0, T, [&](int64_t c, int k) CPUFT_INLINE_BODY {
      F e = vexp<V>(V::sub(load_k<V>(probs + off + c, k), mx));
      if (k < V::W) e = V::select(V::first(k), e, V::zero());
      store_k<V>(probs + off + c, k, e);
      vsum = V::add(vsum, e);
    });
    const float inverse = 1.0f / V::hsum(vsum);
    if (stats) {  // what softmax_recompute_bwd reads
      stats[2 * row] = max;
      stats[2 * row + 1] = inverse;
    }
    const F inv = V::set1(inverse);
    // Pass 3: normalise (and the dropout).
    const DropoutPass d = drop ? *drop : DropoutPass{};
    with_flags(
        [&](auto dropping) {
          over_columns<V>(0, T, [&](int64_t c, int k) CPUFT_INLINE_BODY {
            const F p = V::mul(load_k<V>(probs + off + c, k), inv);
            store_k<V>(probs + off + c, k, p);
            if (probs_bf16) store_bf16_k<V>(probs_bf16 + off + c, k, p);
            if constexpr (dropping) {
              const F y = softmax_kept<V>(d, row, c, T, k, p);
              if (d.out) store_k<V>(d.out + off + c, k, y);
              if (d.out_bf16) store_bf16_k<V>(d.out_bf16 + off + c, k, y);
            }
          });
        },
        drop != nullptr);
  }
}

template <class V>
void softmax_recompute_bwd_vec(float* dscores, uint16_t* dscores_bf16, float* dropped, uint16_t* dropped_bf16,
                               float* scores, const float* ddropped, const int8_t* key_mask, int rows, int Tk,
                               ScoreRead read, float mask_value, const float* stats, const DropoutPass* drop) {
  using F = typename V::F;
  const int64_t T = Tk;
#pragma omp parallel for schedule(static)
  for (int64_t row = 0; row < rows; ++row) {
    const int64_t off = row * T;
    const ScoreRead rd = read;  // the row's copies of the shared arguments, as in softmax_fwd_vec
    const float masked = mask_value;
    const DropoutPass d = drop ? *drop : DropoutPass{};
    const F mx = V::set1(stats[2 * row]), inv = V::set1(stats[2 * row + 1]);
    // Pass 1: the probabilities from the scores and the row's statistics (softmax_fwd's last pass, its
    // values), over the scores; the dropped ones; and the sum of dp * p.
    // The exps block by block in two loops (vec_math.h's vexp_head, then vexp_tail; the forward's exp pass,
    // split so, ran no faster on Zen 3: BM_AttentionPart parts 1 and 8).
    const F acc = with_flags(
        [&](auto scale, auto bf16, auto mask, auto dropping) {
          F sum = V::zero();
          ExpHeads<V> heads;
          for (int64_t b0 = 0; b0 < T; b0 += kHeadBlock) {
            const int64_t b1 = std::min(T, b0 + kHeadBlock);
            over_columns<V>(b0, b1, [&](int64_t c, int k) CPUFT_INLINE_BODY {
              const F s = scores_as_read<V, scale, bf16, mask>(scores + off, c, k, rd, key_mask, masked);
              heads.put(c - b0, vexp_head<V>(V::sub(s, mx)));
            });
            over_columns<V>(b0, b1, [&](int64_t c, int k) CPUFT_INLINE_BODY {
              F p = V::mul(vexp_tail<V>(heads.at(c - b0)), inv);
              if (k < V::W) p = V::select(V::first(k), p, V::zero());
              store_k<V>(scores + off + c, k, p);
              F dp = load_k<V>(ddropped + off + c, k), y = p;
              if constexpr (dropping) {  // the factor read once for both
                const F factor = softmax_kept_factor<V>(d, row, c, T, k);
                y = V::mul(p, factor);
                dp = V::mul(dp, factor);
              }
              if (dropped) store_k<V>(dropped + off + c, k, y);
              if (dropped_bf16) store_bf16_k<V>(dropped_bf16 + off + c, k, y);
              sum = V::fma(dp, p, sum);
            });
          }
          return sum;
        },
        rd.scale != 1.0f, rd.bf16, key_mask != nullptr, drop != nullptr);
    // Pass 2: ds = p * (dp - sum(dp * p)), over the row pass 1 left in the cache.
    const F dot = V::set1(V::hsum(acc));
    with_flags(
        [&](auto dropping, auto mask) {
          over_columns<V>(0, T, [&](int64_t c, int k) CPUFT_INLINE_BODY {
            const F p = load_k<V>(scores + off + c, k);
            F dp = load_k<V>(ddropped + off + c, k);
            if constexpr (dropping) dp = softmax_kept<V>(d, row, c, T, k, dp);
            F ds = V::mul(p, V::sub(dp, dot));
            if constexpr (mask) ds = V::select(V::zero_i8(key_mask + c, k), V::zero(), ds);
            if (dscores) store_k<V>(dscores + off + c, k, ds);
            if (dscores_bf16) store_bf16_k<V>(dscores_bf16 + off + c, k, ds);
          });
        },
        drop != nullptr, key_mask != nullptr);
  }
}

}  // namespace cpuft
