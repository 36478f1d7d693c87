// QaModel behaviour beyond parity: determinism, dropout seeding, the gradient-ready callback, the
// save/load round trip, bad checkpoints, and a short training run that must lower the loss.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/notices.h"
#include "common/temp_dir.h"
#include "cpuft/io/safetensors.h"
#include "cpuft/kernels/gemm_primitives.h"
#include "cpuft/model/activations.h"
#include "cpuft/model/optimizer.h"
#include "cpuft/model/qa_model.h"
#include "cpuft/tensor/bf16.h"
#include "cpuft/util/error.h"
#include "cpuft/util/op_profile.h"
#include "model/reference.h"

namespace fs = std::filesystem;

namespace cpuft {
namespace {

using test::model_fixture_dir;
using test::Reference;

ModelConfig tiny_config(const char* name, float dropout) {
  ModelConfig c = load_model_config(model_fixture_dir(name) + "/config.json");
  c.hidden_dropout = c.attention_dropout = dropout;
  if (c.family == ModelFamily::kDistilBert) c.qa_dropout = dropout;
  return c;
}

// An empty directory, removed with its contents when the test program exits (common/temp_dir.h).
fs::path fresh_dir(const std::string& name) { return cpuft_test::temp_dir_until_exit("cpuft_model_test_" + name); }

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {  // user and internal errors alike
    return e.what();
  }
  return "";
}

TEST(QaModel, EvalForwardIsDeterministic) {
  Reference ref(model_fixture_dir("bert_hd8") + "/reference.safetensors");
  QaModel m(tiny_config("bert_hd8", 0.1f), false, 7);
  m.reserve(ref.batch, ref.seq_len);
  const size_t n = static_cast<size_t>(ref.batch * ref.seq_len);
  std::vector<float> s1(n), e1(n), s2(n), e2(n);
  m.forward(ref.batch_view(), s1.data(), e1.data());
  m.forward(ref.batch_view(), s2.data(), e2.data());
  EXPECT_EQ(0, std::memcmp(s1.data(), s2.data(), n * sizeof(float)));
  EXPECT_EQ(0, std::memcmp(e1.data(), e2.data(), n * sizeof(float)));
}

// A forward-only arena (evaluation) gives bitwise the logits of a training arena, in both precisions,
// is smaller (two sets of layer tensors instead of one per layer, no backward scratch), and is refused
// for a training step with a one-line reason.
size_t n_rows(const Reference& ref) { return static_cast<size_t>(ref.batch) * static_cast<size_t>(ref.seq_len); }

TEST(QaModel, ForwardOnlyArenaGivesTheSameLogitsInLessMemory) {
  Reference ref(model_fixture_dir("bert_hd8") + "/reference.safetensors");
  ModelConfig c = tiny_config("bert_hd8", 0.1f);
  c.layers = 5;  // more layers than the two sets a forward-only arena alternates between
  for (bool bf16 : {false, true}) {
    QaModel trainable(c, bf16, 7), eval_only(c, bf16, 7);
    trainable.reserve(ref.batch, ref.seq_len);
    const size_t bytes = eval_only.reserve(ref.batch, ref.seq_len, /*training=*/false);
    EXPECT_EQ(bytes, QaModel::activation_bytes(c, bf16, ref.batch, ref.seq_len, false));
    EXPECT_LT(2 * bytes, QaModel::activation_bytes(c, bf16, ref.batch, ref.seq_len, true)) << "bf16 " << bf16;
    // Layers share one set of tensors; only the output alternates: the size does not grow with depth.
    ModelConfig deeper = c;
    deeper.layers = 12;
    EXPECT_EQ(bytes, QaModel::activation_bytes(deeper, bf16, ref.batch, ref.seq_len, false)) << "bf16 " << bf16;
    ModelConfig one = c, two = c;
    one.layers = 1;
    two.layers = 2;
    // A forward-only arena's tensors have the rows of the products: N rounded up to kProductRowBlock.
    const size_t rows = (n_rows(ref) + kProductRowBlock - 1) / kProductRowBlock * kProductRowBlock;
    const size_t h2_bytes = (rows * static_cast<size_t>(c.hidden) + 15) / 16 * 16 * sizeof(float);
    EXPECT_EQ(QaModel::activation_bytes(two, bf16, ref.batch, ref.seq_len, false),
              QaModel::activation_bytes(one, bf16, ref.batch, ref.seq_len, false) + h2_bytes)
        << "a second layer adds only its output buffer; bf16 " << bf16;
    const size_t n = static_cast<size_t>(ref.batch * ref.seq_len);
    std::vector<float> s1(n), e1(n), s2(n), e2(n);
    trainable.forward(ref.batch_view(), s1.data(), e1.data());
    eval_only.forward(ref.batch_view(), s2.data(), e2.data());
    EXPECT_EQ(0, std::memcmp(s1.data(), s2.data(), n * sizeof(float))) << "bf16 " << bf16;
    EXPECT_EQ(0, std::memcmp(e1.data(), e2.data(), n * sizeof(float))) << "bf16 " << bf16;
    const std::string err = error_of([&] { eval_only.forward_backward(ref.batch_view(), 1, 1.f); });
    EXPECT_NE(err.find("for training"), std::string::npos) << err;
    EXPECT_NE(err.find("call reserve() with the largest batch first"), std::string::npos) << err;
    // Reserving for training as well grows the arena to the larger of the two.
    EXPECT_EQ(eval_only.reserve(ref.batch, ref.seq_len), QaModel::activation_bytes(c, bf16, ref.batch, ref.seq_len));
    EXPECT_TRUE(std::isfinite(eval_only.forward_backward(ref.batch_view(), 1, 1.f)));
  }
}

// The trainer's last batch may be short: a smaller batch in the same arena gives the same logits
// for its rows as the full batch (rows are independent; only GEMM blocking may differ).
TEST(QaModel, ShorterBatchInTheReservedArenaGivesTheSameRows) {
  Reference ref(model_fixture_dir("distilbert") + "/reference.safetensors");
  QaModel m(tiny_config("distilbert", 0.f), false, 8);
  m.reserve(ref.batch, ref.seq_len);
  const size_t n = static_cast<size_t>(ref.batch * ref.seq_len);
  std::vector<float> s(n), e(n), s2(n), e2(n);
  m.forward(ref.batch_view(), s.data(), e.data());
  QaModel::Batch two = ref.batch_view();
  two.batch = 2;
  m.forward(two, s2.data(), e2.data());
  for (size_t i = 0; i < static_cast<size_t>(2 * ref.seq_len); ++i) {
    EXPECT_NEAR(s2[i], s[i], 1e-5f * (1 + std::abs(s[i])));
    EXPECT_NEAR(e2[i], e[i], 1e-5f * (1 + std::abs(e[i])));
  }
}

// Under bf16 the logits are bf16 values, as torch autocast returns them (ties matter in n-best).
TEST(QaModel, Bf16LogitsAreBf16Values) {
  Reference ref(model_fixture_dir("bert_hd8") + "/reference.safetensors");
  QaModel m(tiny_config("bert_hd8", 0.f), true, 8);
  m.reserve(ref.batch, ref.seq_len);
  const size_t n = static_cast<size_t>(ref.batch * ref.seq_len);
  std::vector<float> s(n), e(n);
  m.forward(ref.batch_view(), s.data(), e.data());
  for (size_t i = 0; i < n; ++i) {
    uint32_t bits_s, bits_e;
    std::memcpy(&bits_s, &s[i], 4);
    std::memcpy(&bits_e, &e[i], 4);
    EXPECT_EQ(bits_s & 0xffffu, 0u) << i;
    EXPECT_EQ(bits_e & 0xffffu, 0u) << i;
  }
}

// Under bf16 the output projection and the FFN's second product leave bf16 values, as autocast's products
// do: with that product's weight zero, a bias that bf16 cannot hold gives the logits, loss and gradients
// of its bf16 rounding (an f32 output would carry the bias's low bits into the residual sum). With and
// without the hidden dropout that reads the product's output.
TEST(QaModel, Bf16OutputProjectionAndFfnOutputAreBf16Values) {
  for (const char* name : {"distilbert", "bert_hd8"}) {
    for (float dropout : {0.f, 0.1f}) {
      for (bool ffn : {false, true}) {
        const std::string what = std::string(name) + (ffn ? " ffn.lin2" : " out_lin") + " dropout " +
                                 std::to_string(dropout);
        Reference ref(model_fixture_dir(name) + "/reference.safetensors");
        const size_t n = static_cast<size_t>(ref.batch * ref.seq_len);
        // The bias as given (bits below bf16's) or rounded to bf16 first.
        auto run = [&](bool rounded, std::vector<float>& logits, std::vector<float>& grads) {
          QaModel m(tiny_config(name, dropout), true, 8);
          const LinearOffsets l = ffn ? m.table().layer(0).ff2 : m.table().layer(0).o;
          const int64_t out = m.config().hidden, in = ffn ? m.config().intermediate : m.config().hidden;
          std::fill(m.params() + l.w, m.params() + l.w + out * in, 0.f);
          for (int64_t j = 0; j < out; ++j) {
            const float b = bf16_to_f32(f32_to_bf16(0.05f * static_cast<float>(j % 9 - 4) + 0.3f)) * (1.f + 0x1p-12f);
            m.params()[l.b + j] = rounded ? bf16_to_f32(f32_to_bf16(b)) : b;
          }
          m.refresh_bf16_weights();
          m.reserve(ref.batch, ref.seq_len);
          logits.resize(2 * n);
          m.forward(ref.batch_view(), logits.data(), logits.data() + n);
          m.zero_grads();
          const float loss = m.forward_backward(ref.batch_view(), 3);
          grads.assign(m.grads(), m.grads() + m.num_params());
          return loss;
        };
        std::vector<float> logits_fine, grads_fine, logits_rounded, grads_rounded;
        const float loss_fine = run(false, logits_fine, grads_fine);
        const float loss_rounded = run(true, logits_rounded, grads_rounded);
        EXPECT_EQ(logits_fine, logits_rounded) << what;
        EXPECT_EQ(loss_fine, loss_rounded) << what;
        EXPECT_EQ(grads_fine, grads_rounded) << what;
      }
    }
  }
}

TEST(QaModel, DropoutSameSeedSameLossOtherSeedOtherLoss) {
  for (const char* name : {"distilbert", "bert_hd8"}) {
    Reference ref(model_fixture_dir(name) + "/reference.safetensors");
    QaModel m(tiny_config(name, 0.1f), false, 7);
    m.reserve(ref.batch, ref.seq_len);
    const float a = m.forward_backward(ref.batch_view(), 1);
    std::vector<float> ga(m.grads(), m.grads() + m.num_params());
    m.zero_grads();
    const float b = m.forward_backward(ref.batch_view(), 1);
    const float c = m.forward_backward(ref.batch_view(), 2);
    EXPECT_EQ(a, b) << name;
    EXPECT_NE(a, c) << name;
    // Gradients of seed 1 alone equal the first run's, bit for bit.
    m.zero_grads();
    m.forward_backward(ref.batch_view(), 1);
    EXPECT_EQ(0, std::memcmp(ga.data(), m.grads(), ga.size() * sizeof(float))) << name;
  }
}

// With dropout on, backward must use the masks forward drew: central differences of the loss at
// a fixed seed agree with the analytic gradient on the largest-gradient element of several tensors.
TEST(QaModel, DropoutGradientMatchesFiniteDifferences) {
  for (const char* name : {"distilbert", "bert_hd16"}) {
    Reference ref(model_fixture_dir(name) + "/reference.safetensors");
    QaModel m(tiny_config(name, 0.2f), false, 11);
    m.reserve(ref.batch, ref.seq_len);
    m.forward_backward(ref.batch_view(), 5);
    std::vector<float> grad(m.grads(), m.grads() + m.num_params());
    for (const ParamEntry& e : m.table().entries()) {
      if (e.name.find("layer.0.") == std::string::npos && e.name.find("qa_outputs.weight") == std::string::npos &&
          e.name.find("word_embeddings") == std::string::npos)
        continue;
      size_t best = e.offset;
      for (size_t i = e.offset; i < e.offset + e.numel; ++i)
        if (std::abs(grad[i]) > std::abs(grad[best])) best = i;
      if (std::abs(grad[best]) < 1e-3f) continue;
      const float h = 1e-2f, saved = m.params()[best];
      m.params()[best] = saved + h;
      const double up = m.forward_backward(ref.batch_view(), 5);
      m.params()[best] = saved - h;
      const double down = m.forward_backward(ref.batch_view(), 5);
      m.params()[best] = saved;
      const double fd = (up - down) / (2 * h);
      EXPECT_NEAR(fd, grad[best], 3e-2 * std::abs(grad[best]) + 1e-3) << name << " " << e.name;
    }
  }
}

// Backward announces each gradient range as soon as it is final (the allreduce of its bucket may start
// then): the qa head, four parts per layer (ff2+ln2, ff1, o+ln1, q+k+v) last layer first, then the
// embeddings; together they cover the arena once, and no announced gradient changes afterwards.
TEST(QaModel, GradReadyCallbackCoversTheArenaLastLayerFirst) {
  Reference ref(model_fixture_dir("distilbert") + "/reference.safetensors");
  QaModel m(tiny_config("distilbert", 0.f), false, 3);
  m.reserve(ref.batch, ref.seq_len);
  std::vector<std::pair<size_t, size_t>> ranges;
  std::vector<std::vector<float>> at_ready;
  m.set_grad_ready_callback([&](size_t b, size_t e) {
    ranges.emplace_back(b, e);
    at_ready.emplace_back(m.grads() + b, m.grads() + e);
  });
  m.forward_backward(ref.batch_view(), 0);
  ASSERT_EQ(ranges.size(), static_cast<size_t>(4 * m.config().layers + 2));
  EXPECT_EQ(ranges.front().second, m.num_params());
  EXPECT_EQ(ranges.back().first, 0u);
  for (size_t i = 1; i < ranges.size(); ++i) EXPECT_EQ(ranges[i].second, ranges[i - 1].first);
  for (size_t i = 0; i < ranges.size(); ++i) {
    const std::vector<float> now(m.grads() + ranges[i].first, m.grads() + ranges[i].second);
    EXPECT_EQ(now, at_ready[i]) << "gradients [" << ranges[i].first << ", " << ranges[i].second
                                << ") changed after they were announced final";
  }
}

TEST(QaModel, SaveThenLoadIsBitwiseIdentical) {
  for (const char* name : {"distilbert", "bert_hd8"}) {
    QaModel m(tiny_config(name, 0.1f), false, 99);
    const fs::path dir = fresh_dir(name);
    m.save_pretrained(dir.string());
    cpuft_test::Notices notices;
    QaModel back = QaModel::from_pretrained(dir.string(), false, 0, notices.sink());
    EXPECT_EQ(notices.str(), "");
    ASSERT_EQ(back.num_params(), m.num_params());
    EXPECT_EQ(0, std::memcmp(back.params(), m.params(), m.num_params() * sizeof(float))) << name;
    fs::remove_all(dir);
  }
}

// The loader writes the parameters into storage it leaves unfilled, then the bf16 copies the products read
// (and, for training, the backward's copies): a bf16 model loaded back computes exactly what the model it
// was saved from computes, in evaluation and in a training step.
TEST(QaModel, Bf16ModelLoadedBackComputesTheSame) {
  for (const char* name : {"distilbert", "bert_hd8"}) {
    Reference ref(model_fixture_dir(name) + "/reference.safetensors");
    QaModel m(tiny_config(name, 0.f), true, 5);
    const fs::path dir = fresh_dir(std::string("bf16_") + name);
    m.save_pretrained(dir.string());
    cpuft_test::Notices notices;
    QaModel back = QaModel::from_pretrained(dir.string(), true, 0, notices.sink());
    const size_t n = static_cast<size_t>(ref.batch * ref.seq_len);
    std::vector<float> s(n), e(n), s_back(n), e_back(n);
    m.reserve(ref.batch, ref.seq_len, /*training=*/false);
    back.reserve(ref.batch, ref.seq_len, /*training=*/false);
    m.forward(ref.batch_view(), s.data(), e.data());
    back.forward(ref.batch_view(), s_back.data(), e_back.data());
    EXPECT_EQ(s, s_back) << name;
    EXPECT_EQ(e, e_back) << name;
    m.reserve(ref.batch, ref.seq_len);
    m.refresh_bf16_weights();  // m's copies written again from its parameters; back's as reserve wrote them
    back.reserve(ref.batch, ref.seq_len);
    EXPECT_EQ(m.forward_backward(ref.batch_view(), 0), back.forward_backward(ref.batch_view(), 0)) << name;
    EXPECT_EQ(0, std::memcmp(back.grads(), m.grads(), m.num_params() * sizeof(float))) << name;
  }
}

// Writes a copy of the distilbert fixture with `edit` applied to its tensor list.
fs::path edited_checkpoint(const std::string& tag, const std::function<void(std::vector<StTensorOut>&)>& edit,
                           std::vector<std::vector<float>>& storage) {
  const std::string src = model_fixture_dir("distilbert");
  SafetensorsReader reader(src + "/model.safetensors");
  std::vector<StTensorOut> out;
  storage.reserve(reader.tensors().size() + 4);
  for (const StTensorInfo& t : reader.tensors()) {
    storage.push_back(reader.read_f32(t.name));
    StTensorOut o;
    o.name = t.name;
    o.shape = t.shape;
    o.f32 = storage.back().data();
    out.push_back(o);
  }
  edit(out);
  const fs::path dir = fresh_dir(tag);
  fs::copy_file(src + "/config.json", dir / "config.json");
  write_safetensors((dir / "model.safetensors").string(), out);
  return dir;
}

TEST(QaModel, MissingTensorIsAOneLineErrorNamingIt) {
  std::vector<std::vector<float>> storage;
  const fs::path dir = edited_checkpoint("missing", [](std::vector<StTensorOut>& t) {
    t.erase(std::remove_if(t.begin(), t.end(), [](const StTensorOut& o) {
      return o.name == "distilbert.transformer.layer.1.ffn.lin1.weight";
    }), t.end());
  }, storage);
  cpuft_test::Notices notices;
  const std::string err = error_of([&] { QaModel::from_pretrained(dir.string(), false, 0, notices.sink()); });
  EXPECT_NE(err.find("distilbert.transformer.layer.1.ffn.lin1.weight"), std::string::npos) << err;
  EXPECT_NE(err.find("missing"), std::string::npos) << err;
  EXPECT_NE(err.find("[64, 32]"), std::string::npos) << err;
  EXPECT_EQ(err.find('\n'), std::string::npos) << err;
  fs::remove_all(dir);
}

TEST(QaModel, WrongShapeIsAOneLineErrorWithBothShapes) {
  std::vector<std::vector<float>> storage;
  const fs::path dir = edited_checkpoint("shape", [](std::vector<StTensorOut>& t) {
    for (StTensorOut& o : t)
      if (o.name == "distilbert.transformer.layer.0.attention.q_lin.weight") o.shape = {16, 64};
  }, storage);
  cpuft_test::Notices notices;
  const std::string err = error_of([&] { QaModel::from_pretrained(dir.string(), false, 0, notices.sink()); });
  EXPECT_NE(err.find("model.safetensors"), std::string::npos) << err;
  EXPECT_NE(err.find("distilbert.transformer.layer.0.attention.q_lin.weight"), std::string::npos) << err;
  EXPECT_NE(err.find("[16, 64]"), std::string::npos) << err;
  EXPECT_NE(err.find("[32, 32]"), std::string::npos) << err;
  EXPECT_EQ(err.find('\n'), std::string::npos) << err;
  fs::remove_all(dir);
}

TEST(QaModel, BareEncoderCheckpointGetsAFreshHeadAndDropsExtras) {
  std::vector<std::vector<float>> storage;
  std::vector<float> pooler(32 * 32, 0.5f);
  const fs::path dir = edited_checkpoint("bare", [&](std::vector<StTensorOut>& t) {
    t.erase(std::remove_if(t.begin(), t.end(), [](const StTensorOut& o) { return o.name.rfind("qa_outputs", 0) == 0; }),
            t.end());
    for (StTensorOut& o : t) o.name = o.name.substr(std::string("distilbert.").size());  // no prefix
    StTensorOut extra;
    extra.name = "vocab_transform.weight";
    extra.shape = {32, 32};
    extra.f32 = pooler.data();
    t.push_back(extra);
  }, storage);
  cpuft_test::Notices notices;
  QaModel m = QaModel::from_pretrained(dir.string(), false, 5, notices.sink());
  const std::string text = notices.str();
  EXPECT_NE(text.find("ignored 1 "), std::string::npos) << text;
  EXPECT_NE(text.find("qa_outputs"), std::string::npos) << text;
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 2) << text;
  const ParamEntry* w = m.table().find("qa_outputs.weight");
  double sq = 0;
  for (size_t i = 0; i < w->numel; ++i) sq += m.params()[w->offset + i] * m.params()[w->offset + i];
  EXPECT_NEAR(std::sqrt(sq / static_cast<double>(w->numel)), m.config().initializer_range, 0.1);
  // The encoder weights are the file's.
  SafetensorsReader orig(model_fixture_dir("distilbert") + "/model.safetensors");
  const ParamEntry* q = m.table().find("distilbert.transformer.layer.0.attention.q_lin.weight");
  std::vector<float> want = orig.read_f32(q->name);
  EXPECT_EQ(0, std::memcmp(want.data(), m.params() + q->offset, want.size() * sizeof(float)));
  fs::remove_all(dir);
}

