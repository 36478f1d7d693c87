#include "cpuft/train/resume_check.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include "cpuft/flags/train_flags.h"
#include "cpuft/util/error.h"
#include "cpuft/util/checksum.h"
#include "cpuft/util/json_read.h"
#include "cpuft/util/read_file.h"

namespace cpuft {
namespace {

const char* const kTrajectoryFlags[] = {
    "max_seq_length", "doc_stride", "pad_to_max_length", "max_train_samples", "per_device_train_batch_size",
    "gradient_accumulation_steps", "learning_rate", "weight_decay", "adam_beta1", "adam_beta2", "adam_epsilon",
    "max_grad_norm", "num_train_epochs", "max_steps", "warmup_ratio", "warmup_steps", "lr_scheduler_type", "seed",
    "data_seed", "bf16", "group_by_length"};

// Flags whose change moves the meaning of the checkpoint's position in the epoch.
const char* const kDataPositionFlags[] = {"max_seq_length", "doc_stride", "pad_to_max_length", "max_train_samples",
                                          "data_seed", "gradient_accumulation_steps", "group_by_length"};

std::string value_of(const std::map<std::string, std::string>& flags, const std::string& name) {
  auto it = flags.find(name);
  return it == flags.end() ? std::string("?") : it->second;
}

}  // namespace

std::map<std::string, std::string> training_flags(const TrainArgs& args) {
  std::map<std::string, std::string> out;
  TrainArgs shown = args;  // the table binds to the struct it reads; `args` stays untouched
  const FlagTable table = train_flags(Command::kTrain, shown);
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
      const bool accumulation = std::string(name) == "gradient_accumulation_steps";
      r.refusal = str_cat("--", name, " ", text_preview(value_of(state.flags, name)), " -> ", now.at(name),
                          accumulation ? " changes how many batches one step takes" : " changes the training data",
                          "; the checkpoint's position in the epoch would not carry over", how);
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

std::map<std::string, std::string> made_from_model(const ModelConfig& c) {
  return {{"model.model_type", model_type_name(c.family)},
          {"model.vocab_size", std::to_string(c.vocab_size)},
          {"model.max_position_embeddings", std::to_string(c.max_position_embeddings)},
          {"model.type_vocab_size", std::to_string(c.type_vocab_size)},
          {"model.hidden_size", std::to_string(c.hidden)},
          {"model.num_hidden_layers", std::to_string(c.layers)},
          {"model.num_attention_heads", std::to_string(c.heads)},
          {"model.intermediate_size", std::to_string(c.intermediate)},
          {"model.hidden_act", c.activation}};
}

std::map<std::string, std::string> made_from(const ModelConfig& config, const Tokenizer& tokenizer,
                                             const std::vector<Feature>& train_features) {
  std::map<std::string, std::string> out = made_from_model(config);
  Xxh64 files;
  for (const std::string& f : tokenizer.source_files()) {
    const std::string bytes = read_file(f, kMaxTokenizerBytes);
    files.update(bytes.data(), bytes.size());
  }
  out["tokenizer.files_xxh64"] = hex64(files.digest());
  Xxh64 data;
  for (const Feature& f : train_features) {
    data.update(f.input_ids.data(), f.input_ids.size() * sizeof(int32_t));
    data.update(f.token_type_ids.data(), f.token_type_ids.size());
    data.update(f.attention_mask.data(), f.attention_mask.size());
    const int32_t positions[2] = {f.start_position, f.end_position};
    data.update(positions, sizeof positions);
  }
  out["data.train_features"] = std::to_string(train_features.size());
  out["data.features_xxh64"] = hex64(data.digest());
  return out;
}

std::string check_made_from(const std::map<std::string, std::string>& recorded,
                            const std::map<std::string, std::string>& now, const std::string& what_now) {
  for (const auto& [key, value] : now) {
    const auto it = recorded.find(key);
    if (it == recorded.end()) return str_cat("made_from.", key, ": missing, expected ", value, " (", what_now, ")");
    if (it->second != value)
      return str_cat("made_from.", key, ": found ", text_preview(it->second), ", expected ", value, " (", what_now, ")");
  }
  return "";
}

std::string check_progress(const CheckpointState& s, const StepPlan& plan, int64_t accumulation) {
  const TrainProgress& p = s.progress;
  const int64_t g = p.global_step;
  if (g < 0 || g > plan.max_steps)
    return str_cat("global_step: found ", g, ", expected 0 to ", plan.max_steps, " (this run's total optimization steps)");
  // Where g steps leave the loop: each epoch takes steps_per_epoch steps of `accumulation`
  // micro-batches (the last step of an epoch takes what is left); at the end of an epoch the count
  // is not yet advanced to the next.
  const int64_t epoch = g == 0 ? 0 : (g - 1) / plan.steps_per_epoch;
  const int64_t in_epoch = g - epoch * plan.steps_per_epoch;
  const int64_t batches = std::min(in_epoch * accumulation, plan.batches_per_epoch);
  const std::string at = str_cat(" (global_step ", g, " with ", plan.steps_per_epoch, " steps of ", accumulation,
                                 " of the ", plan.batches_per_epoch, " batches of an epoch)");
  if (p.epoch != epoch) return str_cat("epoch: found ", p.epoch, ", expected ", epoch, at);
  if (p.batches_in_epoch != batches) return str_cat("batches_in_epoch: found ", p.batches_in_epoch, ", expected ", batches, at);
  if (s.adam_step != g) return str_cat("adam_step: found ", s.adam_step, ", expected ", g, " (global_step)");
  if (s.scheduler_step != g) return str_cat("scheduler.step: found ", s.scheduler_step, ", expected ", g, " (global_step)");
  int64_t samples = 0;
  if (__builtin_mul_overflow(g, plan.total_train_batch_size, &samples) || s.samples_seen != samples)
    return str_cat("samples_seen: found ", s.samples_seen, ", expected ", samples, " (global_step ", g, " x total batch ",
                   plan.total_train_batch_size, ")");
  if (p.last_logged_step < 0 || p.last_logged_step > g)
    return str_cat("last_logged_step: found ", p.last_logged_step, ", expected 0 to ", g, " (global_step)");
  for (const auto& [name, value] : {std::pair{"loss_sum", p.loss_sum}, std::pair{"loss_since_log", p.loss_since_log},
                                    std::pair{"total_flos", p.total_flos}})
    if (!std::isfinite(value) || value < 0) return str_cat(name, ": found ", value, ", expected a finite number >= 0");
  return "";
}

}  // namespace cpuft
