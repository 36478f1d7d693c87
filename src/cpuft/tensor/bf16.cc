#include "cpuft/tensor/bf16.h"

#include <omp.h>

#include <algorithm>

#include "cpuft/cpu/isa.h"
#include "cpuft/tensor/bf16_paths.h"

namespace cpuft {
namespace bf16_paths {

void f32_to_bf16_ref(const float* src, uint16_t* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = f32_to_bf16(src[i]);
}

void bf16_to_f32_ref(const uint16_t* src, float* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = bf16_to_f32(src[i]);
}

void round_bf16_ref(const float* src, float* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = round_to_bf16(src[i]);
}

}  // namespace bf16_paths

namespace {

using ToBf16 = void (*)(const float*, uint16_t*, int64_t);
using ToF32 = void (*)(const uint16_t*, float*, int64_t);
using Round = void (*)(const float*, float*, int64_t);

struct Paths {
  ToBf16 to_bf16;
  ToF32 to_f32;
  Round round;
  const char* name;
};

const Paths& paths() {
  static const Paths p = [] {
    namespace bp = bf16_paths;
    const Paths ref{bp::f32_to_bf16_ref, bp::bf16_to_f32_ref, bp::round_bf16_ref, "ref"};
    const Paths avx2{bp::f32_to_bf16_avx2, bp::bf16_to_f32_avx2, bp::round_bf16_avx2, "avx2"};
    const Paths avx512{bp::f32_to_bf16_avx512, bp::bf16_to_f32_avx512, bp::round_bf16_avx512, "avx512"};
    const Paths avx512_bf16{bp::f32_to_bf16_avx512bf16, bp::bf16_to_f32_avx512, bp::round_bf16_avx512, "avx512_bf16"};
    return isa_pick(kernel_isa(), ref, avx2, avx512, avx512_bf16);
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
  if (n > 0) run_chunked(paths().round, src, dst, n);
}

const char* bf16_convert_path() { return paths().name; }

}  // namespace cpuft
