// Checkpoints: output_dir/checkpoint-N/ holds everything needed to resume as if never stopped.
// The directory is written under a temporary name and renamed into place (commit_directory), so a
// checkpoint-N/ either is complete or does not exist. Contents:
//   model.safetensors, config.json   written by the caller's write_model callback (the model saves itself)
//   optimizer.safetensors            AdamW "exp_avg.NAME" and "exp_avg_sq.NAME" (F32) and "step" (I64 [1])
//   trainer_state.json               as transformers writes it (train/trainer_state.h)
//   cpuft_state.json                 written last: loop position, schedule, RNG, world size, the flags
//                                    and what the run was made from, format version, and every other
//                                    file of the directory with its size and XXH64 (util/checksum.h)
// "Complete" means cpuft_state.json is there and every file it records is there with that size and
// checksum: a checkpoint that fails the check is never resumed from, named or found as the last.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "cpuft/flags/train_args.h"
#include "cpuft/util/checksum.h"

namespace cpuft {

// 2: files and made_from recorded. Version 1 checkpoints are refused (docs/security.md).
constexpr int64_t kCheckpointFormatVersion = 2;

// A named f32 array owned by the caller (the Adam moments live in the optimizer's arenas): read by
// save_checkpoint, filled by load_checkpoint.
struct NamedArray {
  std::string name;
  std::vector<int64_t> shape;
  float* data = nullptr;
};
using NamedArrays = std::vector<NamedArray>;

// Where training stands: the counters the Trainer advances step by step. The Trainer holds one, and
// a checkpoint records it whole, so a resumed run continues from exactly these values.
struct TrainProgress {
  int64_t global_step = 0;       // optimizer steps done
  int64_t epoch = 0;             // completed epochs
  int64_t batches_in_epoch = 0;  // micro-batches of the current epoch already consumed (this rank)
  // Loss bookkeeping so logs and train_loss continue exactly.
  double loss_sum = 0;            // sum of per-step losses since step 0
  double loss_since_log = 0;      // sum since the last log entry
  int64_t last_logged_step = 0;
  double total_flos = 0;
};

// Everything cpuft_state.json records: the progress, and what the run was (schedule, seeds, ranks,
// flags), which resuming checks against the new run.
struct CheckpointState {
  int64_t format_version = kCheckpointFormatVersion;
  TrainProgress progress;
  int64_t samples_seen = 0;      // training windows consumed, all ranks
  int64_t adam_step = 0;         // AdamW t (also stored in optimizer.safetensors)
  // Scheduler: the step counter k and what defines the schedule.
  int64_t scheduler_step = 0;
  std::string lr_scheduler_type = "linear";
  double base_lr = 0;
  int64_t warmup_steps = 0, max_steps = 0;
  // The seeds every random stream derives from (dropout masks: train/trainer.cc's dropout_seed).
  int64_t seed = 42, data_seed = 42;
  int64_t world_size = 1;
  std::string args_hash;  // training_args_hash() of the run that wrote it
  // The trajectory flags of that run (train/resume_check.h: training_flags).
  std::map<std::string, std::string> flags;
  // What the run was made from (train/resume_check.h: made_from): model shape, tokenizer, data.
  std::map<std::string, std::string> made_from;
  // Every other file of the checkpoint directory, by name (filled by save_checkpoint).
  std::map<std::string, FileChecksum> files;
};

struct LoadedCheckpoint {
  std::string dir;
  CheckpointState state;
  std::string trainer_state_json;  // as stored (parse with TrainerState::from_json)
  std::string model_file;          // dir + "/model.safetensors" (checked to exist)
};

// Writes output_dir/checkpoint-<step>/ (replacing an existing one). adam_m and adam_v must list the
// same names and shapes. Returns the checkpoint directory. On failure no checkpoint-<step>/ is left
// half-written and the temporary directory is removed.
std::string save_checkpoint(const std::string& output_dir, int64_t step, const CheckpointState& state,
                            const std::function<void(const std::string& dir)>& write_model,
                            const NamedArrays& adam_m, const NamedArrays& adam_v,
                            const std::string& trainer_state_json);

// Reads and validates cpuft_state.json (format version and every field's type), then checks that
// the checkpoint is complete: every file it records is in `dir` with its size and checksum, the model,
// config, optimizer and trainer state among them. Errors name the file and what differs.
CheckpointState load_checkpoint_state(const std::string& dir);
// The same from the file's text; `path` names it in errors.
CheckpointState parse_checkpoint_state(std::string_view text, const std::string& path);

// Validates the whole checkpoint and fills adam_m / adam_v (whose names and shapes are the
// expectation): missing files, truncated or corrupt safetensors, missing, extra or misshapen tensors,
// wrong dtype, step mismatches and unknown format versions all throw one-line cpuft::Errors.
LoadedCheckpoint load_checkpoint(const std::string& dir, const NamedArrays& adam_m, const NamedArrays& adam_v);

// The highest-numbered complete output_dir/checkpoint-N/ (a directory named exactly so, whose
// load_checkpoint_state succeeds); temporary directories are ignored, and a checkpoint that is not
// complete is skipped with a warning saying why. Empty when there is none.
std::string find_last_checkpoint(const std::string& output_dir);

// Removes what an interrupted run left in output_dir: checkpoint-N.tmp-PID/ (a save that never
// committed), checkpoint-N.old-PID/, checkpoint-N.deleting-PID/ and the temporaries of
// write_file_atomic (NAME.tmp-XXXXXXXXXXXX). save_checkpoint calls it first, and training calls it
// on the output directory before the first step.
void remove_checkpoint_leftovers(const std::string& output_dir);

// Deletes the oldest checkpoints until at most `limit` remain, never deleting those of `keep` (paths;
// empty ones ignored): the newest, and the best model's, so that more than `limit` may remain, as the
// Trainer's rotate_checkpoints keeps them. Each is renamed away before it is removed, so a crash never
// leaves a partial checkpoint-N/.
void rotate_checkpoints(const std::string& output_dir, int64_t limit, const std::vector<std::string>& keep);

// The checkpoint to resume from, as run_qa.py decides: --resume_from_checkpoint PATH or "last";
// otherwise, when training into an existing output_dir without --overwrite_output_dir, its last
// checkpoint, and an error if it has none but is not empty (the leftovers of an interrupted run do not
// count). Empty: start afresh.
std::string resolve_resume_checkpoint(const TrainArgs& args);

}  // namespace cpuft
