// Row-wise building blocks of the encoder's forward and backward (private to model/): LayerNorm,
// exact-erf GELU, counter-based dropout, and the QA cross-entropy. They work on (rows, cols)
// row-major f32 arrays and parallelise over rows with OpenMP.
//
// Gradient rule (as in llm.c): parameter gradients ACCUMULATE (+=), activation gradients are
// WRITTEN (=), except where a function says it adds into the residual-stream gradient.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cpuft {

// y = LayerNorm(x) * w + b per row (biased variance, eps inside the sqrt); saves mean and rstd.
void layernorm_fwd(float* y, float* mean, float* rstd, const float* x, const float* w, const float* b,
                   int64_t rows, int64_t cols, float eps);
// dx = d/dx given dy (written); dw, db accumulated. `scratch` holds rows*cols floats and `ones`
// holds `rows` ones (the column sums are products with a ones vector).
void layernorm_bwd(float* dx, float* dw, float* db, const float* dy, const float* x, const float* mean,
                   const float* rstd, const float* w, int64_t rows, int64_t cols, float* scratch,
                   const float* ones);

// y = gelu(x) = 0.5 x (1 + erf(x / sqrt 2)), n elements.
void gelu_fwd(float* y, const float* x, int64_t n);
// dx = dy * gelu'(x) (written; dx may alias dy).
void gelu_bwd(float* dx, const float* dy, const float* x, int64_t n);

// Dropout with a stateless counter-based mask: element i of site `site` is kept when
// hash(seed, site, i) >= p * 2^32, so the same (seed, site) gives the same mask in forward and
// backward, independent of thread count, with nothing stored. Kept elements are scaled by 1/(1-p).
bool dropout_keep(uint64_t seed, uint64_t site, uint64_t i, uint32_t threshold);
uint32_t dropout_threshold(float p);
// In place: x[i] = keep ? x[i] / (1-p) : 0 (also used for the backward of dropout on gradients).
void dropout_apply(float* x, int64_t n, float p, uint64_t seed, uint64_t site);

// The QA loss of spec 1.3 over `rows` sequences of length t. logits are (rows, t, 2) interleaved
// (start, end) as qa_outputs writes them; positions are clamped to [0, t] and t is ignored. Returns
// (CE_start + CE_end) / 2 and writes dlogits = d loss / d logits * scale (same layout).
float qa_loss_fwd_bwd(float* dlogits, const float* logits, const int32_t* start, const int32_t* end,
                      int64_t rows, int64_t t, float scale);

}  // namespace cpuft
