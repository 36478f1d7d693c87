// Rows written to memory by non-temporal (streaming) stores, for results that the next step reads
// from memory anyway and that would otherwise be read into the cache before being overwritten.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cpuft {

// dst[r * dst_ld, + row_bytes) = src[r * src_ld, + row_bytes) for r < rows (strides in bytes). Where
// dst, dst_ld and row_bytes are multiples of 16 the rows go out by non-temporal stores: whole cache
// lines are written without reading them first (a row slice of a large activation is not in any cache,
// and an ordinary store waits for its line to be read), and the rows are not left in the cache. Else a
// plain copy. Either way the stores are complete and visible to other threads when it returns.
void stream_rows(void* dst, size_t dst_ld, const void* src, size_t src_ld, int64_t rows, size_t row_bytes);

}  // namespace cpuft
