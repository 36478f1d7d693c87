// Quantization kernels over any Vec (see quantize.h), plus the few integer operations the Vec
// wrappers lack, which each ISA's file provides as a struct X:
//   X::iload(const void* p)        W int32 lanes from p (unaligned; p may be float storage)
//   X::to_float(V::I)              int32 lanes to f32
//   X::store_u8(uint8_t* p, V::I)  W lanes holding 0 .. 255, stored as W bytes
#pragma once

#include <cstdint>
#include <cstring>

#include "cpuft/kernels/quantize_params.h"
#include "cpuft/kernels/vec_loop.h"

namespace cpuft {

// W bytes of q from the lanes of x: round(x * inv) + zero, clipped to [0, levels]; k lanes stored.
template <class V, class X>
void quantize_lanes(uint8_t* q, typename V::F x, typename V::F inv, typename V::F zero, typename V::F top, int k) {
  auto v = V::add(V::round_nearest(V::mul(x, inv)), zero);
  v = V::min(top, V::max(V::zero(), v));  // NaN -> 0 (max returns its second operand for NaN)
  if (k == V::W) {
    X::store_u8(q, V::to_int(v));
  } else {
    uint8_t tmp[V::W];
    X::store_u8(tmp, V::to_int(v));
    std::memcpy(q, tmp, static_cast<size_t>(k));
  }
}

template <class V, class X>
void quantize_rows_u8_vec(uint8_t* q, float* scale, int32_t* zero, const float* x, int64_t rows, int64_t cols,
                          int levels) {
  using F = typename V::F;
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = x + r * cols;
    F lo = V::zero(), hi = V::zero();
    over_columns<V>(0, cols, [&](int64_t c, int k) CPUFT_INLINE_BODY {
      const F v = load_k<V>(row + c, k);  // tail lanes read 0, inside the range
      lo = V::min(lo, v);
      hi = V::max(hi, v);
    });
    const float lo_s = -V::hmax(V::sub(V::zero(), lo)), hi_s = V::hmax(hi);
    const quant_detail::RowQuant p = quant_detail::row_quant(lo_s, hi_s, levels);
    scale[r] = p.scale;
    zero[r] = p.zero;
    const F inv = V::set1(p.inv_scale), z = V::set1(static_cast<float>(p.zero)), top = V::set1(float(levels));
    over_columns<V>(0, cols, [&](int64_t c, int k) CPUFT_INLINE_BODY {
      quantize_lanes<V, X>(q + r * cols + c, load_k<V>(row + c, k), inv, z, top, k);
    });
  }
}

template <class V, class X>
void quantize_u8_vec(uint8_t* q, const float* x, int64_t rows, int64_t cols, float inv_scale, int32_t zero,
                     int levels) {
  using F = typename V::F;
  const F inv = V::set1(inv_scale), z = V::set1(static_cast<float>(zero)), top = V::set1(float(levels));
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < rows; ++r)
    over_columns<V>(0, cols, [&](int64_t c, int k) CPUFT_INLINE_BODY {
      quantize_lanes<V, X>(q + r * cols + c, load_k<V>(x + r * cols + c, k), inv, z, top, k);
    });
}

template <class V, class X>
void dequantize_s32_vec(float* y, const void* acc, const float* a_scale, const int32_t* a_zero, const float* w_scale,
                        const int32_t* w_colsum, const float* bias, int64_t rows, int64_t cols) {
  const char* bytes = static_cast<const char*>(acc);
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < rows; ++r) {
    const auto zr = V::iset1(static_cast<uint32_t>(a_zero[r]));
    const auto sr = V::set1(a_scale[r]);
    over_columns<V>(0, cols, [&](int64_t c, int k) CPUFT_INLINE_BODY {
      const int64_t i = r * cols + c;
      typename V::I a, cs;
      if (k == V::W) {
        a = X::iload(bytes + i * 4);
        cs = X::iload(w_colsum + c);
      } else {
        int32_t ta[V::W] = {}, tc[V::W] = {};
        std::memcpy(ta, bytes + i * 4, static_cast<size_t>(k) * 4);
        std::memcpy(tc, w_colsum + c, static_cast<size_t>(k) * 4);
        a = X::iload(ta);
        cs = X::iload(tc);
      }
      const auto v = X::to_float(V::isub(a, V::imul(zr, cs)));
      const auto b = bias ? load_k<V>(bias + c, k) : V::zero();
      store_k<V>(y + i, k, V::fma(v, V::mul(sr, load_k<V>(w_scale + c, k)), b));
    });
  }
}

template <class V, class X>
QuantKernels make_quant_kernels() {
  return QuantKernels{V::kName, quantize_rows_u8_vec<V, X>, quantize_u8_vec<V, X>, dequantize_s32_vec<V, X>};
}

}  // namespace cpuft
