#include "cpuft/report/tensorboard.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <regex>

#include "common/temp_dir.h"
#include "cpuft/util/atomic_file.h"
#include "cpuft/util/error.h"
#include "report/event_reader.h"

namespace fs = std::filesystem;

namespace {

std::string host() {
  char buf[256] = {};
  gethostname(buf, sizeof buf - 1);
  return buf;
}

std::vector<std::string> files_in(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(TensorBoard, DefaultLoggingDirIsTheTrainers) {
  // transformers' default_logdir(): runs/ + datetime.now().strftime("%b%d_%H-%M-%S") + "_" + hostname.
  const std::regex stamp("out/runs/[A-Z][a-z]{2}[0-9]{2}_[0-9]{2}-[0-9]{2}-[0-9]{2}_" + host());
  EXPECT_TRUE(std::regex_match(cpuft::default_logging_dir("out"), stamp)) << cpuft::default_logging_dir("out");
  EXPECT_TRUE(std::regex_match(cpuft::default_logging_dir("out/"), stamp)) << cpuft::default_logging_dir("out/");
}

TEST(TensorBoard, ScalarsAreTheCallbacksTags) {
  // TensorBoardCallback.on_log: rewrite_logs, then every int or float; the step is the event's own.
  using Scalars = std::vector<std::pair<std::string, double>>;
  EXPECT_EQ(cpuft::tensorboard_scalars({{"loss", 1.5}, {"grad_norm", 2}, {"learning_rate", 5e-5}, {"epoch", 0.25},
                                        {"step", 3}}),
            (Scalars{{"train/epoch", 0.25}, {"train/grad_norm", 2}, {"train/learning_rate", 5e-5}, {"train/loss", 1.5}}));
  EXPECT_EQ(cpuft::tensorboard_scalars({{"eval_f1", 50.0}, {"eval_exact_match", 40.0}, {"eval_runtime", 1.25},
                                        {"epoch", 1.0}, {"step", 4}}),
            (Scalars{{"train/epoch", 1.0}, {"eval/exact_match", 40.0}, {"eval/f1", 50.0}, {"eval/runtime", 1.25}}));
  EXPECT_EQ(cpuft::tensorboard_scalars({{"test_f1", 1.0}, {"note", "text"}, {"flag", true}}),
            (Scalars{{"test/f1", 1.0}}));
}

TEST(TensorBoard, WritesTheFileVersionThenOneEventPerScalar) {
  const std::string dir = cpuft_test::temp_dir_until_exit() + "/runs/x";  // made with its parents
  cpuft::EventFileWriter w(dir, 1700000000.5);
  const std::string name = fs::path(w.path()).filename().string();
  // TensorBoard's EventFileWriter: "events.out.tfevents.%010d.%s.%s.%s" % (time, host, pid, counter).
  EXPECT_TRUE(std::regex_match(name, std::regex("events\\.out\\.tfevents\\.1700000000\\." + host() + "\\." +
                                                std::to_string(getpid()) + "\\.[0-9]+")))
      << name;
  w.scalars({{"train/loss", 2.25}, {"eval/exact_match", 0.0}}, 7, 1700000001.0);
  w.scalars({{"train/train_runtime", 12.5}}, 8589934597, 1700000002.0);  // a step beyond 32 bits

  // Written through: read while the writer is still open.
  const auto events = cpuft_test::read_events(w.path());
  ASSERT_EQ(events.size(), 4u);
  EXPECT_EQ(events[0].file_version(), "brain.Event:2");
  EXPECT_EQ(events[0].wall_time(), 1700000000.5);
  EXPECT_EQ(events[0].step(), 0);
  EXPECT_FALSE(events[0].has_summary());
  struct Want {
    const char* tag;
    float value;
    int64_t step;
    double wall_time;
  };
  const Want want[] = {{"train/loss", 2.25f, 7, 1700000001.0},
                       {"eval/exact_match", 0.0f, 7, 1700000001.0},
                       {"train/train_runtime", 12.5f, 8589934597, 1700000002.0}};
  for (size_t i = 0; i < 3; ++i) {
    const auto& e = events[i + 1];
    ASSERT_EQ(e.summary().value_size(), 1);
    const auto& v = e.summary().value(0);
    EXPECT_EQ(v.tag(), want[i].tag);
    EXPECT_TRUE(v.has_simple_value()) << "a 0 must be written too: readers take a missing value for none";
    EXPECT_EQ(v.simple_value(), want[i].value);
    EXPECT_EQ(e.step(), want[i].step);
    EXPECT_EQ(e.wall_time(), want[i].wall_time);
  }
}

TEST(TensorBoard, EachWriterMakesItsOwnFile) {
  const std::string dir = cpuft_test::temp_dir_until_exit();
  cpuft::EventFileWriter a(dir, 1700000000), b(dir, 1700000000);
  EXPECT_NE(a.path(), b.path());
  EXPECT_EQ(files_in(dir).size(), 2u);
}

TEST(TensorBoard, ADirectoryThatCannotBeMadeIsAnError) {
  const std::string dir = cpuft_test::temp_dir_until_exit();
  cpuft::write_file_atomic(dir + "/file", "x");
  try {
    cpuft::EventFileWriter w(dir + "/file/runs", 1700000000);
    FAIL() << "no error";
  } catch (const cpuft::Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("--logging_dir: cannot create " + dir + "/file/runs: ", 0), 0u) << e.what();
  }
}

}  // namespace
