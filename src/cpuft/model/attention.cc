#include "cpuft/model/attention.h"

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#include "cpuft/kernels/gemm.h"
#include "cpuft/kernels/softmax.h"
#include "cpuft/tensor/bf16.h"
#include "cpuft/util/aligned_vector.h"
#include "cpuft/util/error.h"
#include "cpuft/util/op_profile.h"
#include "cpuft/util/stream_rows.h"

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

// The key mask as the softmax over keys [0, L) reads it: null when none of them is masked (windows
// padded on the right only, as SQuAD's are), so that its passes select nothing; the same values.
const int8_t* softmax_mask(const int8_t* key_mask, int64_t L) {
  if (!key_mask) return nullptr;
  for (int64_t k = 0; k < L; ++k)
    if (!key_mask[k]) return key_mask;
  return nullptr;
}

// The mask of sequence-head bh: element i of its (T, L) probabilities draws dropout mask index
// first_index + bh*T*T + i (unique, as T*L <= T*T); its bits at bh * attention_keep_bytes(T).
SoftmaxDropout mask_of(const AttentionDropout& drop, int64_t bh, int64_t T) {
  return SoftmaxDropout{drop.p, drop.seed, drop.stream, drop.first_index + static_cast<uint64_t>(bh * T * T),
                        drop.keep + bh * attention_keep_bytes(T)};
}

// Sequence-head bh's softmax row statistics (attention_stats_floats' layout): its seq rows of 2 floats;
// null where stats is.
template <class F>
F* stats_of(F* stats, int64_t bh, int64_t seq) {
  return stats ? stats + bh * seq * 2 : nullptr;
}

// The element type of the attention core's operands: f32 (f32 mode) or bf16 (uint16_t, bf16 mode).
template <class E>
constexpr bool kBf16 = std::is_same_v<E, uint16_t>;

// C = alpha op(A) op(B) on one thread: an f32 product, or a bf16 one stored as `store` says.
void product(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
             const float* b, int64_t ldb, float* c, int64_t ldc, TileStore /*store: f32 only*/) {
  tile_matmul(ta, tb, m, n, k, alpha, a, lda, b, ldb, c, ldc);
}
void product(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const uint16_t* a, int64_t lda,
             const uint16_t* b, int64_t ldb, void* c, int64_t ldc, TileStore store) {
  tile_matmul_bf16(ta, tb, m, n, k, alpha, a, lda, b, ldb, c, ldc, store);
}

// The (T, L) scores q k^T of one sequence-head from its q and k blocks (row stride HD) into p, its
// f32 sums as they are: one single-threaded product that forward and backward both run, so backward
// recomputes exactly the forward's scores instead of keeping them.
template <class E>
void scores(float* p, const E* q, const E* k, int64_t T, int64_t L, int64_t HD) {
  product(false, true, T, L, HD, 1.f, q, HD, k, HD, p, L, TileStore::kF32);
}

// How the softmax reads those sums: scaled by score_scale and, in bf16 mode, rounded to bf16 (autocast's
// bf16 product output), in its first pass (forward) or its one pass over the scores (backward).
template <class E>
ScoreRead score_read(float score_scale) {
  return ScoreRead{score_scale, kBf16<E>};
}

// The (T, L) softmax probabilities p of one sequence-head from its q and k blocks, and in `pd` the
// probabilities the probs x V product reads: dropped (training), as E. The dropout mask is drawn in the
// softmax's last pass and its bits kept in drop.keep, and each row's max and 1 / sum in `stats`
// (nullable), for backward: from the same scores, the kept bits and the statistics it computes exactly
// these probabilities (softmax_recompute_bwd). In bf16 mode the softmax writes pd as bf16. In f32 mode
// without dropout, pd is p itself.
template <class E>
const E* probabilities(float* p, E* pd, const E* q, const E* k, const int8_t* mask, int64_t T, int64_t L, int64_t HD,
                       float score_scale, int64_t bh, const AttentionDropout& drop, float* stats) {
  scores(p, q, k, T, L, HD);
  const ScoreRead read = score_read<E>(score_scale);
  uint16_t* p16 = nullptr;
  float* p32 = nullptr;
  if constexpr (kBf16<E>) p16 = pd;
  else p32 = pd;
  if (drop.p > 0.f) {
    softmax_dropout_fwd(p, p32, p16, p, mask, static_cast<int>(T), static_cast<int>(L), read, kMaskLowestF32,
                        mask_of(drop, bh, T), stats);
    return pd;
  }
  softmax_fwd(p, p16, p, mask, 1, 1, static_cast<int>(T), static_cast<int>(L), read, kMaskLowestF32, stats);
  if constexpr (kBf16<E>) return pd;
  else return p;
}

