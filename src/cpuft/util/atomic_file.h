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
