// Files that are either fully written or not there at all: write to a fresh temporary file beside
// <path>, fsync, rename over <path>, fsync the directory. A crash or a signal never leaves a
// half-written file. The temporary is "<path>.tmp-" + 12 random hex digits, created with
// O_EXCL | O_NOFOLLOW: its name cannot be guessed, and nothing already there (a link planted in a
// shared output directory) is ever opened, written through or renamed into place.
#pragma once

#include <string>
#include <string_view>

namespace cpuft {

// Writes `bytes` to `path` atomically; throws cpuft::Error naming the path on failure.
void write_file_atomic(const std::string& path, std::string_view bytes);

// The same for a file written piece by piece (a large file need not be held in memory whole): the
// temporary is created at construction, append() writes through it, commit() puts it in place; a
// writer destroyed without commit() (an error on the way) removes its temporary.
class AtomicFile {
 public:
  explicit AtomicFile(std::string path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  void append(std::string_view bytes);
  void commit();

 private:
  void flush();
  void write_all(std::string_view bytes);
  [[noreturn]] void abandon(const char* what, int err);
  std::string path_, tmp_, buffer_;
  int fd_ = -1;
};

// Renames a fully written directory into place atomically (used for checkpoint-N/): fsyncs every
// file inside `tmp_dir`, then renames it to `final_dir` (which must not exist) and syncs the parent.
void commit_directory(const std::string& tmp_dir, const std::string& final_dir);

// Throws "DIR: not writable: REASON" unless a file can be created in `dir` (tried with a temporary
// created and removed as write_file_atomic does): a read-only directory is found before any work.
void check_directory_writable(const std::string& dir);

// True for the names write_file_atomic gives its temporaries ("NAME.tmp-" + 12 hex digits): what a
// killed writer leaves behind, safe to remove.
bool is_atomic_temporary_name(const std::string& file_name);

}  // namespace cpuft