// The rows of sequence `bi`: its first row and its query count.
struct SequenceRows {
  int64_t first, count;
};
SequenceRows sequence_rows(const AttentionShape& s, int64_t bi) {
  if (!s.cu_seqlens) return {bi * s.seq, s.seq};
  return {s.cu_seqlens[bi], s.cu_seqlens[bi + 1] - s.cu_seqlens[bi]};
}

// A sequence-head's q, k and v: its T rows of q and the first L rows of k and v, the attended keys' (row
// stride 3H from q, the slices H apart), copied into the calling thread's buffer as three (T, HD) blocks
// back to back, row stride HD (k's and v's rows from L on are left as they were). In qkv a row's slices
// are 3H elements apart, more than a page at DistilBERT's sizes, where the hardware prefetchers stop: the
// copy's loads, independent of each other, bring the rows in faster than the products' tile loads and
// packing do, and the products then read them in one piece. The same values, so the same bits.
template <class E>
const E* head_rows(const E* q, int64_t T, int64_t L, int64_t H, int64_t HD) {
  thread_local AlignedVector<E> rows;
  if (rows.size() < static_cast<size_t>(3 * T * HD)) rows.resize(static_cast<size_t>(3 * T * HD));
  for (int64_t part = 0; part < 3; ++part)
    for (int64_t r = 0; r < (part == 0 ? T : L); ++r)
      std::memcpy(rows.data() + (part * T + r) * HD, q + r * 3 * H + part * H, static_cast<size_t>(HD) * sizeof(E));
  return rows.data();
}

// Rows [L, T) of a (T, HD) head slice with row stride ld: the gradients of padded keys.
void zero_rows(float* x, int64_t L, int64_t T, int64_t HD, int64_t ld) {
  for (int64_t r = L; r < T; ++r) std::memset(x + r * ld, 0, static_cast<size_t>(HD) * sizeof(float));
}

// The calling thread's buffers for a sequence-head's dQ, dK and dV in bf16 mode: three (T, HD) f32
// blocks that the tile products write while their lines stay in the cache, and their bf16 roundings,
// streamed into dqkv16's rows at the end (stream_rows). Tile products storing straight into those rows,
// 3H apart in an activation no cache holds, wait on a read of every line they write: at 128 tokens
// that doubled the backward.
struct GradientBlocks {
  float* f32;
  uint16_t* bf16;
};
GradientBlocks gradient_blocks(int64_t T, int64_t HD) {
  const int64_t n = 3 * T * HD;
  thread_local AlignedVector<float> blocks;
  if (blocks.size() < static_cast<size_t>(n + (n + 1) / 2)) blocks.resize(static_cast<size_t>(n + (n + 1) / 2));
  return {blocks.data(), reinterpret_cast<uint16_t*>(blocks.data() + n)};
}

