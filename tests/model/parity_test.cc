// Parity with Hugging Face transformers (fixtures from tools/make_model_reference.py): logits, loss,
// every parameter gradient, the fixture's AdamW steps (five: STEPS in the tool), and the bf16 autocast
// forward/backward.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <sstream>

#include "common/notices.h"
#include "cpuft/model/optimizer.h"
#include "cpuft/model/qa_model.h"
#include "model/reference.h"

namespace cpuft {
namespace {

using test::model_fixture_dir;
using test::Reference;
using test::check_gradients;
using test::kBf16Parity;
using test::kF32Parity;
using test::real_positions_diff;

class ModelParity : public ::testing::TestWithParam<const char*> {
 protected:
  QaModel load(bool bf16) {
    cpuft_test::Notices notices;
    QaModel m = QaModel::from_pretrained(model_fixture_dir(GetParam()), bf16, 0, notices.sink());
    EXPECT_EQ(notices.str(), "");
    m.reserve(ref.batch, ref.seq_len);
    return m;
  }
  Reference ref{model_fixture_dir(GetParam()) + "/reference.safetensors"};
};

TEST_P(ModelParity, EvalLogitsMatchTransformers) {
  QaModel m = load(false);
  std::vector<float> s(static_cast<size_t>(ref.batch * ref.seq_len)), e(s.size());
  m.forward(ref.batch_view(), s.data(), e.data());
  const double ds = real_positions_diff(ref, s.data(), "start_logits");
  const double de = real_positions_diff(ref, e.data(), "end_logits");
  std::printf("%s logits rel diff start %.2e end %.2e\n", GetParam(), ds, de);
  EXPECT_LT(ds, kF32Parity.logits);
  EXPECT_LT(de, kF32Parity.logits);
}

TEST_P(ModelParity, LossAndEveryGradientMatchTransformers) {
  QaModel m = load(false);
  const float loss = m.forward_backward(ref.batch_view(), 0);
  const float want = ref.f32("loss")[0];
  std::printf("%s loss %.8f ref %.8f\n", GetParam(), loss, want);
  EXPECT_NEAR(loss, want, kF32Parity.loss * std::abs(want));
  const double worst = check_gradients(m, ref, "grad.", kF32Parity);
  std::printf("%s worst gradient rel diff %.2e over %zu tensors\n", GetParam(), worst, m.table().entries().size());
}

TEST_P(ModelParity, AdamWStepsMatchTorch) {
  QaModel m = load(false);
  AdamW opt(m, AdamWConfig{0.9, 0.999, 1e-8, 0.01});
  const std::vector<float> want = ref.f32("step_losses");
  for (size_t i = 0; i < want.size(); ++i) {
    m.zero_grads();
    const float loss = m.forward_backward(ref.batch_view(), 0);
    EXPECT_NEAR(loss, want[i], kF32Parity.loss * std::abs(want[i])) << "step " << i;
    clip_grad_norm(m, 1.0);
    opt.step(m, 1e-3);
  }
  // Adam moves an element by about lr per step whatever the size of its gradient, so elements whose
  // first gradient is rounding noise (|g| < 1e-5 x the model's largest; see check_gradients) may end up
  // anywhere within 2 x lr x steps of the reference. Every other element must agree to 1% of one
  // step (1e-5 absolute).
  const double lr_steps = 1e-3 * static_cast<double>(want.size());
  double grad_max = 0, worst = 0;
  for (const ParamEntry& e : m.table().entries())
    for (float g : ref.f32("grad." + e.name)) grad_max = std::max(grad_max, static_cast<double>(std::abs(g)));
  for (const ParamEntry& e : m.table().entries()) {
    const std::vector<float> want_w = ref.f32("final." + e.name);
    const std::vector<float> grad = ref.f32("grad." + e.name);
    for (size_t i = 0; i < want_w.size(); ++i) {
      const double diff = std::abs(m.params()[e.offset + i] - want_w[i]);
      if (std::abs(grad[i]) < 1e-5 * grad_max) {
        EXPECT_LE(diff, 2 * lr_steps) << e.name << "[" << i << "]";
      } else {
        worst = std::max(worst, diff);
        EXPECT_LT(diff, 1e-5) << e.name << "[" << i << "]";
      }
    }
  }
  std::printf("%s final weights worst abs diff %.2e (lr 1e-3, %zu steps)\n", GetParam(), worst, want.size());
}

TEST_P(ModelParity, Bf16MatchesTorchAutocast) {
  QaModel m = load(true);
  const float loss = m.forward_backward(ref.batch_view(), 0);
  const float want = ref.f32("bf16.loss")[0];
  std::printf("%s bf16 loss %.6f ref %.6f\n", GetParam(), loss, want);
  EXPECT_NEAR(loss, want, kBf16Parity.loss * std::abs(want));
  std::vector<float> s(static_cast<size_t>(ref.batch * ref.seq_len)), e(s.size());
  m.forward(ref.batch_view(), s.data(), e.data());
  const double ds = real_positions_diff(ref, s.data(), "bf16.start_logits");
  const double de = real_positions_diff(ref, e.data(), "bf16.end_logits");
  EXPECT_LT(ds, kBf16Parity.logits);
  EXPECT_LT(de, kBf16Parity.logits);
  const double worst = check_gradients(m, ref, "bf16.grad.", kBf16Parity);
  std::printf("%s bf16 logits rel diff %.2e/%.2e, worst gradient rel diff %.2e\n", GetParam(), ds, de, worst);
}

INSTANTIATE_TEST_SUITE_P(TinyModels, ModelParity, ::testing::Values("distilbert", "bert_hd8", "bert_hd16", "distilbert_hd16"));

}  // namespace
}  // namespace cpuft
