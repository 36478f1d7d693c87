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

// The f32 loops run over a row in blocks of kHeadBlock columns, in two loops each: the first writes
// every vector's normal_cdf_head into a GeluHeads, the second reads them back from L1 and finishes
// (vec_math.h: the normal CDF's chain is too long to run whole, vector after vector, at the core's rate).
template <class V>
struct GeluHeads {
  alignas(64) float exp_arg[kHeadBlock];
  alignas(64) float half_t[kHeadBlock];
  // The heads of x[c0, c1), c1 - c0 <= kHeadBlock (a tail's missing lanes read 0).
  void compute(const float* x, int64_t c0, int64_t c1) {
    over_columns<V>(c0, c1, [&](int64_t c, int k) CPUFT_INLINE_BODY {
      const NormalCdfHead<V> h = normal_cdf_head<V>(load_k<V>(x + c, k));
      V::store(exp_arg + (c - c0), h.exp_arg);
      V::store(half_t + (c - c0), h.half_t);
    });
  }
  NormalCdfHead<V> at(int64_t j) const { return {V::load(exp_arg + j), V::load(half_t + j)}; }
};

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
    GeluHeads<V> heads;
    with_flags(
        [&](auto by_table) {
          for (int64_t b0 = 0; b0 < N; b0 += kHeadBlock) {
            const int64_t b1 = std::min(N, b0 + kHeadBlock);
            if constexpr (!by_table) heads.compute(pre + off, b0, b1);
            over_columns<V>(b0, b1, [&](int64_t c, int k) CPUFT_INLINE_BODY {
              typename V::F y;
              if constexpr (by_table) {
                y = look_up_bf16<V>(values, pre_bf16 + off + c, k);
              } else {  // gelu_of, from the head
                const auto x = load_k<V>(pre + off + c, k);
                y = V::mul(x, normal_cdf_tail<V>(x, heads.at(c - b0)));
              }
              if (out) store_k<V>(out + off + c, k, y);
              if (out_bf16) store_bf16_k<V>(out_bf16 + off + c, k, y);
            });
          }
        },
        values != nullptr);
  }
}

// torch's GeluBackward: dy * (cdf + x * pdf), cdf = 0.5 * (1 + erf(x / sqrt2)),
// pdf = (2/sqrt(pi) * 1/sqrt2 * 0.5) * exp(-0.5 * x * x); gelu_grad_factor is cdf + x * pdf.
template <class V>
typename V::F gelu_grad_factor_of_cdf(typename V::F x, typename V::F cdf) {
  auto pdf = V::mul(V::set1(0.39894228040143268f), vexp<V>(V::mul(V::mul(x, x), V::set1(-0.5f))));
  return V::add(cdf, V::mul(x, pdf));
}

template <class V>
typename V::F gelu_grad_factor(typename V::F x) {
  return gelu_grad_factor_of_cdf<V>(x, vnormal_cdf<V>(x));
}

// gelu_grad_factor of every bf16 value (bf16_table), made once per ISA.
template <class V>
const float* gelu_grad_factors() {
  static const AlignedVector<float> factors = bf16_table<V>(&gelu_grad_factor<V>);
  return factors.data();
}

// gelu_fwd_vec's out and, in place of pre, gelu_grad_factor: one normal CDF for both (gelu.h gelu_recompute).
template <class V>
void gelu_recompute_vec(float* out, float* pre, int64_t M, int64_t N) {
#pragma omp parallel for schedule(static)
  for (int64_t m = 0; m < M; ++m) {
    float* const x_row = pre + m * N;
    GeluHeads<V> heads;
    for (int64_t b0 = 0; b0 < N; b0 += kHeadBlock) {
      const int64_t b1 = std::min(N, b0 + kHeadBlock);
      heads.compute(x_row, b0, b1);
      over_columns<V>(b0, b1, [&](int64_t c, int k) CPUFT_INLINE_BODY {
        const auto x = load_k<V>(x_row + c, k);
        const auto cdf = normal_cdf_tail<V>(x, heads.at(c - b0));
        store_k<V>(out + m * N + c, k, V::mul(x, cdf));
        store_k<V>(x_row + c, k, gelu_grad_factor_of_cdf<V>(x, cdf));
      });
    }
  }
}