TEST(QaModel, BatchWithAnOutOfRangeTokenIsRejected) {
  Reference ref(model_fixture_dir("bert_hd8") + "/reference.safetensors");
  QaModel m(tiny_config("bert_hd8", 0.f), false, 1);
  m.reserve(ref.batch, ref.seq_len);
  ref.input_ids[5] = 100;
  std::vector<float> s(static_cast<size_t>(ref.batch * ref.seq_len)), e(s.size());
  const std::string err = error_of([&] { m.forward(ref.batch_view(), s.data(), e.data()); });
  EXPECT_NE(err.find("input_ids[0][5] = 100"), std::string::npos) << err;
  // Far more rows than the arena reserved for training holds (a forward pass needs less per row).
  std::vector<int32_t> more_ids(static_cast<size_t>(10 * ref.batch * ref.seq_len), 1);
  QaModel::Batch big;
  big.input_ids = more_ids.data();
  big.batch = 10 * ref.batch;
  big.seq_len = ref.seq_len;
  EXPECT_NE(error_of([&] { m.forward(big, s.data(), e.data()); }).find("reserve"), std::string::npos);
}

// optimizer_step (the norm, then one update that clips and zeroes as it reads the gradients) gives what
// clip_grad_norm, AdamW::step and zero_grads give one after the other: the same norm, weights and
// moments, bit for bit, and every gradient 0 for the next step; f32 and bf16, clipping or not.
TEST(QaModel, OptimizerStepIsClipUpdateAndZeroing) {
  Reference ref(model_fixture_dir("bert_hd8") + "/reference.safetensors");
  for (bool bf16 : {false, true})
    for (double max_norm : {0.0, 1e-3, 1e6}) {
      QaModel a(tiny_config("bert_hd8", 0.f), bf16, 5), b(tiny_config("bert_hd8", 0.f), bf16, 5);
      a.reserve(ref.batch, ref.seq_len);
      b.reserve(ref.batch, ref.seq_len);
      AdamWConfig config;
      config.weight_decay = 0.01;
      AdamW oa(a, config), ob(b, config);
      for (int step = 0; step < 2; ++step) {
        a.zero_grads();
        a.forward_backward(ref.batch_view(), 1);
        const double na = clip_grad_norm(a, max_norm);
        oa.step(a, 1e-2);
        a.zero_grads();
        if (step == 0) b.zero_grads();
        b.forward_backward(ref.batch_view(), 1);
        const double nb = optimizer_step(b, ob, max_norm, 1e-2);
        ASSERT_EQ(na, nb) << "bf16=" << bf16 << " max_norm=" << max_norm;
        for (size_t i = 0; i < a.num_params(); ++i) {
          ASSERT_EQ(a.params()[i], b.params()[i]) << i;
          ASSERT_EQ(b.grads()[i], 0.0f) << i;
        }
        ASSERT_EQ(oa.exp_avg(), ob.exp_avg());
        ASSERT_EQ(oa.exp_avg_sq(), ob.exp_avg_sq());
      }
    }
}

