#include "cpuft/data/sampler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "cpuft/util/error.h"
#include "cpuft/util/read_file.h"

namespace cpuft {
namespace {

// SamplerOptions without --group_by_length (every field named, so no initializer is left out).
SamplerOptions plain(int64_t n, int64_t batch, uint64_t seed, int world, int rank) {
  SamplerOptions o;
  o.num_features = n;
  o.per_device_batch = batch;
  o.seed = seed;
  o.world_size = world;
  o.rank = rank;
  return o;
}

nlohmann::json fixture() {
  return nlohmann::json::parse(read_file(std::string(CPUFT_FIXTURES) + "/data/randperm_cases.json"));
}

TEST(Sampler, RandpermSpecVectors) {
  EXPECT_EQ(torch_randperm(10, 42), (std::vector<int64_t>{2, 6, 1, 8, 4, 5, 0, 9, 3, 7}));
  const auto big = torch_randperm(88524, 42);
  EXPECT_EQ(std::vector<int64_t>(big.begin(), big.begin() + 8),
            (std::vector<int64_t>{67938, 66210, 32584, 9517, 13710, 73570, 36280, 88128}));
  const auto s43 = torch_randperm(1000, 43);
  EXPECT_EQ(std::vector<int64_t>(s43.begin(), s43.begin() + 8),
            (std::vector<int64_t>{588, 148, 223, 575, 689, 935, 932, 343}));
  EXPECT_TRUE(torch_randperm(0, 1).empty());
  EXPECT_THROW(torch_randperm(-1, 1), Error);
}

TEST(Sampler, RandpermMatchesTorch) {
  const auto cases = fixture()["randperm"];
  ASSERT_GT(cases.size(), 5u);
  for (const auto& c : cases) {
    const int64_t n = c["n"];
    const auto perm = torch_randperm(n, c["seed"].get<uint64_t>());
    const auto head = c["head"].get<std::vector<int64_t>>();
    EXPECT_EQ(std::vector<int64_t>(perm.begin(), perm.begin() + static_cast<int64_t>(head.size())), head) << n;
    unsigned __int128 weighted = 0;
    for (int64_t i = 0; i < n; ++i) weighted += static_cast<unsigned __int128>(i) * perm[i];
    EXPECT_EQ(static_cast<uint64_t>(weighted % (uint64_t{1} << 61)), c["weighted_sum_mod_2_61"].get<uint64_t>()) << n;
  }
}

// The cpuft rule: R ranks x batch b see, step by step, exactly the global batches of 1 rank x R*b.
TEST(Sampler, GlobalBatchesDoNotDependOnWorldSize) {
  for (int64_t n : {1, 7, 64, 100, 1001}) {
    for (int world : {1, 2, 3, 8}) {
      SamplerOptions single = plain(n, 4 * world, 42, 1, 0);
      const Sampler one(single);
      for (int64_t epoch : {0, 2}) {
        for (int64_t step = 0; step < one.batches_per_epoch(); ++step) {
          std::vector<int64_t> joined;
          for (int r = 0; r < world; ++r) {
            const Sampler shard(plain(n, 4, 42, world, r));
            ASSERT_EQ(shard.batches_per_epoch(), one.batches_per_epoch());
            const auto part = shard.batch(epoch, step);
            if ((step + 1) * 4 * world <= n) {
              EXPECT_EQ(part.size(), 4u);
            }
            joined.insert(joined.end(), part.begin(), part.end());
          }
          EXPECT_EQ(joined, one.batch(epoch, step)) << "n=" << n << " R=" << world << " step=" << step;
        }
      }
    }
  }
}

TEST(Sampler, EpochsUseSeedPlusEpochAndCoverEveryFeature) {
  const Sampler s(plain(10, 3, 42, 1, 0));
  EXPECT_EQ(s.epoch_order(1), torch_randperm(10, 43));
  EXPECT_EQ(s.batches_per_epoch(), 4);
  EXPECT_EQ(s.batch(0, 0), (std::vector<int64_t>{2, 6, 1}));
  EXPECT_EQ(s.batch(0, 3), (std::vector<int64_t>{7}));  // short last batch
  std::vector<int64_t> all;
  for (int64_t step = 0; step < 4; ++step) {
    const auto b = s.batch(1, step);
    all.insert(all.end(), b.begin(), b.end());
  }
  std::sort(all.begin(), all.end());
  for (int64_t i = 0; i < 10; ++i) EXPECT_EQ(all[i], i);
}

TEST(Sampler, ResumeGivesTheSameBatches) {
  const SamplerOptions o = plain(1000, 16, 7, 2, 1);
  const Sampler run(o);
  std::vector<std::vector<int64_t>> straight;
  for (int64_t e = 0; e < 2; ++e)
    for (int64_t s = 0; s < run.batches_per_epoch(); ++s) straight.push_back(run.batch(e, s));
  const Sampler resumed(o);  // a fresh process resuming at epoch 1, step 5
  const int64_t steps = run.batches_per_epoch();
  for (int64_t s = 5; s < steps; ++s) EXPECT_EQ(resumed.batch(1, s), straight[steps + s]);
}

// --group_by_length: transformers' get_length_grouped_indices on the same permutation (fixture made by
// tools/make_eval_reference.py: the function itself, called with a generator seeded as cpuft seeds
// each epoch).
TEST(Sampler, LengthGroupedOrderMatchesTransformers) {
  const auto cases = fixture()["length_grouped"];
  ASSERT_GE(cases.size(), 5u);
  for (const auto& c : cases) {
    const auto lengths = c["lengths"].get<std::vector<int32_t>>();
    const int64_t n = static_cast<int64_t>(lengths.size());
    const auto want = c["order"].get<std::vector<int64_t>>();
    EXPECT_EQ(length_grouped_order(torch_randperm(n, c["seed"].get<uint64_t>()), lengths, c["batch_size"]), want)
        << "n=" << n << " batch=" << c["batch_size"];
    SamplerOptions o = plain(n, c["batch_size"].get<int64_t>(), c["seed"].get<uint64_t>() - 1, 1, 0);
    o.lengths = lengths;
    o.group_batch = c["batch_size"];
    EXPECT_EQ(Sampler(o).epoch_order(1), want);  // epoch 1 draws with seed + 1
  }
}

TEST(Sampler, LengthGroupedBatchesAreSortedAndLongestFirst) {
  const int64_t n = 1000, batch = 8;
  std::vector<int32_t> lengths(n);
  for (int64_t i = 0; i < n; ++i) lengths[i] = static_cast<int32_t>(20 + (i * 7919) % 365);
  SamplerOptions o = plain(n, batch, 42, 1, 0);
  o.lengths = lengths;
  o.group_batch = batch;
  const Sampler s(o);
  const std::vector<int64_t> order = s.epoch_order(0);
  std::vector<int64_t> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(sorted[i], i);  // a permutation
  EXPECT_EQ(lengths[order[0]], *std::max_element(lengths.begin(), lengths.end()));
  // Inside each megabatch of 8 x min(50, 1000 / 32) = 248 windows (past its first one, which may have
  // been swapped for the longest), lengths do not increase.
  for (int64_t at = 0; at < n; at += 248)
    for (int64_t i = at + 2; i < std::min(n, at + 248); ++i)
      EXPECT_GE(lengths[order[i - 1]], lengths[order[i]]) << i;
  // Several ranks still see the global batches of one process.
  for (int r = 0; r < 2; ++r) {
    SamplerOptions shard = o;
    shard.per_device_batch = batch / 2;
    shard.world_size = 2;
    shard.rank = r;
    const Sampler part(shard);
    EXPECT_EQ(part.global_batch(0, 3), s.batch(0, 3));
  }
}

TEST(Sampler, BadOptionsThrow) {
  EXPECT_THROW(Sampler(plain(0, 8, 42, 1, 0)), Error);
  EXPECT_THROW(Sampler(plain(10, 0, 42, 1, 0)), Error);
  EXPECT_THROW(Sampler(plain(10, 8, 42, 0, 0)), Error);
  EXPECT_THROW(Sampler(plain(10, 8, 42, 2, 2)), Error);
  SamplerOptions lengths = plain(10, 8, 42, 1, 0);
  lengths.lengths = {1, 2, 3};  // not one per feature
  lengths.group_batch = 8;
  EXPECT_THROW(Sampler{lengths}, Error);
  const Sampler s(plain(10, 8, 42, 1, 0));
  EXPECT_THROW(s.batch(0, 2), Error);
  EXPECT_THROW(s.batch(-1, 0), Error);
}

}  // namespace
}  // namespace cpuft
