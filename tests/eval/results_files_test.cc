#include "cpuft/eval/results_files.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/temp_dir.h"
#include "cpuft/util/atomic_file.h"
#include "cpuft/util/error.h"
#include "cpuft/util/read_file.h"

// The bytes of the *_results.json files themselves are checked against transformers' in
// tests/train/trainer_state_test.cc (SpeedMetricsRoundLikeTransformers), with the train metrics.

TEST(ResultsFiles, ZeroRuntimeGivesOnlyRuntime) {
  auto m = cpuft::speed_metrics("eval", {0, 10, 2});
  EXPECT_EQ(m.size(), 1u);
  EXPECT_EQ(m["eval_runtime"].get<double>(), 0.0);
}

// A nested value in an existing all_results.json was merged and re-written level by level; now it is
// refused on read and nothing is written.
TEST(ResultsFiles, HostileAllResultsIsRefusedBeforeAnyWrite) {
  std::string dir = cpuft_test::temp_dir_until_exit();
  const std::string deep = "{\"x\": " + std::string(100000, '[') + std::string(100000, ']') + "}";
  cpuft::write_file_atomic(dir + "/all_results.json", deep);
  try {
    cpuft::save_metrics(dir, "eval", {{"eval_f1", 1.0}});
    FAIL();
  } catch (const cpuft::Error& e) {
    EXPECT_EQ(std::string(e.what()), dir + "/all_results.json: nested deeper than 64 levels at byte 70 (line 1, "
                                           "column 70); remove it or choose another --output_dir");
  }
  EXPECT_EQ(cpuft::read_file(dir + "/all_results.json", 1 << 20), deep);
  ::mkfifo((dir + "/fifo").c_str(), 0600);
  ::rename((dir + "/fifo").c_str(), (dir + "/all_results.json").c_str());
  EXPECT_THROW(cpuft::save_metrics(dir, "eval", {{"eval_f1", 1.0}}), cpuft::Error);  // not read, not blocked
}

TEST(ResultsFiles, CorruptAllResultsIsReported) {
  std::string dir = cpuft_test::temp_dir_until_exit();
  cpuft::write_file_atomic(dir + "/all_results.json", "[1, 2");
  try {
    cpuft::save_metrics(dir, "eval", {{"eval_f1", 1.0}});
    FAIL();
  } catch (const cpuft::Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind(dir + "/all_results.json: not valid JSON at byte 6", 0), 0u) << e.what();
  }
}
