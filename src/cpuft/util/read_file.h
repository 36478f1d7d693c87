// Reading input files as hostile: only regular files are read (a directory, FIFO, socket or device is
// named as such, never read: /dev/zero would never end and a FIFO would block), and never more than a
// size limit, so that a wrong path costs one error line instead of memory or a hang.
#pragma once

#include <cstdint>
#include <string>

namespace cpuft {

// Size limits of the files cpuft reads (bytes). Each is far above what a real file of that kind
// holds and far below what would exhaust a machine.
constexpr uint64_t kMaxSmallJsonBytes = uint64_t{16} << 20;   // config.json, tokenizer_config.json, state files
constexpr uint64_t kMaxTokenizerBytes = uint64_t{256} << 20;  // tokenizer.json, vocab.txt
constexpr uint64_t kMaxTrainerStateBytes = uint64_t{256} << 20;  // trainer_state.json (log_history grows)
constexpr uint64_t kMaxDatasetBytes = uint64_t{2} << 30;      // SQuAD JSON

// What `path` is when it is not a regular file: "a directory", "a FIFO", "a character device",
// "a block device", "a socket", "missing", "a dangling symbolic link"; "" for a regular file (links
// are followed) and "unreadable (REASON)" when stat itself fails otherwise.
std::string non_regular_kind(const std::string& path);

// True when `path` is, or links to, a regular file.
bool is_regular_file(const std::string& path);

// Throws "PATH: is a directory, expected a regular file" (or "is missing") unless `path` is a
// regular file.
void require_regular_file(const std::string& path);

// Opens `path` for reading; it must be a regular file (checked on the open descriptor, without
// blocking on a FIFO). Returns the descriptor, which the caller closes. Errors as read_file's.
int open_regular_file(const std::string& path);

// The whole of `path`, which must be a regular file of at most `max_bytes`. Errors (one line, naming
// the path): missing or unreadable, not a regular file (checked on the open descriptor, without
// blocking on a FIFO), larger than the limit, or a read error.
std::string read_file(const std::string& path, uint64_t max_bytes = kMaxSmallJsonBytes);

// Everything readable from the open descriptor `fd` (a pipe, a terminal, a file) up to `max_bytes`;
// more is an error naming `source` ("<stdin>").
std::string read_descriptor(int fd, const std::string& source, uint64_t max_bytes);

// "512 B", "16.0 MiB", "2.0 GiB": sizes for messages.
std::string format_bytes(uint64_t bytes);

}  // namespace cpuft
