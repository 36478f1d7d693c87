#include "cpuft/report/tensorboard.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>

#include "cpuft/report/event.pb.h"
#include "cpuft/report/tfrecord.h"
#include "cpuft/util/error.h"

namespace cpuft {

namespace {

std::string host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "localhost";
  return buf;
}

// The <n> of the file name: TensorBoard's process-wide counter of event files, from 0.
std::atomic<int> next_file_number{0};

}  // namespace

double wall_time_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string default_logging_dir(const std::string& output_dir) {
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  char stamp[64];
  std::strftime(stamp, sizeof stamp, "%b%d_%H-%M-%S", &local);
  const std::string sep = !output_dir.empty() && output_dir.back() == '/' ? "" : "/";
  return output_dir + sep + "runs/" + stamp + "_" + host_name();
}

std::vector<std::pair<std::string, double>> tensorboard_scalars(const nlohmann::json& entry) {
  std::vector<std::pair<std::string, double>> out;
  for (auto it = entry.begin(); it != entry.end(); ++it) {
    const std::string& k = it.key();
    if (k == "step" || !it->is_number()) continue;
    std::string tag;
    if (k.compare(0, 5, "eval_") == 0) tag = "eval/" + k.substr(5);
    else if (k.compare(0, 5, "test_") == 0) tag = "test/" + k.substr(5);
    else tag = "train/" + k;
    out.emplace_back(tag, it->get<double>());
  }
  return out;
}

EventFileWriter::EventFileWriter(const std::string& dir, double wall_time) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir, ec))
    fail("--logging_dir: cannot create ", dir, ": ", ec ? ec.message() : "not a directory");
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%010lld", static_cast<long long>(wall_time));  // Python's "%010d"
  path_ = str_cat(dir, "/events.out.tfevents.", seconds, ".", host_name(), ".", ::getpid(), ".", next_file_number++);
  fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd_ < 0) fail(path_, ": cannot create the TensorBoard event file: ", std::strerror(errno));
  tensorboard::Event first;
  first.set_wall_time(wall_time);
  first.set_file_version("brain.Event:2");
  first.mutable_source_metadata()->set_writer("cpuft");
  write_record(first.SerializeAsString());
}

EventFileWriter::~EventFileWriter() {
  if (fd_ >= 0) ::close(fd_);
}

void EventFileWriter::scalars(const std::vector<std::pair<std::string, double>>& values, int64_t step,
                              double wall_time) {
  for (const auto& [tag, value] : values) {
    tensorboard::Event e;
    e.set_wall_time(wall_time);
    e.set_step(step);
    tensorboard::SummaryValue* v = e.mutable_summary()->add_value();
    v->set_tag(tag);
    v->set_simple_value(static_cast<float>(value));
    write_record(e.SerializeAsString());
  }
}

void EventFileWriter::write_record(const std::string& event_bytes) {
  const std::string record = tfrecord(event_bytes);
  size_t done = 0;
  while (done < record.size()) {
    const ssize_t n = ::write(fd_, record.data() + done, record.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail(path_, ": cannot write: ", n < 0 ? std::strerror(errno) : "no progress");
    done += static_cast<size_t>(n);
  }
}

}  // namespace cpuft
