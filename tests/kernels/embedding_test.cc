// Embedding: vector vs reference (bit-exact), padding_idx, token types, positions, bad ids.
#include "cpuft/kernels/embedding.h"

#include "kernel_test_util.h"

namespace cpuft::test {
namespace {

struct EmbeddingCase {
  int B = 2, T = 3, C = 17, vocab = 11, types = 2;
  std::vector<int32_t> ids, positions;
  std::vector<int8_t> type_ids;
  std::vector<float> wte, wpe, wtt;
  EmbeddingCase(int B_, int T_, int C_) : B(B_), T(T_), C(C_) {
    std::mt19937 gen(B * 1000 + T * 10 + C);
    for (int i = 0; i < B * T; ++i) {
      ids.push_back(static_cast<int32_t>(gen() % vocab));
      type_ids.push_back(static_cast<int8_t>(gen() % types));
      positions.push_back(i % T);
    }
    ids[0] = 0;  // the pad id appears at least once
    wte = randn(size_t(vocab) * C, 1);
    wpe = randn(size_t(T) * C, 2);
    wtt = randn(size_t(types) * C, 3);
  }
};

class Embedding : public IsaTest {};

TEST_P(Embedding, VectorMatchesReferenceBitForBit) {
  for (int C : tail_widths()) {
    for (int rows = 1; rows <= 5; ++rows) {
      EmbeddingCase e(1, rows, C);
      for (bool with_types : {false, true}) {
        const float* wtt = with_types ? e.wtt.data() : nullptr;
        const int8_t* tt = with_types ? e.type_ids.data() : nullptr;
        std::vector<float> a(size_t(rows) * C), b(a.size());
        ref().embedding_fwd(a.data(), e.ids.data(), tt, e.positions.data(), e.wte.data(), e.wpe.data(), wtt,
                            rows, C);
        vec().embedding_fwd(b.data(), e.ids.data(), tt, e.positions.data(), e.wte.data(), e.wpe.data(), wtt,
                            rows, C);
        EXPECT_EQ(a, b) << "C=" << C << " rows=" << rows;
        std::vector<float> dout = randn(a.size(), 7);
        std::vector<float> gw1(e.wte.size(), 0.5f), gp1(e.wpe.size(), 0.5f),
            gt1(e.wtt.size(), 0.5f);
        std::vector<float> gw2 = gw1, gp2 = gp1, gt2 = gt1;
        ref().embedding_bwd(gw1.data(), gp1.data(), with_types ? gt1.data() : nullptr,
                            dout.data(), e.ids.data(), tt, e.positions.data(), rows, C, 0);
        vec().embedding_bwd(gw2.data(), gp2.data(), with_types ? gt2.data() : nullptr,
                            dout.data(), e.ids.data(), tt, e.positions.data(), rows, C, 0);
        EXPECT_EQ(gw1, gw2);
        EXPECT_EQ(gp1, gp2);
        EXPECT_EQ(gt1, gt2);
      }
    }
  }
}

CPUFT_INSTANTIATE_ISA_TEST(Embedding);

TEST(EmbeddingRef, SumsWordTypeAndPositionInBertOrder) {
  EmbeddingCase e(2, 3, 5);
  std::vector<float> out(size_t(2) * 3 * 5);
  embedding_fwd(out.data(), e.ids.data(), e.type_ids.data(), e.positions.data(), e.wte.data(), e.wpe.data(),
                e.wtt.data(), 6, 5, e.vocab, e.types, 3);
  for (int n = 0; n < 6; ++n) {
    for (int c = 0; c < 5; ++c) {
      float want = (e.wte[e.ids[n] * 5 + c] + e.wtt[e.type_ids[n] * 5 + c]) + e.wpe[(n % 3) * 5 + c];
      EXPECT_EQ(out[n * 5 + c], want);
    }
  }
}

TEST(EmbeddingRef, NullTypeIdsUseTypeZero) {
  EmbeddingCase e(1, 2, 3);
  std::vector<float> out(6);
  embedding_fwd(out.data(), e.ids.data(), nullptr, e.positions.data(), e.wte.data(), e.wpe.data(),
                e.wtt.data(), 2, 3, e.vocab, e.types, 2);
  EXPECT_EQ(out[4], (e.wte[e.ids[1] * 3 + 1] + e.wtt[1]) + e.wpe[3 + 1]);
}

TEST(EmbeddingRef, PadRowGetsNoGradientButPositionsDo) {
  const int T = 4, C = 3;
  std::vector<int32_t> ids = {5, 0, 0, 2};  // two padding tokens (pad id 0)
  std::vector<int32_t> positions = {0, 1, 2, 3};
  std::vector<float> dwte(size_t(6) * C, 0.0f), dwpe(size_t(T) * C, 0.0f);
  std::vector<float> dout(size_t(T) * C, 1.0f);
  embedding_bwd(dwte.data(), dwpe.data(), nullptr, dout.data(), ids.data(), nullptr, positions.data(), T, C, 0);
  for (int c = 0; c < C; ++c) {
    EXPECT_EQ(dwte[0 * C + c], 0.0f);  // padding_idx
    EXPECT_EQ(dwte[5 * C + c], 1.0f);
    EXPECT_EQ(dwte[2 * C + c], 1.0f);
    for (int t = 0; t < T; ++t) EXPECT_EQ(dwpe[t * C + c], 1.0f);
  }
}

TEST(EmbeddingRef, RepeatedIdsAccumulateAndGradientsAdd) {
  std::vector<int32_t> ids = {3, 3, 3}, positions = {0, 1, 2};
  std::vector<int8_t> types = {1, 1, 0};
  std::vector<float> dwte(4, 10.0f), dwpe(3, 0.0f), dwtt(2, 0.0f), dout = {1.0f, 2.0f, 4.0f};
  embedding_bwd(dwte.data(), dwpe.data(), dwtt.data(), dout.data(), ids.data(), types.data(), positions.data(), 3,
                1, 0);
  EXPECT_EQ(dwte[3], 17.0f);  // += onto the existing 10
  EXPECT_EQ(dwtt[1], 3.0f);
  EXPECT_EQ(dwtt[0], 4.0f);
}

TEST(EmbeddingRef, RejectsOutOfRangeIdsBeforeWriting) {
  EmbeddingCase e(1, 3, 2);
  e.ids[2] = e.vocab;
  std::vector<float> out(6, -1.0f);
  try {
    embedding_fwd(out.data(), e.ids.data(), nullptr, e.positions.data(), e.wte.data(), e.wpe.data(), nullptr, 3,
                  2, e.vocab, 0, 3);
    FAIL() << "no error";
  } catch (const Error& err) {
    EXPECT_NE(std::string(err.what()).find("input_ids[2] = 11"), std::string::npos) << err.what();
  }
  EXPECT_EQ(out, std::vector<float>(6, -1.0f));
  e.ids[2] = -1;
  EXPECT_THROW(embedding_fwd(out.data(), e.ids.data(), nullptr, e.positions.data(), e.wte.data(), e.wpe.data(),
                             nullptr, 3, 2, e.vocab, 0, 3),
               Error);
}

TEST(EmbeddingRef, RejectsOutOfRangeTypeIds) {
  EmbeddingCase e(1, 3, 2);
  e.type_ids[1] = 2;
  std::vector<float> out(6);
  try {
    embedding_fwd(out.data(), e.ids.data(), e.type_ids.data(), e.positions.data(), e.wte.data(), e.wpe.data(),
                  e.wtt.data(), 3, 2, e.vocab, e.types, 3);
    FAIL() << "no error";
  } catch (const Error& err) {
    EXPECT_NE(std::string(err.what()).find("token_type_ids[1] = 2"), std::string::npos)
        << err.what();
  }
}

TEST(EmbeddingRef, PositionsComeFromTheirArray) {
  // Two packed windows of lengths 2 and 1: positions 0, 1, 0.
  EmbeddingCase e(1, 3, 4);
  e.positions = {0, 1, 0};
  std::vector<float> out(12);
  embedding_fwd(out.data(), e.ids.data(), nullptr, e.positions.data(), e.wte.data(), e.wpe.data(), nullptr, 3, 4,
                e.vocab, 0, 3);
  for (int c = 0; c < 4; ++c) EXPECT_EQ(out[2 * 4 + c], e.wte[e.ids[2] * 4 + c] + e.wpe[c]);
  std::vector<float> dwte(e.wte.size(), 0.0f), dwpe(e.wpe.size(), 0.0f), dout(12, 1.0f);
  embedding_bwd(dwte.data(), dwpe.data(), nullptr, dout.data(), e.ids.data(), nullptr, e.positions.data(), 3, 4, -1);
  EXPECT_EQ(dwpe[0], 2.0f);  // rows 0 and 2 are both at position 0
  EXPECT_EQ(dwpe[4], 1.0f);
  EXPECT_EQ(dwpe[8], 0.0f);
}

TEST(EmbeddingRef, RejectsOutOfRangePositions) {
  EmbeddingCase e(1, 3, 2);
  e.positions[1] = 3;
  std::vector<float> out(6);
  try {
    embedding_fwd(out.data(), e.ids.data(), nullptr, e.positions.data(), e.wte.data(), e.wpe.data(), nullptr, 3, 2,
                  e.vocab, 0, 3);
    FAIL() << "no error";
  } catch (const Error& err) {
    EXPECT_NE(std::string(err.what()).find("position of token 1 = 3"), std::string::npos) << err.what();
  }
}

}  // namespace
}  // namespace cpuft::test
