// exp and erf on any Vec (vec_avx2.h, vec_avx512.h), accurate to a few f32 ulps.
#pragma once

#include <cstdint>

#include "cpuft/kernels/vec_loop.h"

namespace cpuft {

// exp(x): x = n*ln2 + r with |r| <= ln2/2, exp(r) by its Taylor series to r^7 (truncation
// < 6e-9 relative), times 2^n applied as two factors 2^(n/2) so that n in [-150, 128] never
// leaves the normal exponent range: underflow to denormals/0 and overflow to inf come out
// as from std::exp. NaN propagates (data passed as the second operand of max/min).
template <class V>
typename V::F vexp(typename V::F x) {
  using F = typename V::F;
  using I = typename V::I;
  x = V::max(V::set1(-104.0f), x);
  x = V::min(V::set1(88.8f), x);
  F n = V::round_nearest(V::mul(x, V::set1(1.44269504088896341f)));
  // ln2 split so that n * kLn2Hi is exact for |n| < 2^14.
  F r = V::fma(n, V::set1(-0.693359375f), x);
  r = V::fma(n, V::set1(2.12194440e-4f), r);
  F p = V::set1(1.0f / 5040.0f);
  p = V::fma(p, r, V::set1(1.0f / 720.0f));
  p = V::fma(p, r, V::set1(1.0f / 120.0f));
  p = V::fma(p, r, V::set1(1.0f / 24.0f));
  p = V::fma(p, r, V::set1(1.0f / 6.0f));
  p = V::fma(p, r, V::set1(0.5f));
  p = V::fma(p, r, V::set1(1.0f));
  p = V::fma(p, r, V::set1(1.0f));
  I ni = V::to_int(n);
  I n1 = V::srai1(ni);
  I n2 = V::isub(ni, n1);
  I bias = V::iset1(127);
  F s1 = V::from_bits(V::template sll<23>(V::iadd(n1, bias)));
  F s2 = V::from_bits(V::template sll<23>(V::iadd(n2, bias)));
  return V::mul(V::mul(p, s1), s2);
}

// erf(x). |x| < 0.8: the Maclaurin series x * sum_k c_k x^(2k), k <= 8 (truncation < 3e-9
// relative). |x| >= 0.8: 1 - erfc(|x|) with sign, erfc from the Chebyshev-fitted form
// t * exp(-z^2 + P(t)), t = 1 / (1 + z/2) (Press et al., Numerical Recipes, "erfcc", fractional
// error < 1.2e-7), which costs erf at most ~5e-8 relative here since erfc(0.8) < 0.26.
template <class V>
typename V::F verf(typename V::F x) {
  using F = typename V::F;
  F a = V::min(V::set1(10.0f), V::abs(x));
  // Series: 2/sqrt(pi) * (-1)^k / (k! (2k+1)).
  F y = V::mul(x, x);
  F q = V::set1(1.1283791671f * 1.0f / (40320.0f * 17.0f));
  q = V::fma(q, y, V::set1(-1.1283791671f / (5040.0f * 15.0f)));
  q = V::fma(q, y, V::set1(1.1283791671f / (720.0f * 13.0f)));
  q = V::fma(q, y, V::set1(-1.1283791671f / (120.0f * 11.0f)));
  q = V::fma(q, y, V::set1(1.1283791671f / (24.0f * 9.0f)));
  q = V::fma(q, y, V::set1(-1.1283791671f / (6.0f * 7.0f)));
  q = V::fma(q, y, V::set1(1.1283791671f / (2.0f * 5.0f)));
  q = V::fma(q, y, V::set1(-1.1283791671f / 3.0f));
  q = V::fma(q, y, V::set1(1.1283791671f));
  F small = V::mul(x, q);

  F t = V::div(V::set1(1.0f), V::fma(a, V::set1(0.5f), V::set1(1.0f)));
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
  F arg = V::sub(p, V::mul(a, a));
  F erfc = V::mul(t, vexp<V>(arg));
  F large = V::or_bits(V::sub(V::set1(1.0f), erfc), V::sign_bit(x));
  return V::select(V::lt(a, V::set1(0.8f)), small, large);
}

}  // namespace cpuft
