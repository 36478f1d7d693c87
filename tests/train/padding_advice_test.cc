#include "cpuft/train/padding_advice.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

// A window of `real` tokens stored in `stored` positions (the rest padding, mask 0).
cpuft::Feature window(int real, int stored) {
  cpuft::Feature f;
  f.input_ids.assign(static_cast<size_t>(stored), 0);
  f.attention_mask.assign(static_cast<size_t>(stored), 0);
  for (int t = 0; t < real; ++t) {
    f.input_ids[static_cast<size_t>(t)] = 100 + t;
    f.attention_mask[static_cast<size_t>(t)] = 1;
  }
  return f;
}

// n windows whose real lengths cycle through `lengths`, each stored at `stored` (0: its own length).
std::vector<cpuft::Feature> windows(int n, const std::vector<int>& lengths, int stored) {
  std::vector<cpuft::Feature> f;
  for (int i = 0; i < n; ++i) {
    const int real = lengths[static_cast<size_t>(i) % lengths.size()];
    f.push_back(window(real, stored ? stored : real));
  }
  return f;
}

cpuft::SamplerOptions sampler_for(const std::vector<cpuft::Feature>& f, int64_t batch) {
  cpuft::SamplerOptions o;
  o.num_features = static_cast<int64_t>(f.size());
  o.per_device_batch = batch;
  o.seed = 42;
  return o;
}

}  // namespace

TEST(PaddingAdvice, EpochPositionsPadEachBatchToItsLongestWindow) {
  const std::vector<cpuft::Feature> f = {window(2, 8), window(8, 8), window(3, 8), window(5, 8), window(1, 8)};
  const std::vector<int64_t> order = {0, 1, 2, 3, 4};
  // As stored: every batch 8 wide, (2 + 2 + 1) windows; real tokens 2 + 8 + 3 + 5 + 1.
  const cpuft::EpochPositions stored = cpuft::epoch_positions(f, order, 2, true);
  EXPECT_EQ(stored.computed, 40);
  EXPECT_EQ(stored.real, 19);
  EXPECT_DOUBLE_EQ(stored.padding_share(), 1.0 - 19.0 / 40.0);
  // At their own lengths: batches {2, 8}, {3, 5}, {1} padded to 8, 5 and 1.
  const cpuft::EpochPositions own = cpuft::epoch_positions(f, order, 2, false);
  EXPECT_EQ(own.computed, 16 + 10 + 1);
  EXPECT_EQ(own.real, 19);
  // Another order, other batches.
  EXPECT_EQ(cpuft::epoch_positions(f, {1, 3, 2, 0, 4}, 2, false).computed, 16 + 6 + 1);
}

TEST(PaddingAdvice, WindowsPaddedToTheMaximumAreToldTheTwoFlags) {
  // Windows of 20 .. 128 real tokens stored at 128, batches of 8: most positions are padding.
  const std::vector<cpuft::Feature> f = windows(400, {20, 128, 35, 60, 90, 24, 40, 110}, 128);
  const std::string advice = cpuft::padding_advice(f, sampler_for(f, 8), 8, 8, true, false, "window");
  EXPECT_NE(advice.find("% of the positions an epoch computes are padding (every window padded to "
                        "--max_seq_length 128); --pad_to_max_length false --group_by_length would compute "),
            std::string::npos)
      << advice;
  // Grouping alone keeps every window at 128: only the storage flag is left to name.
  const std::string grouped = cpuft::padding_advice(f, sampler_for(f, 8), 8, 8, true, true, "window");
  EXPECT_NE(grouped.find("); --pad_to_max_length false would compute "), std::string::npos) << grouped;
}

TEST(PaddingAdvice, BatchesPaddedToTheirLongestAreToldToGroup) {
  const std::vector<cpuft::Feature> f = windows(400, {20, 128, 35, 60, 90, 24, 40, 110}, 0);
  const std::string advice = cpuft::padding_advice(f, sampler_for(f, 8), 8, 8, false, false, "sequence");
  EXPECT_NE(advice.find("(each batch padded to its longest sequence); --group_by_length would compute "),
            std::string::npos)
      << advice;
  EXPECT_EQ(cpuft::padding_advice(f, sampler_for(f, 8), 8, 8, false, true, "sequence"), "");  // nothing left to advise
}

TEST(PaddingAdvice, SilentWhereLittleIsPadding) {
  // Full windows: no padding under any flags.
  const std::vector<cpuft::Feature> full = windows(100, {64}, 64);
  EXPECT_EQ(cpuft::padding_advice(full, sampler_for(full, 8), 8, 8, true, false, "window"), "");
  // A tenth of the positions padding: under the 25% line.
  const std::vector<cpuft::Feature> light = windows(100, {100, 100, 100, 60}, 100);
  EXPECT_EQ(cpuft::padding_advice(light, sampler_for(light, 8), 8, 8, true, false, "window"), "");
}