template <class E>
void forward(E* ctx, float* tiles, float* stats, const E* qkv, const int8_t* key_mask, const AttentionShape& s,
             float score_scale, const AttentionDropout& drop) {
  const int64_t H = s.hidden, H3 = 3 * H, NH = s.heads, HD = s.head_dim(), TT = s.seq * s.seq;
  if (s.cu_seqlens && drop.p > 0.f) fail_internal("attention_fwd: dropout needs a padded batch, got a packed one");
  if (drop.p > 0.f && !drop.keep) fail_internal("attention_fwd: dropout without room for its keep bits");
#pragma omp parallel for schedule(dynamic)
  for (int64_t bh = 0; bh < s.batch * NH; ++bh) {
    const SequenceRows rows = sequence_rows(s, bh / NH);
    const int64_t T = rows.count, head = (bh % NH) * HD;
    const int8_t* keys = key_mask ? key_mask + rows.first : nullptr;
    const int64_t L = attended_keys(keys, T);
    const int8_t* mask = softmax_mask(keys, L);
    const E* q = head_rows(qkv + rows.first * H3 + head, T, L, H, HD);
    const E *k = q + T * HD, *v = k + T * HD;
    float* tile = tiles + static_cast<int64_t>(omp_get_thread_num()) * kTilesPerThread * TT;
    float* p = tile + TT;
    const E* pd = probabilities(p, reinterpret_cast<E*>(tile), q, k, mask, T, L, HD, score_scale, bh, drop,
                                stats_of(stats, bh, s.seq));
    product(false, false, T, HD, L, 1.f, pd, L, v, HD, ctx + rows.first * H + head, H,
            kBf16<E> ? TileStore::kBf16 : TileStore::kF32);
  }
}

// bf16 mode (E = uint16_t) writes dqkv16 and the per-sequence column sums `sums` (batch, 3H); f32 mode
// writes dqkv.
template <class E>
void backward(float* dqkv, uint16_t* dqkv16, float* sums, float* tiles, const float* stats, const E* dctx, const E* qkv,
              const int8_t* key_mask, const AttentionShape& s, float score_scale, float dq_scale,
              const AttentionDropout& drop) {
  const int64_t H = s.hidden, H3 = 3 * H, NH = s.heads, HD = s.head_dim(), TT = s.seq * s.seq;
  if (s.cu_seqlens) fail_internal("attention_bwd: backward needs a padded batch, got a packed one");
  if (drop.p > 0.f && !drop.keep) fail_internal("attention_bwd: dropout without the forward's keep bits");
  if (!stats) fail_internal("attention_bwd: without the forward's softmax statistics");
#pragma omp parallel for schedule(dynamic)
  for (int64_t bh = 0; bh < s.batch * NH; ++bh) {
    const SequenceRows rows = sequence_rows(s, bh / NH);
    const int64_t T = rows.count, head = (bh % NH) * HD;
    // dQ, dK and dV: in bf16 mode into the thread's gradient blocks, streamed into dqkv16 at the end;
    // in f32 mode straight into dqkv (oneDNN's f32 products measured slower with the blocks).
    const GradientBlocks blocks = kBf16<E> ? gradient_blocks(T, HD) : GradientBlocks{};
    float* dq = kBf16<E> ? blocks.f32 : dqkv + rows.first * H3 + head;
    const int64_t ldg = kBf16<E> ? HD : H3, part_step = kBf16<E> ? T * HD : H;
    float *dk = dq + part_step, *dv = dk + part_step;
    const E* dc = dctx + rows.first * H + head;
    const int8_t* keys = key_mask ? key_mask + rows.first : nullptr;
    const int64_t L = attended_keys(keys, T);
    const int8_t* mask = softmax_mask(keys, L);
    const E* q = head_rows(qkv + rows.first * H3 + head, T, L, H, HD);
    const E *k = q + T * HD, *v = k + T * HD;
    float* tile = tiles + static_cast<int64_t>(omp_get_thread_num()) * kTilesPerThread * TT;
    float* p = tile + TT;  // the scores, then the probabilities
    float* dp = tile + 2 * TT;
    scores(p, q, k, T, L, HD);  // the forward's
    product(false, true, T, L, HD, 1.f, dc, H, v, HD, dp, L, TileStore::kF32);  // dPd = dctx V^T
    // The forward's probabilities from its row statistics; the dropped ones, pd, as the forward's P V read
    // them (into the first tile; f32 mode without dropout: p itself); and dS (through the kept mask): f32
    // in place over dPd, or bf16 after pd in the first tile (two (T, L) bf16 tiles fit in it).
    E* const pd = drop.p > 0.f || kBf16<E> ? reinterpret_cast<E*>(tile) : reinterpret_cast<E*>(p);
    E* const ds = kBf16<E> ? pd + T * L : reinterpret_cast<E*>(dp);
    const SoftmaxDropout dropout = drop.p > 0.f ? mask_of(drop, bh, T) : SoftmaxDropout{};
    float *pd32 = nullptr, *ds32 = nullptr;
    uint16_t *pd16 = nullptr, *ds16 = nullptr;
    if constexpr (kBf16<E>) {
      pd16 = pd;
      ds16 = ds;
    } else {
      pd32 = drop.p > 0.f ? pd : nullptr;
      ds32 = ds;
    }
    softmax_recompute_bwd(ds32, ds16, pd32, pd16, p, dp, mask, static_cast<int>(T), static_cast<int>(L),
                          score_read<E>(score_scale), kMaskLowestF32, stats_of(stats, bh, s.seq),
                          drop.p > 0.f ? &dropout : nullptr);
    product(true, false, L, HD, T, 1.f, pd, L, dc, H, dv, ldg, TileStore::kF32);          // dV = Pd^T dctx
    product(false, false, T, HD, L, dq_scale, ds, L, k, HD, dq, ldg, TileStore::kF32);    // dQ = dS K
    product(true, false, L, HD, T, score_scale, ds, L, q, HD, dk, ldg, TileStore::kF32);  // dK = dS^T Q
    zero_rows(dv, L, T, HD, ldg);  // padded keys: no gradient
    zero_rows(dk, L, T, HD, ldg);
    if constexpr (kBf16<E>) {
      // The bias gradient's share of this sequence-head, from the f32 sums; then the bf16 rows.
      for (int64_t part = 0; part < 3; ++part) {
        float* part_sums = sums + (bh / NH) * H3 + part * H + head;
        std::fill(part_sums, part_sums + HD, 0.0f);
        bias_grad(part_sums, dq + part * part_step, T, HD);  // the rows in order, on this thread
      }
      f32_to_bf16_array(dq, blocks.bf16, 3 * part_step);
      for (int64_t part = 0; part < 3; ++part)
        stream_rows(dqkv16 + rows.first * H3 + part * H + head, H3 * sizeof(uint16_t), blocks.bf16 + part * part_step,
                    HD * sizeof(uint16_t), T, HD * sizeof(uint16_t));
    }
  }
}

}  // namespace

