// Masked attention softmax forward/backward over any Vec (see softmax.h for the contract).
#pragma once

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
  const auto keep = dropout_keep_vec<V>(row * Tk + c, V::iset1(static_cast<uint32_t>(d.key)),
                                        V::iset1(static_cast<uint32_t>(d.key >> 32)), V::iset1(d.threshold24));
  const uint32_t b = V::mask_bits(keep) & (k == V::W ? ~0u : (1u << k) - 1u);
  std::memcpy(bits, &b, kBytes);
  return keep;
}

template <class V>
void softmax_fwd_vec(float* probs, uint16_t* probs_bf16, const float* scores, const int8_t* key_mask, int B, int H,
                     int Tq, int Tk, ScoreRead read, float mask_value, const DropoutPass* drop, SoftmaxRowStats stats) {
  using F = typename V::F;
  const int64_t rows = static_cast<int64_t>(B) * H * Tq, T = Tk;
  const float neg_inf = -__builtin_inff();
#pragma omp parallel for schedule(static)
  for (int64_t row = 0; row < rows; ++row) {
    const int64_t off = row * T;
    const int8_t* km = key_mask ? key_mask + (row / (static_cast<int64_t>(H) * Tq)) * Tk : nullptr;
    // The scores of lanes c.. (k of them) as read (scaled, rounded) and masked; -inf past the row.
    auto score = [=](int64_t c, int k) {
      F s = load_k<V>(scores + off + c, k, neg_inf);
      if (read.scale != 1.0f) s = V::mul(s, V::set1(read.scale));
      if (read.bf16) s = V::round_bf16(s);
      if (km) s = V::select(V::zero_i8(km + c, k), V::set1(mask_value), s);
      return s;
    };
    // The probabilities of lanes c.., their bf16 copy and the dropout's p * (keep ? scale : 0) (dropout_fwd's).
    auto write = [=](int64_t c, int k, F p) {
      store_k<V>(probs + off + c, k, p);
      if (probs_bf16) store_bf16_k<V>(probs_bf16 + off + c, k, p);
      if (!drop) return;
      const F y = V::mul(p, V::select(softmax_keep<V>(*drop, row, c, T, k), V::set1(drop->scale), V::zero()));
      if (drop->out) store_k<V>(drop->out + off + c, k, y);
      if (drop->out_bf16) store_bf16_k<V>(drop->out_bf16 + off + c, k, y);
    };
    if (stats.in) {  // max and 1 / sum as a call before found them: one pass
      const F mx = V::set1(stats.in[2 * row]), inv = V::set1(stats.in[2 * row + 1]);
      for (int64_t c = 0; c < T; c += V::W) {
        const int k = width_at<V>(c, T);
        write(c, k, V::mul(vexp<V>(V::sub(score(c, k), mx)), inv));
      }
      continue;
    }
    // Pass 1: the scores read and masked (parked in probs), their max.
    F vmax = V::set1(neg_inf);
    for (int64_t c = 0; c < T; c += V::W) {
      const int k = width_at<V>(c, T);
      const F s = score(c, k);
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
    if (stats.out) {
      stats.out[2 * row] = max;
      stats.out[2 * row + 1] = inverse;
    }
    // Pass 3: normalise.
    const F inv = V::set1(inverse);
    for (int64_t c = 0; c < T; c += V::W) {
      const int k = width_at<V>(c, T);
      write(c, k, V::mul(load_k<V>(probs + off + c, k), inv));
    }
  }
}

template <class V>
void softmax_bwd_vec(float* dscores, uint16_t* dscores_bf16, const float* dprobs, const float* probs,
                     const int8_t* key_mask, int B, int H, int Tq, int Tk,
                     float scale, const DropoutPass* drop) {
  using F = typename V::F;
  const int64_t rows = static_cast<int64_t>(B) * H * Tq, T = Tk;
#pragma omp parallel for schedule(static)
  for (int64_t row = 0; row < rows; ++row) {
    const int64_t off = row * T;
    const int8_t* km = key_mask ? key_mask + (row / (static_cast<int64_t>(H) * Tq)) * Tk : nullptr;
    // The gradient of the undropped probabilities: the dropped ones' times keep / (1 - p).
    auto dp = [&](int64_t c, int k) {
      const F d = load_k<V>(dprobs + off + c, k);
      if (!drop) return d;
      return V::mul(d, V::select(softmax_keep<V>(*drop, row, c, T, k), V::set1(drop->scale), V::zero()));
    };
    F acc = V::zero();
    for (int64_t c = 0; c < T; c += V::W) {
      int k = width_at<V>(c, T);
      acc = V::fma(dp(c, k), load_k<V>(probs + off + c, k), acc);
    }
    const F dot = V::set1(V::hsum(acc));
    for (int64_t c = 0; c < T; c += V::W) {
      int k = width_at<V>(c, T);
      F p = load_k<V>(probs + off + c, k);
      F ds = V::mul(p, V::sub(dp(c, k), dot));
      if (scale != 1.0f) ds = V::mul(ds, V::set1(scale));
      if (km) ds = V::select(V::zero_i8(km + c, k), V::zero(), ds);
      if (dscores) store_k<V>(dscores + off + c, k, ds);
      if (dscores_bf16) store_bf16_k<V>(dscores_bf16 + off + c, k, ds);
    }
  }
}

}  // namespace cpuft