// In bf16 mode the optimizer step leaves every matrix-product weight's bf16 copy equal to its
// updated f32 master rounded to nearest even; tensors without a copy (embeddings, norms, biases)
// report none. The copies in oneDNN's layouts (where bf16 products are native) follow: the step's
// loss and gradients are those of the weights re-derived from the f32 masters.
TEST(QaModel, OptimizerStepRefreshesTheBf16WeightCopies) {
  Reference ref(model_fixture_dir("bert_hd8") + "/reference.safetensors");
  QaModel m(tiny_config("bert_hd8", 0.f), true, 5);
  m.reserve(ref.batch, ref.seq_len);
  AdamW opt(m, AdamWConfig{});
  for (int step = 0; step < 2; ++step) {
    m.zero_grads();
    m.forward_backward(ref.batch_view(), 1);
    opt.step(m, 1e-2);
  }
  m.zero_grads();
  const float loss = m.forward_backward(ref.batch_view(), 1);
  const std::vector<float> grads(m.grads(), m.grads() + m.num_params());
  m.refresh_bf16_weights();
  m.zero_grads();
  EXPECT_EQ(m.forward_backward(ref.batch_view(), 1), loss);
  EXPECT_EQ(std::vector<float>(m.grads(), m.grads() + m.num_params()), grads);
  // Row-major copies are kept only where bf16 products are emulated (oneDNN's layout otherwise).
  const bool row_major = blocked_weight_bytes(64, 64, WeightUse::kForward) == 0;
  int copies = 0;
  for (const ParamEntry& e : m.table().entries()) {
    const uint16_t* copy = m.bf16_copy(e.offset);
    ASSERT_EQ(copy != nullptr, e.gemm_weight && row_major) << e.name;
    if (!copy) continue;
    ++copies;
    for (size_t i = 0; i < e.numel; ++i)
      ASSERT_EQ(copy[i], f32_to_bf16(m.params()[e.offset + i])) << e.name << "[" << i << "]";
  }
  EXPECT_EQ(copies > 0, row_major);
  QaModel f32(tiny_config("bert_hd8", 0.f), false, 5);
  EXPECT_EQ(f32.bf16_copy(f32.table().entries().front().offset), nullptr);
}

