// Files that are either fully written or not there at all: write to "<path>.tmp.<pid>", fsync,
// rename over <path>, fsync the directory. A crash or a signal never leaves a half-written file.
#pragma once

#include <string>
#include <string_view>

namespace cpuft {

// Writes `bytes` to `path` atomically; throws cpuft::Error naming the path on failure.
void write_file_atomic(const std::string& path, std::string_view bytes);

// Renames a fully written directory into place atomically (used for checkpoint-N/): fsyncs every
// file inside `tmp_dir`, then renames it to `final_dir` (which must not exist) and syncs the parent.
void commit_directory(const std::string& tmp_dir, const std::string& final_dir);

}  // namespace cpuft
