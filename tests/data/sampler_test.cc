#include "cpuft/data/sampler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "cpuft/util/error.h"
#include "cpuft/util/read_file.h"

namespace cpuft {
namespace {

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

TEST(Sampler, AccelerateShardsMatchReference) {
  const auto cases = fixture()["accelerate_shards"];
  ASSERT_GT(cases.size(), 10u);
  for (const auto& c : cases) {
    const int world = c["world"];
    for (int r = 0; r < world; ++r) {
      SamplerOptions o;
      o.num_features = c["n"];
      o.per_device_batch = c["batch"];
      o.seed = c["seed"];
      o.world_size = world;
      o.rank = r;
      o.rule = ShardRule::kAccelerate;
      const Sampler s(o);
      const auto want = c["ranks"][r].get<std::vector<std::vector<int64_t>>>();
      ASSERT_EQ(s.steps_per_epoch(), static_cast<int64_t>(want.size()));
      for (size_t step = 0; step < want.size(); ++step) {
        EXPECT_EQ(s.batch(c["epoch"], static_cast<int64_t>(step)), want[step])
            << "n=" << o.num_features << " b=" << o.per_device_batch << " R=" << world << " r=" << r;
      }
    }
  }
}

// The cpuft rule: R ranks x batch b see, step by step, exactly the global batches of 1 rank x R*b.
TEST(Sampler, GlobalBatchesDoNotDependOnWorldSize) {
  for (int64_t n : {1, 7, 64, 100, 1001}) {
    for (int world : {1, 2, 3, 8}) {
      SamplerOptions single{n, 4 * world, 42, 1, 0, ShardRule::kGlobalBatch};
      const Sampler one(single);
      for (int64_t epoch : {0, 2}) {
        for (int64_t step = 0; step < one.steps_per_epoch(); ++step) {
          std::vector<int64_t> joined;
          for (int r = 0; r < world; ++r) {
            const Sampler shard(SamplerOptions{n, 4, 42, world, r, ShardRule::kGlobalBatch});
            ASSERT_EQ(shard.steps_per_epoch(), one.steps_per_epoch());
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
  const Sampler s(SamplerOptions{10, 3, 42, 1, 0, ShardRule::kGlobalBatch});
  EXPECT_EQ(s.epoch_order(1), torch_randperm(10, 43));
  EXPECT_EQ(s.steps_per_epoch(), 4);
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
  const SamplerOptions o{1000, 16, 7, 2, 1, ShardRule::kGlobalBatch};
  const Sampler run(o);
  std::vector<std::vector<int64_t>> straight;
  for (int64_t e = 0; e < 2; ++e)
    for (int64_t s = 0; s < run.steps_per_epoch(); ++s) straight.push_back(run.batch(e, s));
  const Sampler resumed(o);  // a fresh process resuming at epoch 1, step 5
  const int64_t steps = run.steps_per_epoch();
  for (int64_t s = 5; s < steps; ++s) EXPECT_EQ(resumed.batch(1, s), straight[steps + s]);
}

TEST(Sampler, BadOptionsThrow) {
  EXPECT_THROW(Sampler(SamplerOptions{0, 8, 42, 1, 0, ShardRule::kGlobalBatch}), Error);
  EXPECT_THROW(Sampler(SamplerOptions{10, 0, 42, 1, 0, ShardRule::kGlobalBatch}), Error);
  EXPECT_THROW(Sampler(SamplerOptions{10, 8, 42, 0, 0, ShardRule::kGlobalBatch}), Error);
  EXPECT_THROW(Sampler(SamplerOptions{10, 8, 42, 2, 2, ShardRule::kGlobalBatch}), Error);
  const Sampler s(SamplerOptions{10, 8, 42, 1, 0, ShardRule::kGlobalBatch});
  EXPECT_THROW(s.batch(0, 2), Error);
  EXPECT_THROW(s.batch(-1, 0), Error);
}

}  // namespace
}  // namespace cpuft
