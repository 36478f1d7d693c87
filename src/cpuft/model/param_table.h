// The parameter table of an encoder with its task head: every tensor with its Hugging Face name, shape,
// offset in the parameter arena and weight-decay flag. Tensors are laid out in forward order (embeddings,
// layer 0 .. L-1, the head) in ONE contiguous f32 arena; the gradient arena (and the AdamW m, v
// arenas) use the same offsets. Because the order is the forward order, the tensors of one layer
// form one contiguous range, which backward finishes last layer first (see grad-ready callback).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cpuft/io/hf_config.h"

namespace cpuft {

struct ParamEntry {
  std::string name;            // HF name with prefix: "distilbert.transformer.layer.0.ffn.lin1.weight"
  std::vector<int64_t> shape;  // [out, in] for Linear weights
  size_t offset = 0;           // in floats, into the parameter arena
  size_t numel = 0;
  bool decay = false;          // the Trainer's weight-decay group (Linear weights and embedding tables)
  bool gemm_weight = false;    // a Linear weight read by a matrix product (gets a bf16 copy)
};

// Offsets (in floats) of one Linear: weight [out, in] and bias [out].
struct LinearOffsets {
  size_t w = 0, b = 0;
};
// Offsets of one LayerNorm: weight and bias [hidden].
struct NormOffsets {
  size_t w = 0, b = 0;
};

// One transformer block, in forward order (but for q, k, v: their three weights, then their three
// biases, so that they are one [3 hidden, hidden] weight and one [3 hidden] bias, read by one product).
// DistilBERT / BERT module names:
//   q k v  = attention.{q,k,v}_lin / attention.self.{query,key,value}
//   o      = attention.out_lin     / attention.output.dense
//   ln1    = sa_layer_norm         / attention.output.LayerNorm
//   ff1    = ffn.lin1              / intermediate.dense
//   ff2    = ffn.lin2              / output.dense
//   ln2    = output_layer_norm     / output.LayerNorm
struct LayerOffsets {
  LinearOffsets q, k, v, o;
  LinearOffsets qkv;  // q, k and v as one Linear: weight [3 hidden, hidden] at q.w, bias [3 hidden] at q.b
  NormOffsets ln1;
  LinearOffsets ff1, ff2;
  NormOffsets ln2;
  size_t begin = 0, end = 0;  // the layer's range in the arena
};

struct EmbeddingOffsets {
  size_t word = 0;        // [vocab, hidden]
  size_t position = 0;    // [max_position, hidden]
  size_t token_type = 0;  // [type_vocab, hidden] (BERT only; unused when type_vocab_size == 0)
  NormOffsets ln;
  size_t begin = 0, end = 0;
};

// The task head (docs/tasks.md), after the last layer:
//   question answering       qa_outputs [2, H]                              (no dense)
//   sequence classification  dense = pre_classifier (DistilBERT) / bert.pooler.dense (BERT) [H, H],
//                            then classifier [num_labels, H]
//   token classification     classifier [num_labels, H]                     (no dense)
struct HeadOffsets {
  bool has_dense = false;
  LinearOffsets dense;  // the sequence head's [H, H] Linear on the first token (ReLU / tanh after it)
  LinearOffsets out;    // qa_outputs or classifier
  size_t begin = 0, end = 0;
  int64_t width = 2;    // out's rows: 2 (start, end) or num_labels
};

class ParamTable {
 public:
  explicit ParamTable(const ModelConfig& config);

  const std::vector<ParamEntry>& entries() const { return entries_; }
  size_t total() const { return total_; }  // floats in the arena
  const ParamEntry* find(const std::string& name) const;

  const EmbeddingOffsets& embeddings() const { return emb_; }
  int num_layers() const { return static_cast<int>(layers_.size()); }
  const LayerOffsets& layer(int i) const { return layers_[static_cast<size_t>(i)]; }
  const HeadOffsets& head() const { return head_; }

 private:
  size_t add(const std::string& name, std::vector<int64_t> shape, bool decay, bool gemm);
  LinearOffsets add_linear(const std::string& name, int64_t out, int64_t in);
  NormOffsets add_norm(const std::string& name, int64_t n);
  void add_qkv(LayerOffsets& l, const std::string& q, const std::string& k, const std::string& v, int64_t h);

  std::vector<ParamEntry> entries_;
  size_t total_ = 0;
  EmbeddingOffsets emb_;
  std::vector<LayerOffsets> layers_;
  HeadOffsets head_;
};

}  // namespace cpuft
