// Train-mode dropout is drawn per global row: two halves of a batch, each given its row offset and
// half the loss weight, accumulate the gradients of the whole batch (what N ranks rely on).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "cpuft/model/qa_model.h"

namespace {

cpuft::ModelConfig tiny_bert() {
  cpuft::ModelConfig c;
  c.family = cpuft::ModelFamily::kBert;
  c.vocab_size = 100;
  c.max_position_embeddings = 32;
  c.type_vocab_size = 2;
  c.hidden = 32;
  c.layers = 2;
  c.heads = 4;
  c.intermediate = 64;
  c.qa_dropout = 0.f;
  c.hidden_dropout = 0.2f;
  c.attention_dropout = 0.2f;
  return c;
}

}  // namespace

TEST(RowOffset, HalvesWithOffsetsAccumulateTheWholeBatchGradient) {
  const int B = 4, T = 16;
  std::mt19937 rng(3);
  std::vector<int32_t> ids(B * T), start(B), end(B);
  std::vector<int8_t> types(B * T), mask(B * T, 1);
  for (int i = 0; i < B * T; ++i) {
    ids[i] = static_cast<int32_t>(rng() % 100);
    types[i] = static_cast<int8_t>((i % T) > T / 2);
  }
  for (int b = 0; b < B; ++b) {
    start[b] = static_cast<int32_t>(rng() % T);
    end[b] = start[b];
    mask[b * T + T - 1 - b] = 0;
  }
  auto batch = [&](int first, int rows) {
    cpuft::QaModel::Batch x;
    x.input_ids = ids.data() + first * T;
    x.token_type_ids = types.data() + first * T;
    x.attention_mask = mask.data() + first * T;
    x.start_positions = start.data() + first;
    x.end_positions = end.data() + first;
    x.batch = rows;
    x.seq_len = T;
    x.row_offset = first;
    return x;
  };

  cpuft::QaModel whole(tiny_bert(), false, 7), halves(tiny_bert(), false, 7);
  whole.reserve(B, T);
  halves.reserve(B, T);
  const float loss = whole.forward_backward(batch(0, B), 99, 1.f);
  const float l0 = halves.forward_backward(batch(0, 2), 99, 0.5f);
  const float l1 = halves.forward_backward(batch(2, 2), 99, 0.5f);
  EXPECT_NEAR(loss, 0.5f * (l0 + l1), 1e-5f * std::fabs(loss));

  double max_abs = 0, max_diff = 0;
  for (size_t i = 0; i < whole.num_params(); ++i) {
    max_abs = std::max(max_abs, static_cast<double>(std::fabs(whole.grads()[i])));
    max_diff = std::max(max_diff, static_cast<double>(std::fabs(whole.grads()[i] - halves.grads()[i])));
  }
  EXPECT_LT(max_diff, 1e-5 * max_abs) << "largest gradient " << max_abs;

  // Without the offsets the second half would draw the first half's masks: the gradients differ.
  cpuft::QaModel wrong(tiny_bert(), false, 7);
  wrong.reserve(B, T);
  cpuft::QaModel::Batch second = batch(2, 2);
  second.row_offset = 0;
  wrong.forward_backward(batch(0, 2), 99, 0.5f);
  wrong.forward_backward(second, 99, 0.5f);
  double wrong_diff = 0;
  for (size_t i = 0; i < whole.num_params(); ++i)
    wrong_diff = std::max(wrong_diff, static_cast<double>(std::fabs(whole.grads()[i] - wrong.grads()[i])));
  EXPECT_GT(wrong_diff, 1e-3 * max_abs);
}