// Where gelu_bwd's factors come from, block by block of a row (block(), then at() for its vectors): the f32
// pre-activation (the CDF in two loops, as gelu_fwd_vec's), the table of a bf16 one's, or given.
template <class V>
struct FactorsOfPre {
  const float* pre;
  GeluHeads<V> heads;
  void block(int64_t row, int64_t b0, int64_t b1) { heads.compute(pre + row, b0, b1); }
  typename V::F at(int64_t row, int64_t c, int k, int64_t b0) const {
    const auto x = load_k<V>(pre + row + c, k);
    return gelu_grad_factor_of_cdf<V>(x, normal_cdf_tail<V>(x, heads.at(c - b0)));
  }
};

template <class V>
struct FactorsOfBf16 {
  const float* table;
  const uint16_t* pre;
  void block(int64_t, int64_t, int64_t) {}
  typename V::F at(int64_t row, int64_t c, int k, int64_t) const { return look_up_bf16<V>(table, pre + row + c, k); }
};

template <class V>
struct FactorsGiven {
  const float* factor;
  void block(int64_t, int64_t, int64_t) {}
  typename V::F at(int64_t row, int64_t c, int k, int64_t) const { return load_k<V>(factor + row + c, k); }
};

// Each thread runs down the rows of its columns in order (vec_loop.h's for_each_column_chunk): a row's
// chunk is read and written contiguously, and the column sums (dbias) are added over the rows in order,
// as bias_grad adds them.
template <class V, class Factors>
void gelu_bwd_rows(float* dpre, uint16_t* dpre_bf16, float* dbias, const float* dout, const uint16_t* dout_bf16,
                   int64_t M, int64_t N, const Factors& factors) {
  for_each_column_chunk<V>(N, [=](int64_t c0, int64_t c1) {
    alignas(64) float acc[kColumnChunk];
    std::fill(acc, acc + (c1 - c0), 0.0f);
    Factors f = factors;
    for (int64_t m = 0; m < M; ++m) {
      const int64_t row = m * N;
      for (int64_t b0 = c0; b0 < c1; b0 += kHeadBlock) {
        const int64_t b1 = std::min(c1, b0 + kHeadBlock);
        f.block(row, b0, b1);
        over_columns<V>(b0, b1, [&](int64_t c, int k) CPUFT_INLINE_BODY {
          auto g = V::mul(load_f32_or_bf16<V>(dout, dout_bf16, row + c, k), f.at(row, c, k, b0));
          if (dpre) store_k<V>(dpre + row + c, k, g);
          if (dpre_bf16) store_bf16_k<V>(dpre_bf16 + row + c, k, g);
          if (dbias) store_k<V>(acc + (c - c0), k, V::add(load_k<V>(acc + (c - c0), k), g));
        });
      }
    }
    if (dbias)
      for (int64_t c = c0; c < c1; ++c) dbias[c] += acc[c - c0];
  });
}

template <class V>
void gelu_bwd_vec(float* dpre, uint16_t* dpre_bf16, float* dbias, const float* dout, const uint16_t* dout_bf16,
                  const float* pre, const uint16_t* pre_bf16, int64_t M, int64_t N) {
  if (pre_bf16)
    gelu_bwd_rows<V>(dpre, dpre_bf16, dbias, dout, dout_bf16, M, N,
                     FactorsOfBf16<V>{gelu_grad_factors<V>(), pre_bf16});  // the table made before the threads
  else
    gelu_bwd_rows<V>(dpre, dpre_bf16, dbias, dout, dout_bf16, M, N, FactorsOfPre<V>{pre, {}});
}

template <class V>
void gelu_bwd_factored_vec(float* dpre, float* dbias, const float* dout, const float* factor, int64_t M, int64_t N) {
  gelu_bwd_rows<V>(dpre, nullptr, dbias, dout, nullptr, M, N, FactorsGiven<V>{factor});
}

}  // namespace cpuft
