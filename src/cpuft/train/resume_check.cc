#include "cpuft/train/resume_check.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>

#include "cpuft/flags/train_flags.h"
#include "cpuft/util/error.h"
#include "cpuft/util/json_read.h"

namespace cpuft {
namespace {

const char* const kTrajectoryFlags[] = {
    "max_seq_length", "doc_stride", "pad_to_max_length", "max_train_samples", "per_device_train_batch_size",
    "gradient_accumulation_steps", "learning_rate", "weight_decay", "adam_beta1", "adam_beta2", "adam_epsilon",
    "max_grad_norm", "num_train_epochs", "max_steps", "warmup_ratio", "warmup_steps", "lr_scheduler_type", "seed",
    "data_seed", "bf16", "group_by_length"};

// Flags whose change moves the meaning of the checkpoint's position in the epoch.
const char* const kDataPositionFlags[] = {"max_seq_length", "doc_stride", "pad_to_max_length", "max_train_samples",
                                          "data_seed", "group_by_length"};

// A flag checkpoints record since a later version reads as its default from older checkpoints.
std::string value_of(const std::map<std::string, std::string>& flags, const std::string& name) {
  auto it = flags.find(name);
  if (it != flags.end()) return it->second;
  return name == "group_by_length" ? std::string("false") : std::string("?");
}

}  // namespace

std::map<std::string, std::string> training_flags(const TrainArgs& args) {
  std::map<std::string, std::string> out;
  TrainArgs shown = args;  // the table binds to the struct it reads; `args` stays untouched
  const FlagTable table = train_flags(Command::Train, shown);
  for (const char* name : kTrajectoryFlags) out[name] = table.find(name)->show();
  out["data_seed"] = std::to_string(args.effective_data_seed());  // shown as "--seed" when not given
  return out;
}

std::string training_args_hash(const TrainArgs& args) {
  std::string canon;
  for (const auto& [name, value] : training_flags(args)) canon += name + "=" + value + "\n";
  uint64_t h = 1469598103934665603ull;  // FNV-1a 64
  for (unsigned char c : canon) h = (h ^ c) * 1099511628211ull;
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

ResumeCheck check_resume(const CheckpointState& state, const TrainArgs& args, int64_t world_size) {
  ResumeCheck r;
  const std::string how = "; resume with the same values, or train afresh with --overwrite_output_dir";
  const int64_t global = args.per_device_train_batch_size * world_size;
  if (state.flags.empty()) {  // written before checkpoints recorded their flags: only the hash tells
    if (state.args_hash != training_args_hash(args))
      r.changes = "the training flags differ from those the checkpoint was written with";
    if (state.world_size != world_size)
      r.refusal = str_cat("the checkpoint was written by ", state.world_size, " processes and this run has ",
                          world_size, "; its batches would not carry over", how);
    return r;
  }
  const std::map<std::string, std::string> now = training_flags(args);
  // The checkpoint's global batch; the file is input like any other, so its numbers are checked.
  const std::string old_batch = value_of(state.flags, "per_device_train_batch_size");
  char* end = nullptr;
  errno = 0;
  const long long per_device = std::strtoll(old_batch.c_str(), &end, 10);
  int64_t old_global = 0;
  const bool readable = !old_batch.empty() && *end == '\0' && errno == 0 && per_device > 0 &&
                        !__builtin_mul_overflow(static_cast<int64_t>(per_device), state.world_size, &old_global);
  if (!readable || old_global != global) {
    r.refusal = str_cat("the global batch (--per_device_train_batch_size x processes) is ",
                        args.per_device_train_batch_size, " x ", world_size, " = ", global,
                        " but the checkpoint was written with ", text_preview(old_batch), " x ", state.world_size,
                        readable ? str_cat(" = ", old_global) : std::string(),
                        "; its position in the epoch would not carry over", how);
    return r;
  }
  for (const char* name : kDataPositionFlags) {
    if (value_of(state.flags, name) != now.at(name)) {
      r.refusal = str_cat("--", name, " ", text_preview(value_of(state.flags, name)), " -> ", now.at(name),
                          " changes the training data; the checkpoint's position in the epoch would not carry over",
                          how);
      return r;
    }
  }
  for (const auto& [name, value] : now) {
    const std::string before = value_of(state.flags, name);
    if (before == value || name == "per_device_train_batch_size") continue;
    r.changes += str_cat(r.changes.empty() ? "" : ", ", "--", name, " ", text_preview(before), " -> ", value);
  }
  return r;
}

}  // namespace cpuft
