// The parameter table against the published checkpoints' counts and the Trainer's weight-decay groups
// (docs/parity.md, Model and Training).
#include <gtest/gtest.h>

#include "cpuft/model/param_table.h"

namespace cpuft {
namespace {

TEST(ParamTable, DistilBertBaseQaHas66364418ParametersIn102Tensors) {
  ModelConfig c;  // distilbert-base-uncased defaults
  ParamTable t(c);
  EXPECT_EQ(t.total(), 66364418u);
  EXPECT_EQ(t.entries().size(), 102u);
  EXPECT_EQ(t.entries().front().name, "distilbert.embeddings.word_embeddings.weight");
  EXPECT_EQ(t.entries().back().name, "qa_outputs.bias");
}

TEST(ParamTable, BertBaseQaHas108893186ParametersIn199Tensors) {
  ModelConfig c;
  c.family = ModelFamily::kBert;
  c.type_vocab_size = 2;
  c.layers = 12;
  ParamTable t(c);
  EXPECT_EQ(t.total(), 108893186u);
  EXPECT_EQ(t.entries().size(), 199u);
  ASSERT_NE(t.find("bert.encoder.layer.11.output.LayerNorm.bias"), nullptr);
}

TEST(ParamTable, DecayOnLinearWeightsAndEmbeddingsOnly) {
  ModelConfig c;
  ParamTable t(c);
  for (const ParamEntry& e : t.entries()) {
    const bool norm = e.name.find("LayerNorm") != std::string::npos || e.name.find("layer_norm") != std::string::npos;
    const bool bias = e.name.size() > 5 && e.name.compare(e.name.size() - 5, 5, ".bias") == 0;
    EXPECT_EQ(e.decay, !norm && !bias) << e.name;
    EXPECT_EQ(e.gemm_weight, e.decay && e.name.find("embeddings") == std::string::npos) << e.name;
  }
}

TEST(ParamTable, LayersAreContiguousRangesInForwardOrder) {
  ModelConfig c;
  ParamTable t(c);
  EXPECT_EQ(t.embeddings().begin, 0u);
  EXPECT_EQ(t.layer(0).begin, t.embeddings().end);
  for (int i = 1; i < c.layers; ++i) EXPECT_EQ(t.layer(i).begin, t.layer(i - 1).end);
  EXPECT_EQ(t.head().begin, t.layer(static_cast<int>(c.layers) - 1).end);
  size_t expect = 0;
  for (const ParamEntry& e : t.entries()) {
    EXPECT_EQ(e.offset, expect) << e.name;
    expect += e.numel;
  }
}

}  // namespace
}  // namespace cpuft
