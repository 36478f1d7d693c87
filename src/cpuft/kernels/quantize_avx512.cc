// AVX-512 instantiation of the quantization kernels.
// GCC 12's AVX-512 intrinsics read an "undefined" vector that it then reports as uninitialized
// (as in kernels_avx512.cc).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>

#include "cpuft/kernels/isa_tables.h"
#include "cpuft/kernels/quantize.h"
#include "cpuft/kernels/quantize_vec.h"
#include "cpuft/kernels/vec_avx512.h"

namespace cpuft {
namespace {

struct IntAvx512 {
  static __m512i iload(const void* p) { return _mm512_loadu_si512(p); }
  static __m512 to_float(__m512i v) { return _mm512_cvtepi32_ps(v); }
  static void store_u8(uint8_t* p, __m512i v) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm512_cvtusepi32_epi8(v));
  }
};

}  // namespace

const QuantKernels& avx512_quant_kernels() {
  static const QuantKernels k = make_quant_kernels<VecAvx512, IntAvx512>();
  return k;
}

}  // namespace cpuft