// A bf16 model whose weights are kept in oneDNN's blocked layouts (refreshed by the optimizer weight by
// weight, a layer's q, k, v as one copy) trains and evaluates with the bits of one that keeps row-major
// copies. On a CPU whose bf16 products are not native the blocked copies are made in a stand-in layout
// and read back by the products (gemm_detail::set_pair_blocks_everywhere): the model's side of the
// blocked path runs on every CPU.
TEST(QaModel, BlockedWeightCopiesTrainAndEvaluateAsRowMajorOnes) {
  for (const char* name : {"distilbert", "bert_hd8"}) {
    Reference ref(model_fixture_dir(name) + "/reference.safetensors");
    struct Run {
      std::vector<float> losses, params, grads, logits;
      bool row_major_copies = false;
      int64_t copy_refreshes = 0;  // in the profile's weight_copies row
    };
    auto run = [&](bool blocked_everywhere) {
      gemm_detail::set_pair_blocks_everywhere(blocked_everywhere);
      Run r;
      QaModel m(tiny_config(name, 0.1f), true, 5);
      m.reserve(ref.batch, ref.seq_len);
      AdamWConfig config;
      config.weight_decay = 0.01;
      AdamW opt(m, config);
      op_profile_reset();
      op_profile_enable(true);
      for (int step = 0; step < 3; ++step) {
        m.zero_grads();
        r.losses.push_back(m.forward_backward(ref.batch_view(), 1));
        r.grads.insert(r.grads.end(), m.grads(), m.grads() + m.num_params());
        optimizer_step(m, opt, 1.0, 1e-2);
      }
      op_profile_enable(false);
      r.copy_refreshes = op_profile_totals().calls[static_cast<int>(Op::kWeightCopies)];
      r.params.assign(m.params(), m.params() + m.num_params());
      r.logits.resize(static_cast<size_t>(2 * ref.batch * ref.seq_len));
      m.forward(ref.batch_view(), r.logits.data(), r.logits.data() + ref.batch * ref.seq_len);
      for (const ParamEntry& e : m.table().entries()) r.row_major_copies |= m.bf16_copy(e.offset) != nullptr;
      gemm_detail::set_pair_blocks_everywhere(false);
      return r;
    };
    const Run plain = run(false), blocked = run(true);
    EXPECT_FALSE(blocked.row_major_copies) << name << ": the model kept row-major copies, not blocked ones";
    EXPECT_EQ(blocked.losses, plain.losses) << name;
    EXPECT_EQ(blocked.grads, plain.grads) << name;
    EXPECT_EQ(blocked.params, plain.params) << name;
    EXPECT_EQ(blocked.logits, plain.logits) << name;
    // Each step refreshes each layer's four product weights and the head's (`cpuft bench --profile`'s
    // weight_copies row times them); none where the copies are row-major (AdamW writes those).
    QaModel shape(tiny_config(name, 0.1f), false, 5);
    EXPECT_EQ(blocked.copy_refreshes, 3 * (4 * shape.config().layers + 1)) << name;
    if (plain.row_major_copies) {
      EXPECT_EQ(plain.copy_refreshes, 0) << name;
    }
  }
}

