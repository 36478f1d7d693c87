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

// Lane j's j * golden (mod 2^32): added to the first index's index * golden + low32(key), the hash's
// first term for every lane (the same sums mod 2^32 as iota(i) * golden + low32(key), one vector
// multiply fewer per vector: a constant, which the loops around dropout_keep_vec hoist).
template <class V>
typename V::I dropout_golden_steps() {
  return V::imul(V::iota(0), V::iset1(0x9e3779b9u));
}

// The keep mask of indices i .. i + W - 1 (klo, khi: the key's halves, thr: the 24-bit threshold;
// steps: dropout_golden_steps).
template <class V>
typename V::M dropout_keep_vec(int64_t i, uint32_t klo, typename V::I khi, typename V::I thr, typename V::I steps) {
  const auto first = V::iset1(static_cast<uint32_t>(i) * 0x9e3779b9u + klo);
  auto h = dropout_mix32_vec<V>(V::iadd(first, steps));
  h = dropout_mix32_vec<V>(V::ixor(h, khi));
  return V::ige(V::template srl<8>(h), thr);
}

template <class V>
void dropout_apply_vec(float* out, uint16_t* out_bf16, const float* in, const uint16_t* in_bf16, int64_t n, float scale,
                       uint64_t key, uint32_t threshold24) {
  const uint32_t klo = static_cast<uint32_t>(key);
  const auto steps = dropout_golden_steps<V>();
  const auto khi = V::iset1(static_cast<uint32_t>(key >> 32));
  const auto thr = V::iset1(threshold24);
  const auto vscale = V::set1(scale);
  for_each_flat_chunk<V>(n, [=](int64_t i, int k) CPUFT_INLINE_BODY {
    auto keep = dropout_keep_vec<V>(i, klo, khi, thr, steps);
    // in * (keep ? scale : 0), as torch multiplies by the scaled Bernoulli mask.
    auto y = V::mul(load_f32_or_bf16<V>(in, in_bf16, i, k), V::select(keep, vscale, V::zero()));
    if (out) store_k<V>(out + i, k, y);
    if (out_bf16) store_bf16_k<V>(out_bf16 + i, k, y);
  });
}

}  // namespace cpuft
