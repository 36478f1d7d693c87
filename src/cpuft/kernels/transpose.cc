#include "cpuft/kernels/transpose.h"

#include <emmintrin.h>
#include <omp.h>

#include "cpuft/util/error.h"

namespace cpuft {
namespace {

// The bf16 values of one cache line (64 bytes): the rows of src that one block writes as whole lines of dst.
constexpr int64_t kLineValues = 32;
// Fewer values than this are transposed on the calling thread.
constexpr int64_t kParallelValues = int64_t{1} << 16;

inline __m128i load(const uint16_t* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }

// The 8 x 8 block at s (row stride ld) transposed: out[j] = its column j, rows 0..7 (16 bytes).
inline void transpose8(const uint16_t* s, int64_t ld, __m128i out[8]) {
  __m128i a[8], b[8], c[8];
  for (int i = 0; i < 8; ++i) a[i] = load(s + i * ld);
  for (int i = 0; i < 8; i += 2) {  // rows i, i + 1 interleaved: columns 0-3, then 4-7
    b[i] = _mm_unpacklo_epi16(a[i], a[i + 1]);
    b[i + 1] = _mm_unpackhi_epi16(a[i], a[i + 1]);
  }
  for (int h = 0; h < 8; h += 4) {  // rows h..h+3: columns 0-1, 2-3, 4-5, 6-7
    c[h] = _mm_unpacklo_epi32(b[h], b[h + 2]);
    c[h + 1] = _mm_unpackhi_epi32(b[h], b[h + 2]);
    c[h + 2] = _mm_unpacklo_epi32(b[h + 1], b[h + 3]);
    c[h + 3] = _mm_unpackhi_epi32(b[h + 1], b[h + 3]);
  }
  for (int q = 0; q < 4; ++q) {  // columns 2q and 2q + 1, rows 0-3 then 4-7
    out[2 * q] = _mm_unpacklo_epi64(c[q], c[q + 4]);
    out[2 * q + 1] = _mm_unpackhi_epi64(c[q], c[q + 4]);
  }
}

// Rows [r0, r1) of src into dst one value at a time (the rows past the last whole block, and every row
// where dst's rows do not start on lines), columns [c0, cols).
void transpose_values(uint16_t* dst, int64_t ld, const uint16_t* src, int64_t r0, int64_t r1, int64_t c0,
                      int64_t cols) {
  for (int64_t c = c0; c < cols; ++c)
    for (int64_t r = r0; r < r1; ++r) dst[c * ld + r] = src[r * cols + c];
}

// Rows [r0, r0 + 32) of src: each 8 of its columns as four 8 x 8 blocks, whose columns go out as whole
// lines of dst (four 16-byte streaming stores to one line in a row); the columns past the last 8 one value
// at a time.
void transpose_lines(uint16_t* dst, int64_t ld, const uint16_t* src, int64_t r0, int64_t cols) {
  int64_t c = 0;
  for (; c + 8 <= cols; c += 8) {
    __m128i t[4][8];
    for (int q = 0; q < 4; ++q) transpose8(src + (r0 + 8 * q) * cols + c, cols, t[q]);
    for (int j = 0; j < 8; ++j) {
      auto* line = reinterpret_cast<__m128i*>(dst + (c + j) * ld + r0);
      for (int q = 0; q < 4; ++q) _mm_stream_si128(line + q, t[q][j]);
    }
  }
  transpose_values(dst, ld, src, r0, r0 + kLineValues, c, cols);
}

}  // namespace

void transpose_bf16(uint16_t* dst, int64_t ld, const uint16_t* src, int64_t rows, int64_t cols) {
  if (rows < 0 || cols < 0 || ld < rows)
    fail_internal("transpose_bf16: a ", rows, " x ", cols, " matrix into rows of stride ", ld, ", expected at least ",
                  rows);
  const bool lines = reinterpret_cast<uintptr_t>(dst) % 64 == 0 && ld % kLineValues == 0;
  const int64_t whole = lines ? rows / kLineValues : 0;  // blocks of 32 rows written as lines
#pragma omp parallel if (rows * cols >= kParallelValues && !omp_in_parallel())
  {
#pragma omp for schedule(static)
    for (int64_t b = 0; b < whole; ++b) transpose_lines(dst, ld, src, b * kLineValues, cols);
    _mm_sfence();  // the streaming stores done before the threads part
  }
  transpose_values(dst, ld, src, whole * kLineValues, rows, 0, cols);
}

}  // namespace cpuft
