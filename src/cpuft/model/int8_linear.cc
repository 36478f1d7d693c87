#include "cpuft/model/int8_linear.h"

#include <algorithm>

#include "cpuft/kernels/gemm_int8.h"
#include "cpuft/kernels/quantize.h"
#include "cpuft/util/aligned_vector.h"
#include "cpuft/util/op_profile.h"

namespace cpuft {
namespace {

struct Scratch {
  AlignedVector<uint8_t> q;
  std::vector<float> scale;
  std::vector<int32_t> zero;
};

Scratch& scratch(int64_t rows, int64_t cols) {
  thread_local Scratch s;
  if (static_cast<int64_t>(s.q.size()) < rows * cols) s.q.resize(static_cast<size_t>(rows * cols));
  if (static_cast<int64_t>(s.scale.size()) < rows) {
    s.scale.resize(static_cast<size_t>(rows));
    s.zero.resize(static_cast<size_t>(rows));
  }
  return s;
}

}  // namespace

void int8_linear_fwd(float* y, const float* x, const Int8Linear& l, const float* bias, int64_t rows) {
  OpScope op(Op::kMatmul);
  const int levels = int8_activation_levels();
  Scratch& s = scratch(rows, l.in);
  if (l.has_range) {
    const ActivationQuant p = activation_quant(l.range_lo, l.range_hi, levels);
    quantize_u8(s.q.data(), x, rows, l.in, p, levels);
    std::fill_n(s.scale.data(), rows, p.scale);
    std::fill_n(s.zero.data(), rows, p.zero);
  } else {
    quantize_rows_u8(s.q.data(), s.scale.data(), s.zero.data(), x, rows, l.in, levels);
  }
  // The s32 product is written over y and dequantized in place (4 bytes per element either way).
  matmul_u8s8s32(rows, l.out, l.in, s.q.data(), l.w.data(), y);
  dequantize_s32(y, reinterpret_cast<const int32_t*>(y), s.scale.data(), s.zero.data(), l.w_scale.data(),
                 l.w_colsum.data(), bias, rows, l.out);
}

Int8Linear quantize_linear(const float* w, int64_t out, int64_t in) {
  Int8Linear l;
  l.out = out;
  l.in = in;
  l.w.resize(static_cast<size_t>(out * in));
  l.w_scale.resize(static_cast<size_t>(out));
  l.w_colsum.resize(static_cast<size_t>(out));
  quantize_weight_s8(l.w.data(), l.w_scale.data(), l.w_colsum.data(), w, out, in);
  return l;
}

}  // namespace cpuft
