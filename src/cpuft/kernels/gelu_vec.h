// GELU forward/backward over any Vec (see gelu.h).
#pragma once

#include <algorithm>
#include <cstdint>

#include "cpuft/kernels/vec_loop.h"
#include "cpuft/kernels/vec_math.h"
#include "cpuft/util/aligned_vector.h"

namespace cpuft {

template <class V>
typename V::F gelu_of(typename V::F x) {
  return V::mul(x, vnormal_cdf<V>(x));
}

// f of every bf16 value, at the index of its 16 bits (256 KiB), computed by the vector operations f
// applies: looking a bf16 value's f up gives the bits of computing it, by one gather instead of an erf and
// an exp per vector. In bf16 training the FFN's pre-activation is bf16.
template <class V>
AlignedVector<float> bf16_table(typename V::F (*f)(typename V::F)) {
  AlignedVector<float> t(size_t{1} << 16);
  for (uint32_t b = 0; b < (1u << 16); b += V::W)
    V::store(t.data() + b, f(V::from_bits(V::template sll<16>(V::iota(b)))));
  return t;
}

// The table's entries for the k bf16 values at p (a tail's missing lanes read entry 0, unused).
template <class V>
typename V::F look_up_bf16(const float* table, const uint16_t* p, int k) {
  return V::gather(table, V::template srl<16>(V::bits(load_bf16_k<V>(p, k))));
}

// gelu_of of every bf16 value (bf16_table), made once per ISA.
template <class V>
const float* gelu_values() {
  static const AlignedVector<float> values = bf16_table<V>(&gelu_of<V>);
  return values.data();
}

template <class V>
void gelu_fwd_vec(float* out, uint16_t* out_bf16, const float* pre, const uint16_t* pre_bf16, int64_t M, int64_t N) {
  const float* const values = pre_bf16 ? gelu_values<V>() : nullptr;  // made before the threads
#pragma omp parallel for schedule(static)
  for (int64_t m = 0; m < M; ++m) {
    const int64_t off = m * N;
    for (int64_t c = 0; c < N; c += V::W) {
      int k = width_at<V>(c, N);
      auto y = values ? look_up_bf16<V>(values, pre_bf16 + off + c, k) : gelu_of<V>(load_k<V>(pre + off + c, k));
      if (out) store_k<V>(out + off + c, k, y);
      if (out_bf16) store_bf16_k<V>(out_bf16 + off + c, k, y);
    }
  }
}

// torch's GeluBackward: dy * (cdf + x * pdf), cdf = 0.5 * (1 + erf(x / sqrt2)),
// pdf = (2/sqrt(pi) * 1/sqrt2 * 0.5) * exp(-0.5 * x * x); gelu_grad_factor is cdf + x * pdf.
template <class V>
typename V::F gelu_grad_factor(typename V::F x) {
  auto cdf = vnormal_cdf<V>(x);
  auto pdf = V::mul(V::set1(0.39894228040143268f), vexp<V>(V::mul(V::mul(x, x), V::set1(-0.5f))));
  return V::add(cdf, V::mul(x, pdf));
}

// gelu_grad_factor of every bf16 value (bf16_table), made once per ISA.
template <class V>
const float* gelu_grad_factors() {
  static const AlignedVector<float> factors = bf16_table<V>(&gelu_grad_factor<V>);
  return factors.data();
}

// Each thread runs down the rows of its columns in order (vec_loop.h's for_each_column_chunk): a row's
// chunk is read and written contiguously, and the column sums (dbias) are added over the rows in order,
// as bias_grad adds them.
template <class V>
void gelu_bwd_vec(float* dpre, uint16_t* dpre_bf16, float* dbias, const float* dout, const uint16_t* dout_bf16,
                  const float* pre, const uint16_t* pre_bf16, int64_t M, int64_t N) {
  const float* const factors = pre_bf16 ? gelu_grad_factors<V>() : nullptr;  // made before the threads
  for_each_column_chunk<V>(N, [=](int64_t c0, int64_t c1) {
    alignas(64) float acc[kColumnChunk];
    std::fill(acc, acc + (c1 - c0), 0.0f);
    for (int64_t m = 0; m < M; ++m) {
      const int64_t row = m * N;
      for (int64_t c = c0; c < c1; c += V::W) {
        const int k = width_at<V>(c, c1);
        const auto factor = factors ? look_up_bf16<V>(factors, pre_bf16 + row + c, k)
                                    : gelu_grad_factor<V>(load_k<V>(pre + row + c, k));
        auto g = V::mul(load_f32_or_bf16<V>(dout, dout_bf16, row + c, k), factor);
        if (dpre) store_k<V>(dpre + row + c, k, g);
        if (dpre_bf16) store_bf16_k<V>(dpre_bf16 + row + c, k, g);
        if (dbias) store_k<V>(acc + (c - c0), k, V::add(load_k<V>(acc + (c - c0), k), g));
      }
    }
    if (dbias)
      for (int64_t c = c0; c < c1; ++c) dbias[c] += acc[c - c0];
  });
}

}  // namespace cpuft
