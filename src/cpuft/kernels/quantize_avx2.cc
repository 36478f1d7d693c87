// AVX2+FMA instantiation of the quantization kernels.
#include <immintrin.h>

#include "cpuft/kernels/isa_tables.h"
#include "cpuft/kernels/quantize.h"
#include "cpuft/kernels/quantize_vec.h"
#include "cpuft/kernels/vec_avx2.h"

namespace cpuft {
namespace {

struct IntAvx2 {
  static __m256i iload(const void* p) { return _mm256_loadu_si256(static_cast<const __m256i*>(p)); }
  static __m256 to_float(__m256i v) { return _mm256_cvtepi32_ps(v); }
  static void store_u8(uint8_t* p, __m256i v) {
    const __m128i w16 = _mm_packus_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    _mm_storel_epi64(reinterpret_cast<__m128i*>(p), _mm_packus_epi16(w16, w16));
  }
};

}  // namespace

const QuantKernels& avx2_quant_kernels() {
  static const QuantKernels k = make_quant_kernels<VecAvx2, IntAvx2>();
  return k;
}

}  // namespace cpuft
