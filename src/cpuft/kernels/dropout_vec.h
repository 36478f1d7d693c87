// Dropout over any Vec: the same hash as dropout_hash.h, eight or sixteen indices at a time.
#pragma once

#include <cstdint>

#include "cpuft/kernels/vec_loop.h"

namespace cpuft {

template <class V>
typename V::I dropout_mix32_vec(typename V::I h) {
  h = V::ixor(h, V::template srl<16>(h));
  h = V::imul(h, V::iset1(0x7feb352du));
  h = V::ixor(h, V::template srl<15>(h));
  h = V::imul(h, V::iset1(0x846ca68bu));
  return V::ixor(h, V::template srl<16>(h));
}

// The keep mask of indices i .. i + W - 1 (klo, khi: the key's halves, thr: the 24-bit threshold).
template <class V>
typename V::M dropout_keep_vec(int64_t i, typename V::I klo, typename V::I khi, typename V::I thr) {
  auto idx = V::iota(static_cast<uint32_t>(i));
  auto h = dropout_mix32_vec<V>(V::iadd(V::imul(idx, V::iset1(0x9e3779b9u)), klo));
  h = dropout_mix32_vec<V>(V::ixor(h, khi));
  return V::ige(V::template srl<8>(h), thr);
}

template <class V>
void dropout_apply_vec(float* out, uint16_t* out_bf16, const float* in, int64_t n, float scale,
                       uint64_t key, uint32_t threshold24) {
  const auto klo = V::iset1(static_cast<uint32_t>(key));
  const auto khi = V::iset1(static_cast<uint32_t>(key >> 32));
  const auto thr = V::iset1(threshold24);
  const auto vscale = V::set1(scale);
  const int64_t chunks = (n + kFlatChunk - 1) / kFlatChunk;
#pragma omp parallel for schedule(static)
  for (int64_t ch = 0; ch < chunks; ++ch) {
    const int64_t end = (ch + 1) * kFlatChunk < n ? (ch + 1) * kFlatChunk : n;
    for (int64_t i = ch * kFlatChunk; i < end; i += V::W) {
      int k = width_at<V>(i, end);
      auto keep = dropout_keep_vec<V>(i, klo, khi, thr);
      // in * (keep ? scale : 0), as torch multiplies by the scaled Bernoulli mask.
      auto y = V::mul(load_k<V>(in + i, k), V::select(keep, vscale, V::zero()));
      if (out) store_k<V>(out + i, k, y);
      if (out_bf16) store_bf16_k<V>(out_bf16 + i, k, y);
    }
  }
}

}  // namespace cpuft
