// --pad_to_max_length false against transformers (fixture: tools/make_dynamic_padding_reference.py):
// three unpadded training windows of different lengths, collated as run_qa collates them with that
// flag (DataCollatorWithPadding pads to the batch's longest), give the collator's batch, the Trainer's
// loss over the batch's positions, every gradient, and (evaluation) the logits at every real position.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "common/notices.h"
#include "cpuft/data/batch.h"
#include "cpuft/model/batch_view.h"
#include "cpuft/model/qa_model.h"
#include "model/reference.h"

namespace cpuft {
namespace {

using test::check_gradients;
using test::kF32Parity;
using test::ParityTolerance;
using test::model_fixture_dir;
using test::Reference;
using test::real_positions_diff;

// The fixture's windows as the feature builder makes them with --pad_to_max_length false.
std::vector<Feature> unpadded_features(const Reference& ref) {
  const std::vector<int32_t> ids = ref.ints<int32_t>("features.input_ids");
  const std::vector<int8_t> types = ref.ints<int8_t>("features.token_type_ids");
  const std::vector<int64_t> lengths = ref.ints<int64_t>("features.lengths");
  std::vector<Feature> out;
  size_t at = 0;
  for (size_t i = 0; i < lengths.size(); ++i) {
    Feature f;
    const size_t n = static_cast<size_t>(lengths[i]);
    f.input_ids.assign(ids.begin() + at, ids.begin() + at + n);
    f.token_type_ids.assign(types.begin() + at, types.begin() + at + n);
    f.attention_mask.assign(n, 1);
    f.start_position = ref.start[i];
    f.end_position = ref.end[i];
    out.push_back(std::move(f));
    at += n;
  }
  return out;
}

class DynamicPadding : public ::testing::TestWithParam<const char*> {
 protected:
  Reference ref{model_fixture_dir(GetParam()) + "/dynamic_padding.safetensors"};
  std::vector<Feature> features = unpadded_features(ref);
  std::vector<int64_t> order{0, 1, 2};
};

TEST_P(DynamicPadding, BatchIsTheCollators) {
  ASSERT_EQ(features.size(), 3u);
  BatchBuffers b;
  const int longest = longest_feature(features, order, 0, 3);
  EXPECT_EQ(longest, ref.seq_len);
  b.gather(features, order, 0, 3, longest, /*pad_id=*/0);
  EXPECT_EQ(b.input_ids, ref.input_ids);
  EXPECT_EQ(b.token_type_ids, ref.token_types);
  EXPECT_EQ(b.attention_mask, ref.mask);
}

TEST_P(DynamicPadding, LossGradientsAndLogitsMatchTransformers) {
  cpuft_test::Notices notices;
  QaModel m = QaModel::from_pretrained(model_fixture_dir(GetParam()), false, 0, notices.sink());
  m.reserve(3, 64);  // the arena of --max_seq_length 64; the batch uses 21 of it
  BatchBuffers b;
  b.gather(features, order, 0, 3, longest_feature(features, order, 0, 3), 0);
  const float loss = m.forward_backward(batch_view(b), 0);
  const float want = ref.f32("loss")[0];
  std::printf("%s dynamic padding loss %.8f ref %.8f\n", GetParam(), loss, want);
  EXPECT_NEAR(loss, want, kF32Parity.loss * std::abs(want));
  // A gradient floor 10x lower than kF32Parity's holds on this batch (its worst tensor 4.0e-5 to 9.5e-5
  // under every kernel ISA of an AVX512_BF16 CPU), as this test always had it.
  ParityTolerance tol = kF32Parity;
  tol.grad_floor = 1e-3;
  const double worst = check_gradients(m, ref, "grad.", tol);
  std::printf("%s dynamic padding worst gradient rel diff %.2e\n", GetParam(), worst);
  // Evaluation packs the same windows: the real positions' logits are transformers'.
  std::vector<float> s(b.input_ids.size()), e(s.size());
  m.forward(batch_view(b), s.data(), e.data());
  EXPECT_LT(real_positions_diff(ref, s.data(), "start_logits"), kF32Parity.logits);
  EXPECT_LT(real_positions_diff(ref, e.data(), "end_logits"), kF32Parity.logits);
}

INSTANTIATE_TEST_SUITE_P(TinyModels, DynamicPadding, ::testing::Values("distilbert", "bert_hd8"));

}  // namespace
}  // namespace cpuft
