#include "cpuft/tensor/bf16.h"

#include <immintrin.h>
#include <omp.h>

#include <algorithm>

#include "cpuft/cpu/features.h"
#include "cpuft/tensor/bf16_paths.h"

namespace cpuft {
namespace bf16_paths {

void f32_to_bf16_scalar(const float* src, uint16_t* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = f32_to_bf16(src[i]);
}

void bf16_to_f32_scalar(const uint16_t* src, float* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = bf16_to_f32(src[i]);
}

namespace {

// Eight floats to eight bf16 in the low 16 bits of each 32-bit lane (same rule as f32_to_bf16).
inline __m256i round8(__m256 f) {
  const __m256i u = _mm256_castps_si256(f);
  const __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(1));
  const __m256i rounded = _mm256_add_epi32(u, _mm256_add_epi32(lsb, _mm256_set1_epi32(0x7fff)));
  // |u| > inf bits <=> NaN; the signed compare is safe because the sign bit is masked off.
  const __m256i is_nan = _mm256_cmpgt_epi32(_mm256_and_si256(u, _mm256_set1_epi32(0x7fffffff)),
                                            _mm256_set1_epi32(0x7f800000));
  const __m256i quiet = _mm256_or_si256(u, _mm256_set1_epi32(0x00400000));
  return _mm256_srli_epi32(_mm256_blendv_epi8(rounded, quiet, is_nan), 16);
}

}  // namespace

void f32_to_bf16_avx2(const float* src, uint16_t* dst, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m256i lo = round8(_mm256_loadu_ps(src + i));
    __m256i hi = round8(_mm256_loadu_ps(src + i + 8));
    // packus works per 128-bit lane: [lo0-3 hi0-3 | lo4-7 hi4-7]; the permute restores order.
    __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(lo, hi), 0xd8);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), packed);
  }
  f32_to_bf16_scalar(src + i, dst + i, n - i);
}

void bf16_to_f32_avx2(const uint16_t* src, float* dst, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
    __m256i u = _mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16);
    _mm256_storeu_ps(dst + i, _mm256_castsi256_ps(u));
  }
  bf16_to_f32_scalar(src + i, dst + i, n - i);
}

}  // namespace bf16_paths

namespace {

using ToBf16 = void (*)(const float*, uint16_t*, int64_t);
using ToF32 = void (*)(const uint16_t*, float*, int64_t);

struct Paths {
  ToBf16 to_bf16;
  ToF32 to_f32;
  const char* name;
};

const Paths& paths() {
  static const Paths p = [] {
    namespace bp = bf16_paths;
    switch (kernel_isa()) {
      case Isa::avx512:
        if (cpu_features().avx512_bf16)
          return Paths{bp::f32_to_bf16_avx512bf16, bp::bf16_to_f32_avx512, "avx512_bf16"};
        return Paths{bp::f32_to_bf16_avx512, bp::bf16_to_f32_avx512, "avx512"};
      case Isa::avx2:
        return Paths{bp::f32_to_bf16_avx2, bp::bf16_to_f32_avx2, "avx2"};
      case Isa::ref:
        break;
    }
    return Paths{bp::f32_to_bf16_scalar, bp::bf16_to_f32_scalar, "scalar"};
  }();
  return p;
}

// Arrays this long are split over OpenMP threads (below it, thread start-up costs more).
constexpr int64_t kParallelMin = 1 << 16;
// Chunk size for the split: a multiple of every vector width, about 16 KB of floats.
constexpr int64_t kChunk = 4096;

template <typename Src, typename Dst, typename Fn>
void run_chunked(Fn fn, const Src* src, Dst* dst, int64_t n) {
  if (n < kParallelMin || omp_in_parallel()) {
    fn(src, dst, n);
    return;
  }
  const int64_t chunks = (n + kChunk - 1) / kChunk;
#pragma omp parallel for schedule(static)
  for (int64_t c = 0; c < chunks; ++c) {
    const int64_t begin = c * kChunk;
    fn(src + begin, dst + begin, std::min(kChunk, n - begin));
  }
}

}  // namespace

void f32_to_bf16_array(const float* src, uint16_t* dst, int64_t n) {
  if (n > 0) run_chunked(paths().to_bf16, src, dst, n);
}

void bf16_to_f32_array(const uint16_t* src, float* dst, int64_t n) {
  if (n > 0) run_chunked(paths().to_f32, src, dst, n);
}

void round_bf16_array(const float* src, float* dst, int64_t n) {
  auto round = [](const float* s, float* d, int64_t k) {
    for (int64_t i = 0; i < k; ++i) d[i] = round_to_bf16(s[i]);
  };
  if (n > 0) run_chunked(round, src, dst, n);
}

const char* bf16_convert_path() { return paths().name; }

}  // namespace cpuft
