// TensorBoard event files, written as the Hugging Face Trainer's TensorBoardCallback writes them
// (--report_to tensorboard): under --logging_dir, by default output_dir/runs/<%b%d_%H-%M-%S>_<host>
// (transformers' default_logdir), one file events.out.tfevents.<time>.<host>.<pid>.<n> (the name
// TensorBoard's EventFileWriter gives), whose first record is the file_version event "brain.Event:2"
// and each further record one scalar: Event{wall_time, step, summary{value{tag, simple_value}}}. Each
// log_history entry becomes the Trainer's tags (rewrite_logs: eval_f1 -> eval/f1, loss -> train/loss)
// at its step. Records are TFRecord-framed (report/tfrecord.h) and each is written to the file as it
// comes (one write(2), no buffering), so a running job can be watched. The callback's text summaries
// of the arguments and the model config are not written.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace cpuft {

// output_dir/runs/<local time as %b%d_%H-%M-%S>_<host name>, e.g. out/runs/Dec01_19-33-14_node7.
std::string default_logging_dir(const std::string& output_dir);

// The scalars the TensorBoardCallback writes for one log_history entry: every number but "step",
// tagged "eval/NAME" for "eval_NAME", "test/NAME" for "test_NAME", else "train/NAME" (in key order).
std::vector<std::pair<std::string, double>> tensorboard_scalars(const nlohmann::json& entry);

// One event file. Not copyable: it owns the file descriptor.
class EventFileWriter {
 public:
  // Creates `dir` (and its parents) and a new event file in it (never an existing one: O_EXCL, no
  // symlink followed), then writes the file_version event at `wall_time` (seconds since the epoch).
  // Throws cpuft::Error naming the path when either cannot be made.
  EventFileWriter(const std::string& dir, double wall_time);
  ~EventFileWriter();
  EventFileWriter(const EventFileWriter&) = delete;
  EventFileWriter& operator=(const EventFileWriter&) = delete;

  const std::string& path() const { return path_; }
  // One event per value, each written through to the file; throws cpuft::Error naming the file when a
  // write fails.
  void scalars(const std::vector<std::pair<std::string, double>>& values, int64_t step, double wall_time);

 private:
  void write_record(const std::string& event_bytes);

  std::string path_;
  int fd_ = -1;
};

// Seconds since the epoch, as time.time() gives them.
double wall_time_now();

}  // namespace cpuft
