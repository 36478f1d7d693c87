// Masked attention softmax: scalar reference (cpuft::ref).
#include "cpuft/kernels/ref_kernels.h"

#include <cmath>

#include "cpuft/kernels/dropout_hash.h"
#include "cpuft/tensor/bf16.h"

namespace cpuft {
namespace ref {

namespace {

// Whether element c of row `row` is kept: hashed (and its bit written) when drawing, else read.
bool keep_at(const DropoutPass& d, int64_t row, int64_t c, int64_t Tk) {
  uint8_t& byte = d.keep[row * d.row_bytes + c / 8];
  const uint8_t bit = static_cast<uint8_t>(1u << (c % 8));
  if (!d.draw) return (byte & bit) != 0;
  const bool keep = (dropout_hash(d.key, static_cast<uint32_t>(row * Tk + c)) >> 8) >= d.threshold24;
  byte = static_cast<uint8_t>((c % 8 == 0 ? 0 : byte) | (keep ? bit : 0));
  return keep;
}

// x * (keep ? 1 / (1 - p) : 0) for element c of row `row`, keep by d as keep_at gives it: dropout_fwd's
// values in the forward's last pass, and the gradient through them in the backward.
float softmax_kept(const DropoutPass& d, int64_t row, int64_t c, int64_t Tk, float x) {
  return x * (keep_at(d, row, c, Tk) ? d.scale : 0.0f);
}

// Element c of a row of scores as `read` says (scaled, rounded) and masked by km (nullable).
float score_as_read(const float* row, int64_t c, ScoreRead read, const int8_t* km, float mask_value) {
  float s = row[c] * read.scale;
  if (read.bf16) s = round_to_bf16(s);
  if (km && km[c] == 0) s = mask_value;
  return s;
}

}  // namespace

void softmax_fwd(float* probs, uint16_t* probs_bf16, const float* scores, const int8_t* key_mask, int B, int H, int Tq,
                 int Tk, ScoreRead read, float mask_value, const DropoutPass* drop, float* stats) {
  const int64_t rows = static_cast<int64_t>(B) * H * Tq, T = Tk;
#pragma omp parallel for schedule(static)
  for (int64_t row = 0; row < rows; ++row) {
    const int64_t off = row * T;
    const int8_t* km = key_mask ? key_mask + (row / (static_cast<int64_t>(H) * Tq)) * Tk : nullptr;
    float mx = -INFINITY;
    for (int64_t c = 0; c < T; ++c) {
      probs[off + c] = score_as_read(scores + off, c, read, km, mask_value);
      mx = std::fmax(mx, probs[off + c]);
    }
    float sum = 0.0f;
    for (int64_t c = 0; c < T; ++c) {
      probs[off + c] = std::exp(probs[off + c] - mx);
      sum += probs[off + c];
    }
    const float inv = 1.0f / sum;
    if (stats) {
      stats[2 * row] = mx;
      stats[2 * row + 1] = inv;
    }
    for (int64_t c = 0; c < T; ++c) {
      probs[off + c] *= inv;
      if (probs_bf16) probs_bf16[off + c] = f32_to_bf16(probs[off + c]);
      if (!drop) continue;
      const float y = softmax_kept(*drop, row, c, T, probs[off + c]);
      if (drop->out) drop->out[off + c] = y;
      if (drop->out_bf16) drop->out_bf16[off + c] = f32_to_bf16(y);
    }
  }
}

void softmax_recompute_bwd(float* dscores, uint16_t* dscores_bf16, float* dropped, uint16_t* dropped_bf16,
                           float* scores, const float* ddropped, const int8_t* key_mask, int rows, int Tk,
                           ScoreRead read, float mask_value, const float* stats, const DropoutPass* drop) {
  const int64_t T = Tk;
#pragma omp parallel for schedule(static)
  for (int64_t row = 0; row < rows; ++row) {
    const int64_t off = row * T;
    auto kept = [&](int64_t c, float x) { return drop ? softmax_kept(*drop, row, c, T, x) : x; };
    const float mx = stats[2 * row], inv = stats[2 * row + 1];
    float dot = 0.0f;
    for (int64_t c = 0; c < T; ++c) {
      const float p = std::exp(score_as_read(scores + off, c, read, key_mask, mask_value) - mx) * inv;
      scores[off + c] = p;
      if (dropped) dropped[off + c] = kept(c, p);
      if (dropped_bf16) dropped_bf16[off + c] = f32_to_bf16(kept(c, p));
      dot += kept(c, ddropped[off + c]) * p;
    }
    for (int64_t c = 0; c < T; ++c) {
      float ds = scores[off + c] * (kept(c, ddropped[off + c]) - dot);
      if (key_mask && key_mask[c] == 0) ds = 0.0f;
      if (dscores) dscores[off + c] = ds;
      if (dscores_bf16) dscores_bf16[off + c] = f32_to_bf16(ds);
    }
  }
}

}  // namespace ref
}  // namespace cpuft
