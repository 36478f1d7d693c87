// The checkpoint-N/ directories of an output_dir: finding them, choosing the one to resume from,
// rotating them and removing what interrupted writes left (the output_dir itself is run/setup's).
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <utility>
#include <vector>

#include "cpuft/train/checkpoint.h"
#include "cpuft/util/atomic_file.h"
#include "cpuft/util/dir_lock.h"
#include "cpuft/util/error.h"
#include "cpuft/util/log.h"

namespace cpuft {

namespace fs = std::filesystem;

namespace {

// Step number of a directory named exactly "checkpoint-<digits>", else -1.
int64_t checkpoint_number(const std::string& name) {
  const std::string prefix = "checkpoint-";
  if (name.compare(0, prefix.size(), prefix) != 0 || name.size() == prefix.size() || name.size() > prefix.size() + 18)
    return -1;
  int64_t n = 0;
  for (size_t i = prefix.size(); i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9') return -1;
    n = n * 10 + (name[i] - '0');
  }
  return n;
}

// The checkpoints in output_dir (directories named checkpoint-N holding a cpuft_state.json), oldest first.
std::vector<std::pair<int64_t, fs::path>> list_checkpoints(const std::string& output_dir) {
  std::vector<std::pair<int64_t, fs::path>> out;
  std::error_code ec;
  if (!fs::is_directory(output_dir, ec)) return out;
  for (const auto& entry : fs::directory_iterator(output_dir, ec)) {
    int64_t n = checkpoint_number(entry.path().filename().string());
    if (n < 0 || !entry.is_directory(ec)) continue;
    if (!fs::is_regular_file(entry.path() / "cpuft_state.json", ec)) continue;
    out.emplace_back(n, entry.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Names an interrupted run leaves in an output directory: checkpoint-N.tmp-*/ (a save that never
// committed), checkpoint-N.old-*/ and checkpoint-N.deleting-*/, and write_file_atomic's temporaries.
bool is_interrupted_write(const std::string& name) {
  if (is_atomic_temporary_name(name)) return true;
  const size_t dot = name.find('.');
  if (dot == std::string::npos || checkpoint_number(name.substr(0, dot)) < 0) return false;
  const std::string suffix = name.substr(dot);
  for (const char* kind : {".tmp-", ".old-", ".deleting-"})
    if (suffix.compare(0, std::char_traits<char>::length(kind), kind) == 0) return true;
  return false;
}

// True when `dir` holds nothing but what an interrupted cpuft run leaves (remove_checkpoint_leftovers
// removes it) and the lock of the run now writing it: such a directory is as good as empty.
bool only_interrupted_writes(const std::string& dir) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (!is_interrupted_write(name) && name != kDirLockFile) return false;
  }
  return !ec;
}

bool same_path(const fs::path& a, const std::string& b) {
  if (b.empty()) return false;
  std::error_code ec;
  return fs::equivalent(a, b, ec);
}

}  // namespace

void remove_checkpoint_leftovers(const std::string& output_dir) {
  std::error_code ec;
  if (!fs::is_directory(output_dir, ec)) return;
  std::vector<fs::path> doomed;
  for (const auto& entry : fs::directory_iterator(output_dir, ec))
    if (is_interrupted_write(entry.path().filename().string())) doomed.push_back(entry.path());
  for (const auto& path : doomed) fs::remove_all(path, ec);
}

std::string find_last_checkpoint(const std::string& output_dir) {
  auto all = list_checkpoints(output_dir);
  for (auto it = all.rbegin(); it != all.rend(); ++it) {
    try {
      load_checkpoint_state(it->second.string());
      return it->second.string();
    } catch (const Error& e) {
      log_warn("skipping ", it->second.string(), ": ", e.what());
    }
  }
  return "";
}

void rotate_checkpoints(const std::string& output_dir, int64_t limit, const std::vector<std::string>& keep) {
  if (limit < 1) fail("--save_total_limit: found ", limit, ", expected an integer > 0");
  auto all = list_checkpoints(output_dir);
  int64_t excess = static_cast<int64_t>(all.size()) - limit;
  for (const auto& [n, path] : all) {
    if (excess <= 0) break;
    const fs::path& p = path;
    if (std::any_of(keep.begin(), keep.end(), [&](const std::string& k) { return same_path(p, k); })) continue;
    // Rename first: a crash during remove_all leaves a ".deleting" directory, never a partial checkpoint.
    fs::path doomed = path.string() + ".deleting-" + std::to_string(::getpid());
    std::error_code ec;
    fs::rename(path, doomed, ec);
    if (ec) fail(path.string(), ": cannot remove old checkpoint: ", ec.message());
    fs::remove_all(doomed, ec);
    --excess;
  }
}

std::string resolve_resume_checkpoint(const TrainArgs& args) {
  const std::string& r = args.resume_from_checkpoint;
  if (r == "last") {
    std::string last = find_last_checkpoint(args.output_dir);
    if (last.empty())
      fail("--resume_from_checkpoint last: no complete checkpoint-N/ in ", args.output_dir);
    return last;
  }
  std::error_code ec;
  if (!r.empty()) {
    if (!fs::is_regular_file(fs::path(r) / "cpuft_state.json", ec))
      fail("--resume_from_checkpoint: found '", r, "', expected a cpuft checkpoint directory (with cpuft_state.json)");
    return r;
  }
  if (!args.do_train || args.overwrite_output_dir || !fs::is_directory(args.output_dir, ec)) return "";
  std::string last = find_last_checkpoint(args.output_dir);
  if (last.empty() && !only_interrupted_writes(args.output_dir))
    fail("--output_dir: ", args.output_dir, " already exists and is not empty; use --overwrite_output_dir "
         "to train into it, or --resume_from_checkpoint PATH to continue from a checkpoint elsewhere");
  return last;
}

}  // namespace cpuft
