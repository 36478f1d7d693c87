// Dropout with a counter-based keep mask: a pure function of (seed, stream, element index), so
// forward and backward regenerate it without storing it and results do not depend on threads.
#pragma once

#include <cstdint>

namespace cpuft {

// True when element `index` is kept. The mask hashes (seed, stream) into a 64-bit key once, then
// hashes (key, index) per element into a 24-bit uniform u; kept iff u >= round(p * 2^24).
// Callers pick one stream per dropout site (the model numbers its sites in model/dropout_sites.h:
// 1 and 2 outside the layers, 16 + 4 * layer + k inside layer `layer`) and change the seed per step.
bool dropout_keep(uint64_t seed, uint64_t stream, uint64_t index, float p);

// out (n) = in * keep / (1 - p)  with the scale 1/(1-p) computed in f32 as torch does.
// p in [0, 1): p == 0 copies (no RNG); p >= 1 writes zeros. n < 2^32 (throws otherwise).
// out may alias in. out_bf16 (n) nullable: bf16 copy of out (e.g. dropped attention probs that
// feed the probs x V GEMM). out may be null when only out_bf16 is wanted.
// Element i uses the mask of index first_index + i (dropout_keep), so a tensor that is one slice of
// a larger batch (one rank's share of a global batch) draws the masks of that slice.
void dropout_fwd(float* out, uint16_t* out_bf16, const float* in, int64_t n, float p,
                 uint64_t seed, uint64_t stream, uint64_t first_index = 0);
// dropout_fwd of bf16 values (a bf16 product's output, widened exactly) into f32 out (not null).
void dropout_fwd_bf16_in(float* out, const uint16_t* in, int64_t n, float p, uint64_t seed, uint64_t stream,
                         uint64_t first_index = 0);

// din (n) = dout * keep / (1 - p), the same mask as dropout_fwd with the same (seed, stream).
// din OVERWRITTEN, may alias dout. din_bf16 (n) nullable: bf16 copy of din (the output gradient a
// product reads next), written in the same pass.
void dropout_bwd(float* din, uint16_t* din_bf16, const float* dout, int64_t n, float p, uint64_t seed,
                 uint64_t stream, uint64_t first_index = 0);

}  // namespace cpuft
