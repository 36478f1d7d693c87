// Graceful stop on SIGINT / SIGTERM (Ctrl-C, a reclaimed spot instance, a Slurm time limit): the
// first signal only sets a flag, which the trainer polls between steps to save a checkpoint and stop;
// a second SIGINT exits at once (status 130) for a user who will not wait.
#pragma once

#include <string>

namespace cpuft {

// Installs the handlers (idempotent). The handler only stores to a lock-free atomic and, on a second
// SIGINT, write()s one line and _exit()s: both async-signal-safe.
void install_stop_handlers();

// True once SIGINT or SIGTERM has arrived.
bool stop_requested();

// The signal that requested the stop (SIGINT or SIGTERM), 0 if none.
int stop_signal();

// Name for messages: "SIGINT", "SIGTERM", else "signal N" (never empty).
std::string signal_name(int sig);

// Forgets a pending request (tests; a trainer that has handled the stop and continues).
void clear_stop_request();

}  // namespace cpuft
