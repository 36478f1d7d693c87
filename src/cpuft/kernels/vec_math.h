// exp and the normal CDF (GELU's) on any Vec (vec_avx2.h, vec_avx512.h), accurate to a few f32 ulps.
#pragma once

#include <cstdint>

#include "cpuft/kernels/vec_loop.h"

namespace cpuft {

// The functions split in two parts below (vexp_head / vexp_tail, normal_cdf_head / normal_cdf_tail) serve
// loops that run over a row in blocks of kHeadBlock columns: the first part over the whole block, its
// results parked in L1, then the second.
constexpr int64_t kHeadBlock = 256;

// exp(x): x = n*ln2 + r with |r| <= ln2/2, exp(r) by its Taylor series to r^7 (truncation
// < 6e-9 relative), times 2^n for n in [-150, 128] by V::times_pow2, rounded once: underflow to
// denormals/0 and overflow to inf come out as from std::exp, with the same bits on every Vec.
// NaN propagates (data passed as the second operand of max/min).
//
// In two parts, vexp_head (the reduction to r and n) and vexp_tail (the series and the scaling), for
// loops that run each over a block of vectors in turn (the softmax's, softmax_vec.h): the whole is one
// chain of about fifteen dependent operations, and two shorter loops overlap more of them. The same
// operations in the same order: the same bits as vexp.
template <class V>
struct ExpHead {
  typename V::F r, n;
};

template <class V>
ExpHead<V> vexp_head(typename V::F x) {
  using F = typename V::F;
  x = V::max(V::set1(-104.0f), x);
  x = V::min(V::set1(88.8f), x);
  F n = V::round_nearest(V::mul(x, V::set1(1.44269504088896341f)));
  // ln2 split so that n * kLn2Hi is exact for |n| < 2^14.
  F r = V::fma(n, V::set1(-0.693359375f), x);
  r = V::fma(n, V::set1(2.12194440e-4f), r);
  return {r, n};
}

template <class V>
typename V::F vexp_tail(const ExpHead<V>& h) {
  using F = typename V::F;
  F p = V::set1(1.0f / 5040.0f);
  p = V::fma(p, h.r, V::set1(1.0f / 720.0f));
  p = V::fma(p, h.r, V::set1(1.0f / 120.0f));
  p = V::fma(p, h.r, V::set1(1.0f / 24.0f));
  p = V::fma(p, h.r, V::set1(1.0f / 6.0f));
  p = V::fma(p, h.r, V::set1(0.5f));
  p = V::fma(p, h.r, V::set1(1.0f));
  p = V::fma(p, h.r, V::set1(1.0f));
  return V::times_pow2(p, h.n);
}

template <class V>
typename V::F vexp(typename V::F x) {
  return vexp_tail<V>(vexp_head<V>(x));
}

// The vexp_heads of a block of kHeadBlock columns.
template <class V>
struct ExpHeads {
  alignas(64) float r[kHeadBlock];
  alignas(64) float n[kHeadBlock];
  void put(int64_t j, const ExpHead<V>& h) {
    V::store(r + j, h.r);
    V::store(n + j, h.n);
  }
  ExpHead<V> at(int64_t j) const { return {V::load(r + j), V::load(n + j)}; }
};

// The standard normal CDF Phi(x) = (1 + erf(x / sqrt2)) / 2 = erfc(-x / sqrt2) / 2, as GELU uses it:
// erfc(z), z = |x| / sqrt2, from the Chebyshev-fitted form t * exp(-z^2 + P(t)), t = 1 / (1 + z/2)
// (Press et al., Numerical Recipes, "erfcc": fractional error < 1.2e-7 for every z >= 0); then
// Phi = erfc / 2 for x < 0 and 1 - erfc / 2 otherwise. One exp and no series: the lower tail keeps its
// relative accuracy (no 1 + erf cancellation), the upper is within 1.2e-7 of 1 - erfc / 2. z is clamped at
// 12, where erfc underflows to 0 (Phi(-inf) = 0, Phi(inf) = 1); NaN propagates.
//
// In two parts, normal_cdf_head and normal_cdf_tail, for loops that run each over a block of vectors in
// turn (gelu_vec.h): the whole is one chain of dependent operations (a division, the polynomial, an exp),
// too long for the core to overlap enough vectors of it, and two shorter loops overlap more. The same
// operations in the same order: the same bits as vnormal_cdf.
template <class V>
struct NormalCdfHead {
  typename V::F exp_arg;  // -z^2 + P(t)
  typename V::F half_t;   // t / 2
};

template <class V>
NormalCdfHead<V> normal_cdf_head(typename V::F x) {
  using F = typename V::F;
  const F z = V::min(V::set1(12.0f), V::mul(V::abs(x), V::set1(0.70710678118654752f)));
  const F t = V::div(V::set1(1.0f), V::fma(z, V::set1(0.5f), V::set1(1.0f)));
  F p = V::set1(0.17087277f);
  p = V::fma(p, t, V::set1(-0.82215223f));
  p = V::fma(p, t, V::set1(1.48851587f));
  p = V::fma(p, t, V::set1(-1.13520398f));
  p = V::fma(p, t, V::set1(0.27886807f));
  p = V::fma(p, t, V::set1(-0.18628806f));
  p = V::fma(p, t, V::set1(0.09678418f));
  p = V::fma(p, t, V::set1(0.37409196f));
  p = V::fma(p, t, V::set1(1.00002368f));
  p = V::fma(p, t, V::set1(-1.26551223f));
  return {V::sub(p, V::mul(z, z)), V::mul(t, V::set1(0.5f))};
}

template <class V>
typename V::F normal_cdf_tail(typename V::F x, const NormalCdfHead<V>& h) {
  const typename V::F half_erfc = V::mul(h.half_t, vexp<V>(h.exp_arg));
  return V::select(V::lt(x, V::zero()), half_erfc, V::sub(V::set1(1.0f), half_erfc));
}

template <class V>
typename V::F vnormal_cdf(typename V::F x) {
  return normal_cdf_tail<V>(x, normal_cdf_head<V>(x));
}

}  // namespace cpuft
