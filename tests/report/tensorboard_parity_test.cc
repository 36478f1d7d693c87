// The event file cpuft writes is what TensorBoard reads: fixtures/report/cpuft_writer.tfevents was written
// by EventFileWriter from the log entries below (DISABLED_WriteFixture), and cpuft_writer_read.json is
// what TensorBoard's own EventAccumulator read from it (tools/read_tensorboard_events.py). The writer
// must still produce those bytes, and every record must decode to what TensorBoard read.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "common/temp_dir.h"
#include "cpuft/report/tensorboard.h"
#include "report/event_reader.h"

namespace fs = std::filesystem;

namespace {

const std::string kFixture = CPUFT_FIXTURES "/report/cpuft_writer.tfevents";

// log_history entries as a short run logs them, each written at its step; a zero, a negative, a huge
// number and a step beyond 32 bits check the encoding.
const nlohmann::json& entries() {
  static const nlohmann::json e = nlohmann::json::parse(R"([
    {"loss": 4.151218891143799, "grad_norm": 8.759686562273805, "learning_rate": 0.0009166666666666666,
     "epoch": 0.25, "step": 2},
    {"loss": 3.911888599395752, "grad_norm": 4.098328286059833, "learning_rate": 0.00075, "epoch": 0.5, "step": 4},
    {"eval_exact_match": 0.0, "eval_f1": 0.4464285714285714, "eval_runtime": 0.0073,
     "eval_samples_per_second": 4356.049, "eval_steps_per_second": 544.506, "epoch": 0.5, "step": 4},
    {"train_runtime": 0.7543, "train_samples_per_second": 127.274, "train_steps_per_second": 15.909,
     "total_flos": 2472615936.0, "train_loss": 3.638290001, "epoch": 0.75, "step": 6},
    {"test_f1": -2.5e-08, "epoch": 1e+30, "step": 8589934597}
  ])");
  return e;
}

// The event file of entries(), written into `dir`; returns its path.
std::string write_entries(const std::string& dir) {
  double t = 1700000000.0;
  cpuft::EventFileWriter w(dir, t);
  for (const nlohmann::json& entry : entries())
    w.scalars(cpuft::tensorboard_scalars(entry), entry.at("step").get<int64_t>(), t += 0.125);
  return w.path();
}

nlohmann::json read_json(const std::string& path) {
  std::ifstream f(path);
  return nlohmann::json::parse(f);
}

TEST(TensorBoardParity, DISABLED_WriteFixture) {
  const std::string dir = cpuft_test::temp_dir_until_exit();
  fs::copy_file(write_entries(dir), kFixture, fs::copy_options::overwrite_existing);
}

TEST(TensorBoardParity, TheWriterStillWritesTheFixtureBytes) {
  const std::string dir = cpuft_test::temp_dir_until_exit();
  EXPECT_TRUE(cpuft_test::slurp_file(write_entries(dir)) == cpuft_test::slurp_file(kFixture))
      << "the event encoding changed: regenerate the fixture and read it with TensorBoard again (tests/README.md)";
}

TEST(TensorBoardParity, EveryRecordIsWhatTensorBoardRead) {
  const nlohmann::json read = read_json(CPUFT_FIXTURES "/report/cpuft_writer_read.json");
  const auto events = cpuft_test::read_events(kFixture);
  ASSERT_FALSE(events.empty());
  // TensorBoard keeps the version number of "brain.Event:N".
  EXPECT_EQ(events[0].file_version(), "brain.Event:2");
  EXPECT_EQ(read.at("file_version"), 2.0);
  // Group ours by tag, in file order, as EventAccumulator's Scalars(tag) lists them.
  std::map<std::string, std::vector<nlohmann::json>> ours;
  for (size_t i = 1; i < events.size(); ++i) {
    ASSERT_EQ(events[i].summary().value_size(), 1);
    const auto& v = events[i].summary().value(0);
    ours[v.tag()].push_back({events[i].step(), events[i].wall_time(), static_cast<double>(v.simple_value())});
  }
  const nlohmann::json& theirs = read.at("scalars");
  ASSERT_EQ(ours.size(), theirs.size());
  for (const auto& [tag, points] : ours) {
    ASSERT_TRUE(theirs.contains(tag)) << tag;
    ASSERT_EQ(points.size(), theirs.at(tag).size()) << tag;
    for (size_t i = 0; i < points.size(); ++i) {
      EXPECT_EQ(points[i][0].get<int64_t>(), theirs.at(tag)[i][0].get<int64_t>()) << tag;
      EXPECT_EQ(points[i][1].get<double>(), theirs.at(tag)[i][1].get<double>()) << tag;
      EXPECT_EQ(points[i][2].get<double>(), theirs.at(tag)[i][2].get<double>()) << tag;  // float32, exactly
    }
  }
  // And those are the entries' values, as float32, at their steps.
  for (const nlohmann::json& entry : entries())
    for (const auto& [tag, value] : cpuft::tensorboard_scalars(entry)) {
      bool found = false;
      for (const nlohmann::json& p : theirs.at(tag))
        found |= p[0] == entry.at("step") && p[2].get<double>() == static_cast<double>(static_cast<float>(value));
      EXPECT_TRUE(found) << tag << " at step " << entry.at("step");
    }
}

}  // namespace
