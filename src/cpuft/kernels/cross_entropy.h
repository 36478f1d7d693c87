// QA span loss: cross-entropy on start and end logits (docs/parity.md, Model), all in f32.
// Shapes here are tiny (B*T*2 values), so this kernel is scalar only (no ISA variants).
#pragma once

#include <cstdint>

namespace cpuft {

struct QaLoss {
  float loss;      // (ce_start + ce_end) / 2; NaN when every row of a head is ignored
  float ce_start;  // mean over non-ignored rows of the start head
  float ce_end;
  int n_start;     // non-ignored rows per head
  int n_end;
};

// logits (B,T,2): the qa_outputs GEMM output, channel 0 = start, channel 1 = end.
// start_pos, end_pos (B): labels; each is clamped into [0, T] and T is ignore_index.
// CE = (1/N) sum_{i: y_i != T} (logsumexp_j z[i,j] - z[i,y_i]) per head.
// dlogits (B,T,2) nullable (eval): OVERWRITTEN with
//   grad_scale * (softmax(z_i) - onehot(y_i)) / (2 * N_head), and 0 on ignored rows
//   (all zeros for a head with N = 0). grad_scale: 1, or e.g. 1/accumulation_steps.
QaLoss qa_cross_entropy(float* dlogits, const float* logits, const int32_t* start_pos,
                        const int32_t* end_pos, int B, int T, float grad_scale);

}  // namespace cpuft
