// A forward pass runs its batch in groups of whole windows (QaModel::group_rows): the logits are the
// whole batch's, for padded and packed batches and every head, and a forward-only arena holds one
// group, so it stops growing with the batch.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "common/notices.h"
#include "cpuft/model/qa_model.h"
#include "model/reference.h"

namespace cpuft {
namespace {

using test::model_fixture_dir;
using test::Reference;

// Group sizes that split the fixtures' batches of three windows: every window alone (each longer than
// a group), and groups of one or two windows (a window of the fixtures has at most 24 tokens).
constexpr int64_t kSplits[] = {1, 30};

// The fixture's padded batch packed: each window's tokens up to its last unmasked one, back to back.
struct Packed {
  explicit Packed(const Reference& ref) {
    cu.push_back(0);
    for (int w = 0; w < ref.batch; ++w) {
      int len = ref.seq_len;
      while (len > 1 && !ref.mask[static_cast<size_t>(w * ref.seq_len + len - 1)]) --len;
      for (int t = 0; t < len; ++t) {
        const size_t i = static_cast<size_t>(w * ref.seq_len + t);
        ids.push_back(ref.input_ids[i]);
        types.push_back(ref.token_types[i]);
        mask.push_back(ref.mask[i]);
      }
      cu.push_back(cu.back() + len);
    }
    EXPECT_LT(cu.back(), ref.batch * ref.seq_len) << "the fixture has padding to leave out";
  }
  QaModel::Batch view(const Reference& ref) const {
    QaModel::Batch b;
    b.input_ids = ids.data();
    b.token_type_ids = types.data();
    b.attention_mask = mask.data();
    b.cu_seqlens = cu.data();
    b.batch = ref.batch;
    b.seq_len = ref.seq_len;
    return b;
  }
  std::vector<int32_t> ids, cu;
  std::vector<int8_t> types, mask;
};

// The logits of a batch run whole: the same up to the rounding of products over other rows (a window's
// rows sit elsewhere in a group's products than in the whole batch's), kPadLogit at the same places.
void expect_same_logits(const std::vector<float>& want, const std::vector<float>& got, const std::string& what) {
  ASSERT_EQ(want.size(), got.size());
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_EQ(want[i] == QaModel::kPadLogit, got[i] == QaModel::kPadLogit) << what << ", logit " << i;
    ASSERT_NEAR(want[i], got[i], 1e-5f * (1 + std::abs(want[i]))) << what << ", logit " << i;
  }
}

TEST(ForwardGroups, SmallGroupsGiveTheLogitsOfTheWholeBatch) {
  for (const char* name : {"distilbert", "bert_hd8"}) {
    Reference ref(model_fixture_dir(name) + "/reference.safetensors");
    const Packed packed(ref);
    const size_t n = static_cast<size_t>(ref.batch * ref.seq_len);
    for (bool bf16 : {false, true}) {
      cpuft_test::Notices notices;
      QaModel whole = QaModel::from_pretrained(model_fixture_dir(name), bf16, 0, notices.sink());
      const size_t whole_bytes = whole.reserve(ref.batch, ref.seq_len, /*training=*/false);
      ASSERT_GE(whole.group_rows(), int64_t{ref.batch} * ref.seq_len);  // the whole batch in one group
      std::vector<float> s(n), e(n);
      whole.forward(ref.batch_view(), s.data(), e.data());
      for (int64_t rows : kSplits) {
        QaModel grouped = QaModel::from_pretrained(model_fixture_dir(name), bf16, 0, notices.sink());
        grouped.set_group_rows(rows);
        EXPECT_LE(grouped.reserve(ref.batch, ref.seq_len, /*training=*/false), whole_bytes);
        for (bool pack : {false, true}) {
          std::vector<float> s2(n, 1.f), e2(n, 1.f);
          grouped.forward(pack ? packed.view(ref) : ref.batch_view(), s2.data(), e2.data());
          const std::string what = std::string(name) + " bf16 " + (bf16 ? "on" : "off") + ", groups of " +
                                   std::to_string(rows) + " rows, packed " + (pack ? "yes" : "no");
          expect_same_logits(s, s2, what + ", start");
          expect_same_logits(e, e2, what + ", end");
        }
      }
    }
  }
}

TEST(ForwardGroups, ClassificationHeadsInGroups) {
  for (const char* name : {"distilbert_seqcls3", "bert_seqreg", "bert_tokcls", "distilbert_tokcls"}) {
    Reference ref(model_fixture_dir(name) + "/reference.safetensors");
    const Packed packed(ref);
    cpuft_test::Notices notices;
    QaModel whole = QaModel::from_pretrained(model_fixture_dir(name), false, 0, notices.sink());
    whole.reserve(ref.batch, ref.seq_len, /*training=*/false);
    const bool token = whole.config().head.task == TaskHead::kTokenClassification;
    const size_t n = static_cast<size_t>(ref.batch) * (token ? static_cast<size_t>(ref.seq_len) : 1) *
                     static_cast<size_t>(whole.table().head().width);
    std::vector<float> want(n);
    whole.forward_classes(ref.batch_view(), want.data());
    for (int64_t rows : kSplits) {
      QaModel grouped = QaModel::from_pretrained(model_fixture_dir(name), false, 0, notices.sink());
      grouped.set_group_rows(rows);
      grouped.reserve(ref.batch, ref.seq_len, /*training=*/false);
      for (bool pack : {false, true}) {
        std::vector<float> got(n, 1.f);
        grouped.forward_classes(pack ? packed.view(ref) : ref.batch_view(), got.data());
        expect_same_logits(want, got, std::string(name) + ", groups of " + std::to_string(rows) + " rows, packed " +
                                          (pack ? "yes" : "no"));
      }
    }
  }
}

// The arena of a forward pass is one group's: a thousand windows need no more than the windows of
// one group; a training step's grows with the batch.
TEST(ForwardGroups, ForwardOnlyArenaStopsGrowingWithTheBatch) {
  const ModelConfig c = load_model_config(model_fixture_dir("distilbert") + "/config.json");
  const int seq = 64;
  for (bool bf16 : {false, true}) {
    const int group = static_cast<int>(QaModel::default_group_rows(std::max(1, omp_get_max_threads()), bf16) / seq);
    const size_t one_group = QaModel::activation_bytes(c, bf16, group, seq, false);
    EXPECT_LT(QaModel::activation_bytes(c, bf16, group / 2, seq, false), one_group);
    EXPECT_EQ(QaModel::activation_bytes(c, bf16, 1000, seq, false), one_group) << "bf16 " << bf16;
    EXPECT_EQ(QaModel::activation_bytes(c, bf16, 100000, seq, false), one_group) << "bf16 " << bf16;
    EXPECT_GT(QaModel::activation_bytes(c, bf16, 1000, seq, true), 10 * one_group) << "bf16 " << bf16;
  }
}

// 768 rows per thread; f32 mode at least kGroupRows (docs/performance.md, "Evaluation groups of 768 rows a
// thread").
TEST(ForwardGroups, GroupsAre768RowsPerThread) {
  EXPECT_EQ(QaModel::default_group_rows(1, true), 768);
  EXPECT_EQ(QaModel::default_group_rows(2, true), 1536);
  EXPECT_EQ(QaModel::default_group_rows(64, true), 49152);
  EXPECT_EQ(QaModel::default_group_rows(2, false), QaModel::kGroupRows);
  EXPECT_EQ(QaModel::default_group_rows(8, false), 6144);
  EXPECT_EQ(QaModel::default_group_rows(64, false), 49152);
}

}  // namespace
}  // namespace cpuft
