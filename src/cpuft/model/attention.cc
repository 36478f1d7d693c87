#include "cpuft/model/attention.h"

#include <omp.h>

#include <cstring>

#include "cpuft/kernels/dropout.h"
#include "cpuft/kernels/gemm.h"
#include "cpuft/kernels/softmax.h"
#include "cpuft/util/error.h"
#include "cpuft/util/op_profile.h"

namespace cpuft {
namespace {

// The keys a sequence's queries can attend to: [0, keys) where keys is one past its last unmasked
// key. Later keys are padding; their probabilities are exactly 0, so leaving them out of every
// product gives the same result. A sequence with no unmasked key keeps all T (HF's uniform row).
int64_t attended_keys(const int8_t* key_mask, int64_t T) {
  if (!key_mask) return T;
  for (int64_t k = T; k > 0; --k)
    if (key_mask[k - 1]) return k;
  return T;
}

// Element i of the (T, L) probabilities of sequence-head bh draws dropout mask index
// first_index + bh*T*T + i (unique, as T*L <= T*T).
uint64_t dropout_first(const AttentionDropout& drop, int64_t bh, int64_t T) {
  return drop.first_index + static_cast<uint64_t>(bh * T * T);
}

// The probabilities the probs x V product reads in f32 mode: dropped into `tile`, or probs itself.
const float* product_probs(float* tile, const float* probs, int64_t bh, int64_t T, int64_t L,
                           const AttentionDropout& drop) {
  if (drop.p <= 0.f) return probs;
  dropout_fwd(tile, nullptr, probs, T * L, drop.p, drop.seed, drop.stream, dropout_first(drop, bh, T));
  return tile;
}

// The (T, L) softmax probabilities of one sequence-head from its q and k slices (row stride ld):
// forward and backward both call this, with the same inputs and the same single-threaded product,
// so backward recomputes exactly the probabilities forward used instead of keeping them. In bf16
// mode the scores are rounded to bf16 as the product stores them, and the probabilities the probs x V
// product reads go to p16 as bf16 in the same passes: from the softmax, or from the dropout (training).
void probabilities(float* p, uint16_t* p16, const float* q, const float* k, const int8_t* mask, int64_t T, int64_t L,
                   int64_t HD, int64_t ld, float score_scale, bool bf16, int64_t bh, const AttentionDropout& drop) {
  tile_matmul(false, true, T, L, HD, score_scale, q, ld, k, ld, p, L, bf16, /*round_c=*/bf16);
  const bool dropped = drop.p > 0.f;
  softmax_fwd(p, bf16 && !dropped ? p16 : nullptr, p, mask, 1, 1, static_cast<int>(T), static_cast<int>(L), 1.f,
              kMaskLowestF32);
  if (bf16 && dropped)
    dropout_fwd(nullptr, p16, p, T * L, drop.p, drop.seed, drop.stream, dropout_first(drop, bh, T));
}

// The rows of sequence `bi`: its first row and its query count.
struct SequenceRows {
  int64_t first, count;
};
SequenceRows sequence_rows(const AttentionShape& s, int64_t bi) {
  if (!s.cu_seqlens) return {bi * s.seq, s.seq};
  return {s.cu_seqlens[bi], s.cu_seqlens[bi + 1] - s.cu_seqlens[bi]};
}

// Rows [L, T) of a (T, HD) head slice with row stride ld: the gradients of padded keys.
void zero_rows(float* x, int64_t L, int64_t T, int64_t HD, int64_t ld) {
  for (int64_t r = L; r < T; ++r) std::memset(x + r * ld, 0, static_cast<size_t>(HD) * sizeof(float));
}

}  // namespace

void attention_fwd(float* ctx, float* tiles, const float* qkv, const int8_t* key_mask, const AttentionShape& s,
                   float score_scale, const AttentionDropout& drop, bool bf16) {
  OpScope scope(Op::kAttention);
  const int64_t H = s.hidden, H3 = 3 * H, NH = s.heads, HD = s.head_dim(), TT = s.seq * s.seq;
  if (s.cu_seqlens && drop.p > 0.f) fail_internal("attention_fwd: dropout needs a padded batch, got a packed one");
#pragma omp parallel for schedule(dynamic)
  for (int64_t bh = 0; bh < s.batch * NH; ++bh) {
    const SequenceRows rows = sequence_rows(s, bh / NH);
    const int64_t T = rows.count, head = (bh % NH) * HD;
    const float* q = qkv + rows.first * H3 + head;
    const int8_t* mask = key_mask ? key_mask + rows.first : nullptr;
    const int64_t L = attended_keys(mask, T);
    float* tile = tiles + static_cast<int64_t>(omp_get_thread_num()) * kTilesPerThread * TT;
    float* p = tile + TT;
    uint16_t* p16 = reinterpret_cast<uint16_t*>(tile);
    probabilities(p, p16, q, q + H, mask, T, L, HD, H3, score_scale, bf16, bh, drop);
    float* c = ctx + rows.first * H + head;
    if (bf16)
      tile_matmul_a16(false, false, T, HD, L, 1.f, p16, L, q + 2 * H, H3, c, H);
    else
      tile_matmul(false, false, T, HD, L, 1.f, product_probs(tile, p, bh, T, L, drop), L, q + 2 * H, H3, c, H, false);
  }
}

void attention_bwd(float* dqkv, float* tiles, const float* dctx, const float* qkv, const int8_t* key_mask,
                   const AttentionShape& s, float score_scale, float dq_scale, const AttentionDropout& drop, bool bf16) {
  OpScope scope(Op::kAttention);
  const int64_t H = s.hidden, H3 = 3 * H, NH = s.heads, HD = s.head_dim(), TT = s.seq * s.seq;
  if (s.cu_seqlens) fail_internal("attention_bwd: backward needs a padded batch, got a packed one");
#pragma omp parallel for schedule(dynamic)
  for (int64_t bh = 0; bh < s.batch * NH; ++bh) {
    const SequenceRows rows = sequence_rows(s, bh / NH);
    const int64_t T = rows.count, head = (bh % NH) * HD;
    const float *q = qkv + rows.first * H3 + head, *k = q + H, *v = q + 2 * H;
    float *dq = dqkv + rows.first * H3 + head, *dk = dq + H, *dv = dq + 2 * H;
    const float* dc = dctx + rows.first * H + head;
    const int8_t* mask = key_mask ? key_mask + rows.first : nullptr;
    const int64_t L = attended_keys(mask, T);
    float* tile = tiles + static_cast<int64_t>(omp_get_thread_num()) * kTilesPerThread * TT;
    float* p = tile + TT;
    float* dp = tile + 2 * TT;
    // bf16 mode: the probabilities as the forward product read them, then (once dV is done) the
    // score gradient, as bf16 in the first tile.
    uint16_t* t16 = reinterpret_cast<uint16_t*>(tile);
    probabilities(p, t16, q, k, mask, T, L, HD, H3, score_scale, bf16, bh, drop);  // the forward's, bit for bit
    if (bf16)
      tile_matmul_a16(true, false, L, HD, T, 1.f, t16, L, dc, H, dv, H3);  // dV = Pd^T dctx
    else
      tile_matmul(true, false, L, HD, T, 1.f, product_probs(tile, p, bh, T, L, drop), L, dc, H, dv, H3, false);
    tile_matmul(false, true, T, L, HD, 1.f, dc, H, v, H3, dp, L, bf16);  // dPd = dctx V^T
    if (drop.p > 0.f) dropout_bwd(dp, nullptr, dp, T * L, drop.p, drop.seed, drop.stream, dropout_first(drop, bh, T));
    softmax_bwd(bf16 ? nullptr : dp, bf16 ? t16 : nullptr, dp, p, mask, 1, 1, static_cast<int>(T),
                static_cast<int>(L), 1.f);
    if (bf16) {
      tile_matmul_a16(false, false, T, HD, L, dq_scale, t16, L, k, H3, dq, H3);    // dQ = dS K
      tile_matmul_a16(true, false, L, HD, T, score_scale, t16, L, q, H3, dk, H3);  // dK = dS^T Q
    } else {
      tile_matmul(false, false, T, HD, L, dq_scale, dp, L, k, H3, dq, H3, false);
      tile_matmul(true, false, L, HD, T, score_scale, dp, L, q, H3, dk, H3, false);
    }
    zero_rows(dv, L, T, HD, H3);  // padded keys: no gradient
    zero_rows(dk, L, T, HD, H3);
  }
}

}  // namespace cpuft
