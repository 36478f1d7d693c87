// Messages to stderr with a "cpuft: " prefix. In a run of several processes only rank 0 prints unless
// a message is marked for every rank (then the prefix names the rank). A live progress line
// (util/progress.h) is cleared before a message so the two never mix on one line.
#pragma once

#include <functional>
#include <string>

#include "cpuft/util/error.h"

namespace cpuft {

enum class LogLevel { kInfo, kNotice, kWarn };

// Where a library function sends what it has to tell the user (an ignored tensor, a weight holding
// NaN) when its caller decides where that goes: commands pass log_notices(), tests collect them.
using NoticeSink = std::function<void(LogLevel level, const std::string& message)>;

// log_message(level, /*all_ranks=*/false, message) for each notice: rank 0 prints them.
NoticeSink log_notices();

// This process's place in the run (from MPI); defaults to rank 0 of 1.
void set_log_rank(int rank, int world);
int log_rank();
int log_world();

// Where finished text goes (each call gets whole lines, or a progress redraw); empty: stderr.
using LogSink = std::function<void(const std::string& text)>;
void set_log_sink(LogSink sink);

// Writes text as is through the sink (progress redraws use it).
void log_write_raw(const std::string& text);

// Set by a live progress line while it is on screen.
void set_live_line_active(bool active);

// Prints "cpuft: [notice: |warning: ]MESSAGE\n" on rank 0, or on every rank when all_ranks
// ("cpuft[rank R/N]: ..." when N > 1).
void log_message(LogLevel level, bool all_ranks, const std::string& message);

template <typename... Args>
void log_info(Args&&... args) {
  log_message(LogLevel::kInfo, false, str_cat(std::forward<Args>(args)...));
}
template <typename... Args>
void log_notice(Args&&... args) {
  log_message(LogLevel::kNotice, false, str_cat(std::forward<Args>(args)...));
}
template <typename... Args>
void log_warn(Args&&... args) {
  log_message(LogLevel::kWarn, false, str_cat(std::forward<Args>(args)...));
}
// The last words of a process that ends the whole job (Communicator::abort): "cpuft: MESSAGE" on
// whichever rank says it, the message naming the rank and host itself.
void log_fatal(const std::string& message);

// Warnings that concern one process (its cores, its memory) come from every rank.
template <typename... Args>
void log_warn_all_ranks(Args&&... args) {
  log_message(LogLevel::kWarn, true, str_cat(std::forward<Args>(args)...));
}

}  // namespace cpuft
