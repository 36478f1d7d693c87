#include "cpuft/util/stream_rows.h"

#include <emmintrin.h>

#include <cstring>

namespace cpuft {

void stream_rows(void* dst, size_t dst_ld, const void* src, size_t src_ld, int64_t rows, size_t row_bytes) {
  auto* d = static_cast<char*>(dst);
  const auto* s = static_cast<const char*>(src);
  const bool whole_vectors = (reinterpret_cast<uintptr_t>(d) | dst_ld | row_bytes) % 16 == 0;
  for (int64_t r = 0; r < rows; ++r, d += dst_ld, s += src_ld) {
    if (!whole_vectors) {
      std::memcpy(d, s, row_bytes);
      continue;
    }
    for (size_t b = 0; b < row_bytes; b += 16)
      _mm_stream_si128(reinterpret_cast<__m128i*>(d + b), _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + b)));
  }
  // Streaming stores are weakly ordered: fence them before anyone reads the rows.
  if (whole_vectors) _mm_sfence();
}

}  // namespace cpuft