void attention_fwd(float* ctx, uint16_t* ctx16, float* tiles, float* stats, const float* qkv, const uint16_t* qkv16,
                   const int8_t* key_mask, const AttentionShape& s, float score_scale, const AttentionDropout& drop) {
  OpScope scope(Op::kAttention);
  if (qkv16)
    forward(ctx16, tiles, stats, qkv16, key_mask, s, score_scale, drop);
  else
    forward(ctx, tiles, stats, qkv, key_mask, s, score_scale, drop);
}

void attention_bwd(float* dqkv, uint16_t* dqkv16, float* dbias, float* tiles, const float* stats, const float* dctx,
                   const uint16_t* dctx16, const float* qkv, const uint16_t* qkv16, const int8_t* key_mask,
                   const AttentionShape& s, float score_scale, float dq_scale, const AttentionDropout& drop) {
  OpScope scope(Op::kAttention);
  if (!qkv16) {
    backward(dqkv, nullptr, nullptr, tiles, stats, dctx, qkv, key_mask, s, score_scale, dq_scale, drop);
    return;
  }
  const int64_t H3 = 3 * s.hidden;
  // (batch, 3H): each sequence's column sums, every element written by backward. Grown once, as the
  // threads' blocks are: no allocation in the steps after the first.
  thread_local std::vector<float> sums;
  if (sums.size() < static_cast<size_t>(s.batch * H3)) sums.resize(static_cast<size_t>(s.batch * H3));
  float* const by_sequence = sums.data();  // the calling thread's buffer, which the other threads read
  backward(nullptr, dqkv16, by_sequence, tiles, stats, dctx16, qkv16, key_mask, s, score_scale, dq_scale, drop);
  // The sequences' sums in order, each column by one thread: the same bits for any thread count.
  bias_grad(dbias, by_sequence, s.batch, H3);
}

}  // namespace cpuft