// Backs `make demo` until the trainer exists: 30 AdamW steps on one synthetic batch must fit it.
TEST(QaModel, ThirtyAdamWStepsLowerTheLoss) {
  for (bool bf16 : {false, true}) {
    QaModel m(tiny_config("distilbert", 0.1f), bf16, 2024);
    const int B = 4, T = 16;
    m.reserve(B, T);
    std::vector<int32_t> ids(B * T), start = {1, 4, 7, 2}, end = {3, 9, 7, 5};
    for (int i = 0; i < B * T; ++i) ids[static_cast<size_t>(i)] = 1 + (i * 37) % 99;
    std::vector<int8_t> mask(B * T, 1);
    QaModel::Batch b;
    b.input_ids = ids.data();
    b.attention_mask = mask.data();
    b.start_positions = start.data();
    b.end_positions = end.data();
    b.batch = B;
    b.seq_len = T;
    AdamW opt(m, AdamWConfig{});
    float first = 0, last = 0;
    for (int step = 0; step < 30; ++step) {
      m.zero_grads();
      last = m.forward_backward(b, static_cast<uint64_t>(step));
      if (step == 0) first = last;
      clip_grad_norm(m, 1.0);
      opt.step(m, 3e-3);
    }
    std::printf("bf16=%d loss %.4f -> %.4f after 30 steps\n", bf16, first, last);
    EXPECT_LT(last, 0.5f * first) << "bf16=" << bf16;
  }
}

