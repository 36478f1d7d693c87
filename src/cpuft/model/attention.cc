#include "cpuft/model/attention.h"

#include <omp.h>

#include "cpuft/kernels/dropout.h"
#include "cpuft/kernels/softmax.h"
#include "cpuft/model/linear.h"
#include "cpuft/tensor/bf16.h"
#include "cpuft/util/op_profile.h"

namespace cpuft {
namespace {

// The probabilities the probs x V product reads: dropped and/or rounded into `tile`, or probs itself.
const float* product_probs(float* tile, const float* probs, int64_t bh, int64_t tt, const AttentionDropout& drop,
                           bool bf16) {
  if (drop.p > 0.f) {
    dropout_fwd(tile, nullptr, probs, tt, drop.p, drop.seed, drop.stream, drop.first_index + static_cast<uint64_t>(bh * tt));
    if (bf16) round_bf16_array(tile, tile, tt);
    return tile;
  }
  if (!bf16) return probs;
  round_bf16_array(probs, tile, tt);
  return tile;
}

}  // namespace

void attention_fwd(float* ctx, float* probs, float* tiles, const float* q, const float* k, const float* v,
                   const int8_t* key_mask, const AttentionShape& s, float score_scale, const AttentionDropout& drop,
                   bool bf16) {
  OpScope scope(Op::attention);
  const int64_t T = s.seq, H = s.hidden, NH = s.heads, HD = s.head_dim(), TT = T * T;
#pragma omp parallel for schedule(dynamic)
  for (int64_t bh = 0; bh < s.batch * NH; ++bh) {
    const int64_t bi = bh / NH, col = bi * T * H + (bh % NH) * HD;
    float* tile = tiles + static_cast<int64_t>(omp_get_thread_num()) * 2 * TT;
    float* p = probs ? probs + bh * TT : tile + TT;
    sgemm(false, true, T, T, HD, score_scale, q + col, H, k + col, H, 0.f, p, T);
    if (bf16) round_bf16_array(p, p, TT);
    softmax_fwd(p, nullptr, p, key_mask ? key_mask + bi * T : nullptr, 1, 1, static_cast<int>(T), 1.f,
                kMaskLowestF32);
    const float* pv = product_probs(tile, p, bh, TT, drop, bf16);
    sgemm(false, false, T, HD, T, 1.f, pv, T, v + col, H, 0.f, ctx + col, H);
  }
}

void attention_bwd(float* dq, float* dk, float* dv, float* tiles, const float* dctx, const float* q, const float* k,
                   const float* v, const float* probs, const int8_t* key_mask, const AttentionShape& s,
                   float score_scale, float dq_scale, const AttentionDropout& drop, bool bf16) {
  OpScope scope(Op::attention);
  const int64_t T = s.seq, H = s.hidden, NH = s.heads, HD = s.head_dim(), TT = T * T;
#pragma omp parallel for schedule(dynamic)
  for (int64_t bh = 0; bh < s.batch * NH; ++bh) {
    const int64_t bi = bh / NH, col = bi * T * H + (bh % NH) * HD;
    const float* p = probs + bh * TT;
    float* tile = tiles + static_cast<int64_t>(omp_get_thread_num()) * 2 * TT;
    float* dp = tile + TT;
    const float* pv = product_probs(tile, p, bh, TT, drop, bf16);  // as the forward product read them
    sgemm(true, false, T, HD, T, 1.f, pv, T, dctx + col, H, 0.f, dv + col, H);  // dV = Pd^T dctx
    sgemm(false, true, T, T, HD, 1.f, dctx + col, H, v + col, H, 0.f, dp, T);   // dPd = dctx V^T
    if (drop.p > 0.f)
      dropout_bwd(dp, dp, TT, drop.p, drop.seed, drop.stream, drop.first_index + static_cast<uint64_t>(bh * TT));
    softmax_bwd(dp, dp, p, key_mask ? key_mask + bi * T : nullptr, 1, 1, static_cast<int>(T), 1.f);
    if (bf16) round_bf16_array(dp, dp, TT);
    sgemm(false, false, T, HD, T, dq_scale, dp, T, k + col, H, 0.f, dq + col, H);    // dQ = dS K
    sgemm(true, false, T, HD, T, score_scale, dp, T, q + col, H, 0.f, dk + col, H);  // dK = dS^T Q
  }
}

}  // namespace cpuft
