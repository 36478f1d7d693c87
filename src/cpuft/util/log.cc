#include "cpuft/util/log.h"

#include <cstdio>
#include <mutex>

namespace cpuft {

namespace {

struct LogState {
  std::mutex mu;
  int rank = 0, world = 1;
  LogSink sink;
  bool live_line = false;
};

LogState& state() {
  static LogState s;
  return s;
}

void write_locked(LogState& s, const std::string& text) {
  if (s.sink) {
    s.sink(text);
    return;
  }
  std::fwrite(text.data(), 1, text.size(), stderr);
  std::fflush(stderr);
}

}  // namespace

void set_log_rank(int rank, int world) {
  std::lock_guard<std::mutex> lock(state().mu);
  state().rank = rank;
  state().world = world;
}

int log_rank() { return state().rank; }
int log_world() { return state().world; }

void set_log_sink(LogSink sink) {
  std::lock_guard<std::mutex> lock(state().mu);
  state().sink = std::move(sink);
}

void log_write_raw(const std::string& text) {
  std::lock_guard<std::mutex> lock(state().mu);
  write_locked(state(), text);
}

void set_live_line_active(bool active) {
  std::lock_guard<std::mutex> lock(state().mu);
  state().live_line = active;
}

void log_message(LogLevel level, bool all_ranks, const std::string& message) {
  LogState& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.rank != 0 && !all_ranks) return;
  std::string text = s.live_line ? "\r\033[K" : "";
  text += all_ranks && s.world > 1 ? str_cat("cpuft[rank ", s.rank, "/", s.world, "]: ") : "cpuft: ";
  if (level == LogLevel::kNotice) text += "notice: ";
  if (level == LogLevel::kWarn) text += "warning: ";
  text += one_line(message);
  text += "\n";
  write_locked(s, text);
}

NoticeSink log_notices() {
  return [](LogLevel level, const std::string& message) { log_message(level, false, message); };
}

void log_fatal(const std::string& message) {
  LogState& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  write_locked(s, str_cat(s.live_line ? "\r\033[K" : "", "cpuft: ", one_line(message), "\n"));
}

}  // namespace cpuft
