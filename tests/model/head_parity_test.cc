// Parity of the classification heads with transformers (fixtures from tools/make_task_head_reference.py):
// DistilBert / Bert ForSequenceClassification with 3 labels (cross-entropy) and 1 label (regression: MSE),
// and ForTokenClassification with 5 labels (-100 on special tokens, padding and sub-tokens): logits, loss
// and every parameter's gradient in f32 and under CPU bf16 autocast, with the tolerances of
// tests/model/parity_test.cc; and the output directory (tensor names, config.json's head fields).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "common/notices.h"
#include "common/temp_dir.h"
#include "cpuft/io/safetensors.h"
#include "cpuft/model/qa_model.h"
#include "cpuft/util/json_read.h"
#include "cpuft/util/read_file.h"
#include "model/reference.h"

namespace cpuft {
namespace {

using test::check_gradients;
using test::kBf16Parity;
using test::kF32Parity;
using test::model_fixture_dir;
using test::Reference;
using test::rel_max_diff;

class HeadParity : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    if (ref.reader.find("labels")->dtype == StDtype::kF32) {
      targets = ref.f32("labels");
    } else {
      labels = ref.ints<int32_t>("labels");
    }
  }
  QaModel load(bool bf16) {
    cpuft_test::Notices notices;
    QaModel m = QaModel::from_pretrained(model_fixture_dir(GetParam()), bf16, 0, notices.sink());
    EXPECT_EQ(notices.str(), "");
    m.reserve(ref.batch, ref.seq_len);
    return m;
  }
  QaModel::Batch batch() const {
    QaModel::Batch b = ref.batch_view();
    b.labels = labels.empty() ? nullptr : labels.data();
    b.targets = targets.empty() ? nullptr : targets.data();
    return b;
  }
  // Eval logits of cpuft against `want` (the reference's, padded (batch, seq_len, L) for a token head):
  // positions past a window's last real token must hold kPadLogit and are not compared.
  double logits_diff(QaModel& m, const std::vector<float>& want) {
    std::vector<float> got(want.size());
    m.forward_classes(batch(), got.data());
    if (m.config().head.task == TaskHead::kTokenClassification) {
      const size_t L = want.size() / static_cast<size_t>(ref.batch * ref.seq_len);
      for (int b = 0; b < ref.batch; ++b) {
        int len = ref.seq_len;
        while (len > 0 && !ref.mask[static_cast<size_t>(b * ref.seq_len + len - 1)]) --len;
        for (size_t i = static_cast<size_t>(b * ref.seq_len + len) * L; i < static_cast<size_t>((b + 1) * ref.seq_len) * L; ++i) {
          EXPECT_EQ(got[i], QaModel::kPadLogit) << "window " << b << " is padding past " << len;
          got[i] = want[i];
        }
      }
    }
    return rel_max_diff(got.data(), want);
  }
  Reference ref{model_fixture_dir(GetParam()) + "/reference.safetensors"};
  std::vector<int32_t> labels;
  std::vector<float> targets;
};

TEST_P(HeadParity, TableHoldsTheStoredTensorsExactly) {
  // The parameter table is transformers' state dict: every stored tensor, nothing more (so the output
  // directory loads with no missing or unexpected keys).
  QaModel m = load(false);
  SafetensorsReader stored(model_fixture_dir(GetParam()) + "/model.safetensors");
  EXPECT_EQ(stored.tensors().size(), m.table().entries().size());
  for (const ParamEntry& e : m.table().entries()) {
    const StTensorInfo* t = stored.find(e.name);
    ASSERT_NE(t, nullptr) << e.name;
    EXPECT_EQ(t->shape, e.shape) << e.name;
  }
}

TEST_P(HeadParity, EvalLogitsMatchTransformers) {
  QaModel m = load(false);
  const double d = logits_diff(m, ref.f32("logits"));
  std::printf("%s logits rel diff %.2e\n", GetParam(), d);
  EXPECT_LT(d, kF32Parity.logits);
}

TEST_P(HeadParity, LossAndEveryGradientMatchTransformers) {
  QaModel m = load(false);
  const float loss = m.forward_backward(batch(), 0);
  const float want = ref.f32("loss")[0];
  std::printf("%s loss %.8f ref %.8f\n", GetParam(), loss, want);
  EXPECT_NEAR(loss, want, kF32Parity.loss * std::abs(want));
  const double worst = check_gradients(m, ref, "grad.", kF32Parity);
  std::printf("%s worst gradient rel diff %.2e over %zu tensors\n", GetParam(), worst, m.table().entries().size());
}

TEST_P(HeadParity, Bf16MatchesTorchAutocast) {
  QaModel m = load(true);
  const float loss = m.forward_backward(batch(), 0);
  const float want = ref.f32("bf16.loss")[0];
  std::printf("%s bf16 loss %.6f ref %.6f\n", GetParam(), loss, want);
  EXPECT_NEAR(loss, want, kBf16Parity.loss * std::abs(want));
  const double d = logits_diff(m, ref.f32("bf16.logits"));
  EXPECT_LT(d, kBf16Parity.logits);
  const double worst = check_gradients(m, ref, "bf16.grad.", kBf16Parity);
  std::printf("%s bf16 logits rel diff %.2e, worst gradient rel diff %.2e\n", GetParam(), d, worst);
}

TEST_P(HeadParity, SavedDirectoryHasTransformersHeadConfig) {
  QaModel m = load(false);
  cpuft_test::TempDir dir;
  m.save_pretrained(dir.path());
  const nlohmann::json want = parse_json(read_file(model_fixture_dir(GetParam()) + "/config.json", 1 << 20), "want");
  const nlohmann::json got = parse_json(read_file(dir / "config.json", 1 << 20), "got");
  for (const char* key : {"architectures", "id2label", "label2id", "problem_type"}) EXPECT_EQ(got.value(key, nlohmann::json()), want.value(key, nlohmann::json())) << key;
  cpuft_test::Notices notices;
  QaModel back = QaModel::from_pretrained(dir.path(), false, 0, notices.sink());
  EXPECT_EQ(notices.str(), "");
  EXPECT_EQ(back.config().head.task, m.config().head.task);
  EXPECT_EQ(back.config().head.num_labels, m.config().head.num_labels);
  EXPECT_EQ(back.config().head.regression, m.config().head.regression);
}

INSTANTIATE_TEST_SUITE_P(TinyModels, HeadParity,
                         ::testing::Values("distilbert_seqcls3", "distilbert_seqreg", "distilbert_tokcls", "bert_seqcls3",
                                           "bert_seqreg", "bert_tokcls"));

}  // namespace
}  // namespace cpuft
