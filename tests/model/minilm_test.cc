// Real weights: all-MiniLM-L6-v2 (BERT architecture, head_dim 32, no prefix in its checkpoint, a
// pooler to drop) as a QA model with the reference's seeded qa_outputs, on one real SQuAD window of
// 384 tokens. The model is the demo's (scripts/fetch-demo-model.sh; CPUFT_MINILM_DIR overrides);
// the test skips when it is absent, and fails under CI. Fixture: tools/make_model_reference.py --minilm.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "common/notices.h"
#include "common/shared_data.h"
#include "cpuft/model/qa_model.h"
#include "model/reference.h"

namespace cpuft {
namespace {

// Where scripts/fetch-demo-model.sh puts the model (CPUFT_MINILM_DIR overrides).
std::string minilm_dir() {
  if (const char* env = std::getenv("CPUFT_MINILM_DIR")) return env;
  const char* cache = std::getenv("XDG_CACHE_HOME");
  const char* home = std::getenv("HOME");
  const std::string base = cache && *cache ? cache : std::string(home ? home : "") + "/.cache";
  return base + "/cpuft/all-MiniLM-L6-v2";
}

TEST(MiniLM, RealWeightsLogitsMatchTransformers) {
  const std::string dir = minilm_dir();
  if (!std::filesystem::exists(dir + "/model.safetensors")) {
    // .ci/run fetches the model first: under CI a missing model is a failure, not a skip.
    if (cpuft_test::running_in_ci()) FAIL() << "no MiniLM model at " << dir << " (scripts/fetch-demo-model.sh)";
    GTEST_SKIP() << "no MiniLM model at " << dir << " (scripts/fetch-demo-model.sh fetches it)";
  }
  test::Reference ref(test::model_fixture_dir("minilm") + "/reference.safetensors");
  cpuft_test::Notices notices;
  QaModel m = QaModel::from_pretrained(dir, false, 0, notices.sink());
  EXPECT_NE(notices.str().find("qa_outputs"), std::string::npos) << notices.str();
  for (const char* name : {"qa_outputs.weight", "qa_outputs.bias"}) {
    const ParamEntry* e = m.table().find(name);
    const std::vector<float> v = ref.f32(name);
    ASSERT_EQ(v.size(), e->numel);
    std::copy(v.begin(), v.end(), m.params() + e->offset);
  }
  m.reserve(ref.batch, ref.seq_len);
  std::vector<float> s(static_cast<size_t>(ref.batch * ref.seq_len)), e(s.size());
  m.forward(ref.batch_view(), s.data(), e.data());
  const double ds = test::real_positions_diff(ref, s.data(), "start_logits");
  const double de = test::real_positions_diff(ref, e.data(), "end_logits");
  std::printf("MiniLM-L6 384-token logits rel diff start %.2e end %.2e\n", ds, de);
  EXPECT_LT(ds, 2e-5);
  EXPECT_LT(de, 2e-5);
}

}  // namespace
}  // namespace cpuft
