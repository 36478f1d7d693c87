// Masked attention softmax: dispatch through the ISA table.
#include "cpuft/kernels/softmax.h"

#include "cpuft/kernels/dropout_hash.h"
#include "cpuft/kernels/kernel_table.h"
#include "cpuft/util/error.h"

namespace cpuft {
namespace {

DropoutPass pass_of(const SoftmaxDropout& d, int rows, int Tk, bool draw, const char* what) {
  if (!(d.p > 0.f && d.p < 1.f)) fail(what, ": dropout probability ", d.p, ", expected (0, 1)");
  if (!d.keep) fail(what, ": keep is a null pointer");
  if (static_cast<int64_t>(rows) * Tk > int64_t{0xffffffff})
    fail(what, ": ", rows, " x ", Tk, " probabilities, expected fewer than 2^32 (the mask index is 32 bits)");
  DropoutPass pass;
  pass.scale = 1.0f / (1.0f - d.p);
  pass.key = dropout_key_at(d.seed, d.stream, d.first_index);
  pass.threshold24 = dropout_threshold24(d.p);
  pass.keep = d.keep;
  pass.row_bytes = softmax_dropout_row_bytes(Tk);
  pass.draw = draw;
  return pass;
}

}  // namespace

void softmax_fwd(float* probs, uint16_t* probs_bf16, const float* scores, const int8_t* key_mask, int B, int H, int Tq,
                 int Tk, ScoreRead read, float mask_value, float* stats) {
  kernels().softmax_fwd(probs, probs_bf16, scores, key_mask, B, H, Tq, Tk, read, mask_value, nullptr, stats);
}

void softmax_dropout_fwd(float* probs, float* dropped, uint16_t* dropped_bf16, const float* scores,
                         const int8_t* key_mask, int rows, int Tk, ScoreRead read, float mask_value,
                         const SoftmaxDropout& d, float* stats) {
  DropoutPass pass = pass_of(d, rows, Tk, true, "softmax_dropout_fwd");
  pass.out = dropped;
  pass.out_bf16 = dropped_bf16;
  kernels().softmax_fwd(probs, nullptr, scores, key_mask, 1, 1, rows, Tk, read, mask_value, &pass, stats);
}

void softmax_recompute_bwd(float* dscores, uint16_t* dscores_bf16, float* dropped, uint16_t* dropped_bf16,
                           float* scores, const float* ddropped, const int8_t* key_mask, int rows, int Tk,
                           ScoreRead read, float mask_value, const float* stats, const SoftmaxDropout* d) {
  if (!stats) fail("softmax_recompute_bwd: stats is a null pointer");
  DropoutPass pass;
  if (d) pass = pass_of(*d, rows, Tk, false, "softmax_recompute_bwd");
  kernels().softmax_recompute_bwd(dscores, dscores_bf16, dropped, dropped_bf16, scores, ddropped, key_mask, rows, Tk,
                                  read, mask_value, stats, d ? &pass : nullptr);
}

}  // namespace cpuft