TEST(QaModel, ReportsPeakActivationBytes) {
  ModelConfig base;  // distilbert-base-uncased defaults
  const size_t f32 = QaModel::activation_bytes(base, false, 8, 384);
  const size_t bf16 = QaModel::activation_bytes(base, true, 8, 384);
  std::printf("DistilBERT-base B=8 T=384 activation arena: f32 %.1f MiB, bf16 %.1f MiB\n", f32 / 1048576.0,
              bf16 / 1048576.0);
  // bf16 mode keeps the linear layers' saved operands and q, k, v as 2-byte bf16, so its arena is the
  // smaller one, though it keeps each layer's bf16 GELU output (f32 mode recomputes its one shared
  // GELU buffer in backward) beside its bf16 pre-activation.
  EXPECT_LT(bf16, f32);
  EXPECT_LT(f32, size_t{4} << 30);
  // What one more layer keeps for backward (floats; every size here is a multiple of 16): f32
  // q, k, v, ctx, res1, h1, res2, h2 (N H each), ff1 (N I) and the LayerNorm statistics (4 N); bf16
  // res1, res2, then q, k, v, the bf16 input, ctx and h1 (half a float each), ff1 and the GELU output
  // (half a float each) and the statistics. No attention probabilities (B heads T^2,
  // recomputed by backward): only the attention softmax's row statistics (2 floats a row of B heads T)
  // and the attention dropout's keep bits (B heads T^2 / 8 bytes).
  const size_t N = 8 * 384, H = 768, I = 3072, keep = 8 * 12 * 384 * 384 / 8, rows = 2 * 8 * 12 * 384;
  ModelConfig two = base, three = base;
  two.layers = 2;
  three.layers = 3;
  auto per_layer = [&](bool bf16) {
    return QaModel::activation_bytes(three, bf16, 8, 384) - QaModel::activation_bytes(two, bf16, 8, 384);
  };
  EXPECT_EQ(per_layer(false), (8 * N * H + N * I + 4 * N + rows) * sizeof(float) + keep);
  EXPECT_EQ(per_layer(true), (2 * N * H + 6 * N * H / 2 + 2 * N * I / 2 + 4 * N + rows) * sizeof(float) + keep);
  // Without attention dropout there is no mask to keep.
  two.attention_dropout = three.attention_dropout = 0.f;
  EXPECT_EQ(per_layer(false), (8 * N * H + N * I + 4 * N + rows) * sizeof(float));
}

}  // namespace
}  // namespace cpuft
