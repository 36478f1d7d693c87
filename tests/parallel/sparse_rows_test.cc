// Row-sparse gradient exchange (parallel/sparse_rows.h) and its place in GradBuckets, in a world of one
// (where the sum is the identity, so pack + unpack must give back the table exactly); the same with
// several ranks against a blocking allreduce is the "sparse" scenario of tests/parallel/helper.
#include "cpuft/parallel/sparse_rows.h"

#include <gtest/gtest.h>

#include <random>

#include "cpuft/parallel/grad_buckets.h"
#include "cpuft/util/error.h"

namespace {

// A [rows, width] table whose noted rows hold values and every other row zeros.
std::vector<float> table_with_rows(const std::vector<int32_t>& ids, size_t rows, size_t width) {
  std::vector<float> t(rows * width, 0.0f);
  for (int32_t id : ids)
    for (size_t j = 0; j < width; ++j) t[id * width + j] = static_cast<float>(id) + 0.25f * static_cast<float>(j + 1);
  return t;
}

TEST(SparseRows, PackMovesTheUnionToTheFrontAndUnpackRestoresTheTable) {
  const size_t rows = 50, width = 3;
  const std::vector<int32_t> ids = {7, 3, 49, 7, 0, 22, 4, 3};  // repeats, first and last row
  const std::vector<float> want = table_with_rows(ids, rows, width);
  std::vector<float> t = want;
  cpuft::SparseRows sr(rows, width);
  sr.note(ids.data(), ids.size());
  ASSERT_EQ(sr.pack(t.data()), 6u);
  const int32_t order[] = {0, 3, 4, 7, 22, 49};
  for (size_t k = 0; k < 6; ++k)
    for (size_t j = 0; j < width; ++j) EXPECT_EQ(t[k * width + j], want[order[k] * width + j]) << "slot " << k;
  sr.unpack(t.data());
  EXPECT_EQ(t, want);
  sr.clear();
  EXPECT_EQ(sr.pack(t.data()), 0u);
}

TEST(SparseRows, RandomRowSetsRoundTrip) {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 20; ++trial) {
    const size_t rows = 1 + rng() % 300, width = 1 + rng() % 5;
    std::vector<int32_t> ids(rng() % (2 * rows));
    for (auto& id : ids) id = static_cast<int32_t>(rng() % rows);
    const std::vector<float> want = table_with_rows(ids, rows, width);
    std::vector<float> t = want;
    cpuft::SparseRows sr(rows, width);
    sr.note(ids.data(), ids.size());
    sr.pack(t.data());
    sr.unpack(t.data());
    EXPECT_EQ(t, want) << "trial " << trial;
  }
}

TEST(SparseRows, IdOutsideTheTableIsAnError) {
  cpuft::SparseRows sr(10, 2);
  const int32_t bad[] = {1, 10};
  try {
    sr.note(bad, 2);
    FAIL();
  } catch (const cpuft::Error& e) {
    EXPECT_NE(std::string(e.what()).find("token id 10 at position 1, expected 0..9"), std::string::npos) << e.what();
  }
}

// Arena: [0, 4) dense, [4, 4 + 6x2) a 6-row table, [16, 26) dense.
TEST(GradBuckets, SparseRegionIsLeftOutOfTheBucketsAndSummedByRows) {
  cpuft::Communicator comm;
  std::vector<float> g(26, 0.0f);
  for (size_t i = 0; i < 4; ++i) g[i] = 1.0f;
  for (size_t i = 16; i < 26; ++i) g[i] = 1.0f;
  const std::vector<int32_t> ids = {5, 2};
  for (int32_t id : ids) g[4 + 2 * id] = g[4 + 2 * id + 1] = 3.0f;
  cpuft::GradBuckets gb(comm, g.data(), g.size(), 4 * sizeof(float), cpuft::WireType::kF32, {}, {4, 6, 2});
  ASSERT_EQ(gb.buckets().size(), 4u);  // [22,26) [18,22) [16,18) [0,4)
  EXPECT_EQ(gb.buckets()[2].begin, 16u);
  EXPECT_EQ(gb.buckets()[2].end, 18u);
  EXPECT_EQ(gb.buckets()[3].begin, 0u);
  EXPECT_EQ(gb.buckets()[3].end, 4u);
  gb.begin_step();
  gb.note_rows(ids.data(), ids.size());
  gb.mark_ready(16, 26);
  gb.mark_ready(5, 16);  // the region is one element short: not started
  EXPECT_EQ(gb.started(), (std::vector<int>{0, 1, 2}));
  EXPECT_THROW(gb.note_rows(ids.data(), 1), cpuft::InternalError);  // too late: backward has begun
  gb.mark_ready(0, 5);
  EXPECT_EQ(gb.started(), (std::vector<int>{0, 1, 2, 3, 4}));  // 4: the region
  gb.wait_all();
  std::vector<float> want(26, 1.0f);
  for (size_t i = 4; i < 16; ++i) want[i] = 0.0f;
  for (int32_t id : ids) want[4 + 2 * id] = want[4 + 2 * id + 1] = 3.0f;
  EXPECT_EQ(g, want);
  EXPECT_EQ(gb.last_step().buckets, 5);
}

TEST(GradBuckets, SparseRegionMustBeFullyMarked) {
  cpuft::Communicator comm;
  std::vector<float> g(20);
  cpuft::GradBuckets gb(comm, g.data(), g.size(), 64, cpuft::WireType::kF32, {}, {0, 5, 2});
  gb.begin_step();
  gb.mark_ready(3, 20);
  try {
    gb.wait_all();
    FAIL();
  } catch (const cpuft::InternalError& e) {
    EXPECT_NE(std::string(e.what()).find("bucket [0, 10) has 7 of 10"), std::string::npos) << e.what();
  }
  EXPECT_THROW(cpuft::GradBuckets(comm, g.data(), g.size(), 64, cpuft::WireType::kF32, {}, {12, 5, 2}), cpuft::InternalError);
}

}  // namespace
