#include "cpuft/model/activations.h"

#include "cpuft/model/attention.h"

#include <algorithm>

namespace cpuft {

void QaModel::Acts::plan(Acts& a, const ModelConfig& c, bool bf16, int64_t rows, int batch, int seq, int threads,
                         bool training, float* base) {
  a.layers.clear();
  a.rows = rows;
  a.product_rows = training ? rows : (rows + kProductRowBlock - 1) / kProductRowBlock * kProductRowBlock;
  a.batch = batch;
  a.seq = seq;
  const size_t n = static_cast<size_t>(a.product_rows);
  const size_t h = static_cast<size_t>(c.hidden), inter = static_cast<size_t>(c.intermediate);
  const size_t tt = static_cast<size_t>(seq) * static_cast<size_t>(seq);
  size_t used = 0;
  // Each tensor starts on a 16-float (64-byte) boundary.
  auto take = [&](size_t count) {
    float* p = base ? base + used : nullptr;
    used += (count + 15) / 16 * 16;
    return p;
  };
  auto take_bf16 = [&](size_t count) { return reinterpret_cast<uint16_t*>(take((count + 1) / 2)); };
  auto take_i32 = [&](size_t count) { return reinterpret_cast<int32_t*>(take(count)); };
  auto take_i8 = [&](size_t count) { return reinterpret_cast<int8_t*>(take((count + 3) / 4)); };
  const size_t keep_bytes = static_cast<size_t>(batch) * static_cast<size_t>(c.heads) *
                            static_cast<size_t>(attention_keep_bytes(seq));
  a.positions = take_i32(n);
  a.packed_ids = training ? nullptr : take_i32(n);
  a.packed_types = training ? nullptr : take_i8(n);
  a.packed_mask = training ? nullptr : take_i8(n);
  a.packed_cu = training ? nullptr : take_i32(n + 1);  // at most one window per token
  a.emb_sum = take(n * h);  // forward only: also every layer's res1 (written after the embeddings are done)
  a.emb_mean = take(n);
  a.emb_rstd = take(n);
  a.emb_ln = take(n * h);
  a.x0 = training ? take(n * h) : a.emb_ln;  // forward only: the embedding dropout is the identity, in place
  const float* input = a.x0;
  // The GELU output: f32 training recomputes it from f1 in backward, so it is one buffer for all
  // layers; bf16 training keeps each layer's bf16 copy (half the size, and no erf pass in backward);
  // forward only, one.
  float* const g_shared = !bf16 && training ? take(n * inter) : nullptr;
  uint16_t* const gb_shared = bf16 && !training ? take_bf16(n * inter) : nullptr;
  // bf16 training: backward reads the bf16 copies of h1 and of each layer's input, so the f32 h1 is
  // one buffer for all layers and the f32 layer outputs alternate between two, as forward only.
  const bool bf16_training = bf16 && training;
  float* const h1_shared = bf16_training ? take(n * h) : nullptr;
  for (int64_t i = 0; i < c.layers; ++i) {
    if (!training && i >= 1) {
      // Forward only: every layer reuses layer 0's tensors but its output, which alternates between
      // two buffers (layer i reads the output of layer i - 1 while writing its own).
      Layer l = a.layers[0];
      l.x = input;
      l.h2 = i == 1 ? take(n * h) : a.layers[static_cast<size_t>(i - 2)].h2;
      input = l.h2;
      a.layers.push_back(l);
      continue;
    }
    Layer l;
    l.x = input;
    l.xb = bf16 ? take_bf16(n * h) : nullptr;
    l.qkv = bf16 ? nullptr : take(3 * n * h);
    l.qkv16 = bf16 ? take_bf16(3 * n * h) : nullptr;
    l.ctx = bf16 ? nullptr : take(n * h);
    l.ctxb = bf16 ? take_bf16(n * h) : nullptr;
    l.res1 = training ? take(n * h) : bf16 ? nullptr : a.emb_sum;
    l.mean1 = take(n);
    l.rstd1 = take(n);
    l.h1 = bf16_training ? h1_shared : take(n * h);
    l.h1b = bf16 ? take_bf16(n * h) : nullptr;
    // The pre-activation: f32, bf16 in bf16 training, none in bf16 forward only (the GELU runs in
    // the ff1 product, writing gb).
    l.f1 = bf16 ? nullptr : take(n * inter);
    l.f1b = bf16_training ? take_bf16(n * inter) : nullptr;
    // The GELU output: bf16 only in bf16 mode; in f32 forward-only plans, written over f1.
    l.g = bf16 ? nullptr : training ? g_shared : l.f1;
    l.gb = bf16 ? (training ? take_bf16(n * inter) : gb_shared) : nullptr;
    l.res2 = !bf16 || training ? take(n * h) : nullptr;
    l.mean2 = take(n);
    l.rstd2 = take(n);
    l.h2 = bf16_training && i >= 2 ? a.layers[static_cast<size_t>(i - 2)].h2 : take(n * h);
    l.attn_keep = training && c.attention_dropout > 0.f ? reinterpret_cast<uint8_t*>(take_i8(keep_bytes)) : nullptr;
    l.attn_stats = training ? take(static_cast<size_t>(attention_stats_floats(batch, c.heads, seq))) : nullptr;
    input = l.h2;
    a.layers.push_back(l);
  }
  const size_t width = static_cast<size_t>(c.head.task == TaskHead::kQuestionAnswering ? 2 : c.head.num_labels);
  const bool sequence = c.head.task == TaskHead::kSequenceClassification;
  const size_t head_rows = sequence ? static_cast<size_t>(batch) : n;
  a.head_in = bf16 ? nullptr : take(head_rows * h);
  a.head_inb = bf16 ? take_bf16(head_rows * h) : nullptr;
  a.cls = sequence ? take(head_rows * h) : nullptr;
  a.clsb = sequence && bf16 ? take_bf16(head_rows * h) : nullptr;
  a.pooled = sequence ? take(head_rows * h) : nullptr;
  a.logits = take(head_rows * width);
  if (training) {
    a.dlogits = take(head_rows * width);
    a.dres = take(n * h);
    a.da = take(n * h);
    a.db = take(n * h);
    a.dqkv = bf16 ? nullptr : take(3 * n * h);
    // Not the output-gradient scratch: the attention core streams it out, and streaming into lines the
    // caches still hold (that scratch's, just read) measured slower.
    a.dqkv16 = bf16 ? take_bf16(3 * n * h) : nullptr;
    a.di = bf16 ? nullptr : take(n * inter);
    a.di16 = bf16 ? take_bf16(n * inter) : nullptr;
    a.dy_b16 = bf16 ? take_bf16(n * std::max({h, inter, width})) : nullptr;
    a.dctx16 = bf16 ? take_bf16(n * h) : nullptr;
    a.proj16 = a.dy_b16;
  } else {
    a.dlogits = a.dres = a.da = a.db = a.dqkv = a.di = nullptr;
    a.dy_b16 = a.dctx16 = a.dqkv16 = a.di16 = nullptr;
    a.proj16 = bf16 ? take_bf16(n * h) : nullptr;
  }
  a.tiles = take(static_cast<size_t>(threads) * static_cast<size_t>(kTilesPerThread) * tt);
  a.floats = used;
}

}  // namespace cpuft
