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
template <class V>
[[gnu::always_inline]] inline typename V::F scores_as_read(const float* row, int64_t c, int k, ScoreRead read,
                                                           const int8_t* km, float mask_value) {
  typename V::F s = load_k<V>(row + c, k, -__builtin_inff());
  if (read.scale != 1.0f) s = V::mul(s, V::set1(read.scale));
  if (read.bf16) s = V::round_bf16(s);
  if (km) s = V::select(V::zero_i8(km + c, k), V::set1(mask_value), s);
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
    F vmax = V::set1(-__builtin_inff());
    for (int64_t c = 0; c < T; c += V::W) {
      const int k = width_at<V>(c, T);
      const F s = scores_as_read<V>(scores + off, c, k, rd, km, masked);
      store_k<V>(probs + off + c, k, s);
      vmax = V::max(vmax, s);
    }
    const float max = V::hmax(vmax);
    const F mx = V::set1(max);
    // Pass 2: e = exp(s - max) and its sum.
    F vsum = V::zero();
    for (int64_t c = 0; c < T; c += V::W) {
      const int k = width_at<V>(c, T);
      F e = vexp<V>(V::sub(load_k<V>(probs + off + c, k), mx));
      if (k < V::W) e = V::select(V::first(k), e, V::zero());
      store_k<V>(probs + off + c, k, e);
      vsum = V::add(vsum, e);
    }
    const float inverse = 1.0f / V::hsum(vsum);
    if (stats) {  // what softmax_recompute_bwd reads
      stats[2 * row] = max;
      stats[2 * row + 1] = inverse;
    }
    const F inv = V::set1(inverse);
    // Pass 3: normalise.
    for (int64_t c = 0; c < T; c += V::W) {
      const int k = width_at<V>(c, T);
      F p = V::mul(load_k<V>(probs + off + c, k), inv);
      store_k<V>(probs + off + c, k, p);
      if (probs_bf16) store_bf16_k<V>(probs_bf16 + off + c, k, p);
      if (!drop) continue;
      const F y = softmax_kept<V>(*drop, row, c, T, k, p);
      if (drop->out) store_k<V>(drop->out + off + c, k, y);
      if (drop->out_bf16) store_bf16_k<V>(drop->out_bf16 + off + c, k, y);
    }
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
    // The kept lanes' factor, keep ? 1 / (1 - p) : 0, or none without a dropout.
    auto kept = [=](int64_t c, int k, F x) { return drop ? softmax_kept<V>(*drop, row, c, T, k, x) : x; };
    // Pass 1: the probabilities from the scores and the row's statistics (softmax_fwd's last pass, its
    // values), over the scores; the dropped ones; and the sum of dp * p.
    const ScoreRead rd = read;  // the row's copies of the shared arguments, as in softmax_fwd_vec
    const float masked = mask_value;
    const F mx = V::set1(stats[2 * row]), inv = V::set1(stats[2 * row + 1]);
    F acc = V::zero();
    // The exps block by block in two loops (vec_math.h's vexp_head, then vexp_tail; the forward's exp pass,
    // split so, ran no faster on Zen 3: BM_AttentionPart parts 1 and 8).
    ExpHeads<V> heads;
    for (int64_t b0 = 0; b0 < T; b0 += kHeadBlock) {
      const int64_t b1 = std::min(T, b0 + kHeadBlock);
      for (int64_t c = b0; c < b1; c += V::W) {
        const F s = scores_as_read<V>(scores + off, c, width_at<V>(c, T), rd, key_mask, masked);
        heads.put(c - b0, vexp_head<V>(V::sub(s, mx)));
      }
      for (int64_t c = b0; c < b1; c += V::W) {
        const int k = width_at<V>(c, T);
        F p = V::mul(vexp_tail<V>(heads.at(c - b0)), inv);
        if (k < V::W) p = V::select(V::first(k), p, V::zero());
        store_k<V>(scores + off + c, k, p);
        F dp = load_k<V>(ddropped + off + c, k), y = p;
        if (drop) {  // the factor read once for both
          const F factor = softmax_kept_factor<V>(*drop, row, c, T, k);
          y = V::mul(p, factor);
          dp = V::mul(dp, factor);
        }
        if (dropped) store_k<V>(dropped + off + c, k, y);
        if (dropped_bf16) store_bf16_k<V>(dropped_bf16 + off + c, k, y);
        acc = V::fma(dp, p, acc);
      }
    }
    // Pass 2: ds = p * (dp - sum(dp * p)), over the row pass 1 left in the cache.
    const F dot = V::set1(V::hsum(acc));
    for (int64_t c = 0; c < T; c += V::W) {
      const int k = width_at<V>(c, T);
      const F p = load_k<V>(scores + off + c, k);
      F ds = V::mul(p, V::sub(kept(c, k, load_k<V>(ddropped + off + c, k)), dot));
      if (key_mask) ds = V::select(V::zero_i8(key_mask + c, k), V::zero(), ds);
      if (dscores) store_k<V>(dscores + off + c, k, ds);
      if (dscores_bf16) store_bf16_k<V>(dscores_bf16 + off + c, k, ds);
    }
  }
}

}  // namespace cpuft
