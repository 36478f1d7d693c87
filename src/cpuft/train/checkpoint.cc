#include "cpuft/train/checkpoint.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "cpuft/io/safetensors.h"
#include "cpuft/train/trainer_state.h"
#include "cpuft/util/atomic_file.h"
#include "cpuft/util/checksum.h"
#include "cpuft/util/error.h"
#include "cpuft/util/json_read.h"
#include "cpuft/util/py_json.h"
#include "cpuft/util/read_file.h"
#include "cpuft/util/shape_text.h"

namespace cpuft {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const char* kStateFile = "cpuft_state.json";
const char* kOptimizerFile = "optimizer.safetensors";
// The files without which a checkpoint cannot be resumed; cpuft_state.json must record them.
const char* const kRequiredFiles[] = {"model.safetensors", "config.json", kOptimizerFile, "trainer_state.json"};

json state_to_json(const CheckpointState& s) {
  json files = json::object();
  for (const auto& [name, c] : s.files) files[name] = {{"bytes", c.bytes}, {"xxh64", hex64(c.xxh64)}};
  return json{{"format_version", s.format_version},
              {"global_step", s.progress.global_step},
              {"epoch", s.progress.epoch},
              {"batches_in_epoch", s.progress.batches_in_epoch},
              {"samples_seen", s.samples_seen},
              {"adam_step", s.adam_step},
              {"scheduler", {{"step", s.scheduler_step},
                             {"type", s.lr_scheduler_type},
                             {"base_lr", s.base_lr},
                             {"warmup_steps", s.warmup_steps},
                             {"max_steps", s.max_steps}}},
              {"seed", s.seed},
              {"data_seed", s.data_seed},
              {"loss_sum", s.progress.loss_sum},
              {"loss_since_log", s.progress.loss_since_log},
              {"last_logged_step", s.progress.last_logged_step},
              {"total_flos", s.progress.total_flos},
              {"world_size", s.world_size},
              {"args_hash", s.args_hash},
              {"flags", s.flags},
              {"made_from", s.made_from},
              {"files", files}};
}

// The files of a checkpoint directory being written, with their sizes and checksums: everything but
// cpuft_state.json, which records them.
std::map<std::string, FileChecksum> checksum_files(const std::string& dir) {
  std::map<std::string, FileChecksum> out;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name == kStateFile || !entry.is_regular_file()) continue;
    out[name] = file_checksum(entry.path().string());
  }
  return out;
}

bool is_plain_file_name(const std::string& name) {
  return !name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos &&
         name.find('\0') == std::string::npos;
}

// Every file `s` records is in `dir` with its size and checksum (the required ones among them).
void verify_files(const std::string& dir, const CheckpointState& s, const std::string& state_path) {
  for (const char* name : kRequiredFiles)
    if (!s.files.count(name)) fail(state_path, ": files: no entry for ", name, "; the checkpoint is incomplete");
  for (const auto& [name, want] : s.files) {
    const std::string path = dir + "/" + name;
    const std::string kind = non_regular_kind(path);
    if (!kind.empty()) fail(path, ": ", kind == "missing" ? "missing" : "is " + kind, "; the checkpoint is incomplete");
    const FileChecksum got = file_checksum(path);
    if (got.bytes != want.bytes)
      fail(path, ": ", got.bytes, " bytes, expected ", want.bytes, " (", kStateFile, "); the checkpoint is incomplete");
    if (got.xxh64 != want.xxh64)
      fail(path, ": xxh64 ", hex64(got.xxh64), ", expected ", hex64(want.xxh64), " (", kStateFile,
           "); the checkpoint is damaged");
  }
}

// Typed access to cpuft_state.json with errors naming the file and the JSON path.
struct Reader {
  std::string path;
  const json& get(const json& obj, const char* key, const std::string& where) const {
    auto it = obj.find(key);
    if (it == obj.end()) fail(path, ": ", where, key, ": missing");
    return *it;
  }
  int64_t integer(const json& obj, const char* key, const std::string& where = "") const {
    const json& v = get(obj, key, where);
    if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<uint64_t>() > INT64_MAX))
      fail(path, ": ", where, key, ": found ", json_preview(v), ", expected an integer");
    return v.get<int64_t>();
  }
  double number(const json& obj, const char* key, const std::string& where = "") const {
    const json& v = get(obj, key, where);
    if (!v.is_number()) fail(path, ": ", where, key, ": found ", json_preview(v), ", expected a number");
    return v.get<double>();
  }
  std::string text(const json& obj, const char* key, const std::string& where = "") const {
    return text_at(get(obj, key, where), where + key);
  }
  // v as a string; `at` is its JSON path as the message shows it (names from the file already quoted).
  std::string text_at(const json& v, const std::string& at) const {
    if (!v.is_string()) fail(path, ": ", at, ": found ", json_preview(v), ", expected a string");
    return v.get<std::string>();
  }
};

void check_moments(const NamedArrays& m, const NamedArrays& v) {
  if (m.size() != v.size())
    fail("checkpoint: ", m.size(), " first-moment arrays but ", v.size(), " second-moment arrays");
  for (size_t i = 0; i < m.size(); ++i)
    if (m[i].name != v[i].name || m[i].shape != v[i].shape)
      fail("checkpoint: moment ", i, ": exp_avg '", text_preview(m[i].name), "' ", shape_text(m[i].shape),
           " vs exp_avg_sq '", text_preview(v[i].name), "' ", shape_text(v[i].shape),
           ", expected the same name and shape");
}

void write_optimizer(const std::string& path, const NamedArrays& m, const NamedArrays& v, int64_t adam_step) {
  std::vector<StTensorOut> out;
  for (const auto* group : {&m, &v}) {
    const char* prefix = group == &m ? "exp_avg." : "exp_avg_sq.";
    for (const auto& a : *group) {
      StTensorOut t;
      t.name = prefix + a.name;
      t.shape = a.shape;
      t.f32 = a.data;
      out.push_back(t);
    }
  }
  StTensorOut step;
  step.name = "step";
  step.shape = {1};
  step.i64 = &adam_step;
  out.push_back(step);
  write_safetensors(path, out, {{"format", "cpuft-adamw"}});
}

void read_optimizer(const std::string& path, const NamedArrays& m, const NamedArrays& v, int64_t adam_step) {
  SafetensorsReader st(path);
  size_t expected = 1;
  for (const auto* group : {&m, &v}) {
    const char* prefix = group == &m ? "exp_avg." : "exp_avg_sq.";
    for (const auto& a : *group) {
      const std::string name = prefix + a.name;
      const StTensorInfo* t = st.find(name);
      if (!t) fail(path, ": tensor '", name, "': missing, expected shape ", shape_text(a.shape));
      if (t->dtype != StDtype::kF32) fail(path, ": tensor '", name, "': dtype ", t->dtype_name, ", expected F32");
      if (t->shape != a.shape)
        fail(path, ": tensor '", name, "': shape ", shape_text(t->shape), ", expected ", shape_text(a.shape));
      st.read_f32(*t, a.data);
      ++expected;
    }
  }
  const StTensorInfo* step = st.find("step");
  if (!step || step->dtype != StDtype::kI64 || step->shape != std::vector<int64_t>{1})
    fail(path, ": tensor 'step': missing or not I64 [1]");
  int64_t stored = 0;
  std::memcpy(&stored, st.data(*step), sizeof stored);
  if (stored != adam_step)
    fail(path, ": tensor 'step': found ", stored, ", expected ", adam_step, " (cpuft_state.json adam_step)");
  if (st.tensors().size() != expected) {
    for (const auto& t : st.tensors()) {
      bool known = t.name == "step";
      for (const auto* group : {&m, &v})
        for (const auto& a : *group)
          known = known || t.name == (group == &m ? "exp_avg." : "exp_avg_sq.") + a.name;
      if (!known) fail(path, ": tensor '", text_preview(t.name), "': not a moment of any parameter of this model");
    }
  }
}

void require_file(const std::string& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) fail(path, ": missing; the checkpoint is incomplete");
}

}  // namespace

std::string save_checkpoint(const std::string& output_dir, int64_t step, const CheckpointState& state,
                            const std::function<void(const std::string& dir)>& write_model,
                            const NamedArrays& adam_m, const NamedArrays& adam_v,
                            const std::string& trainer_state_json) {
  check_moments(adam_m, adam_v);
  const std::string name = "checkpoint-" + std::to_string(step);
  const std::string final_dir = output_dir + "/" + name;
  // The suffix keeps temporary directories from ever matching "checkpoint-N".
  const std::string tmp_dir = final_dir + ".tmp-" + std::to_string(::getpid());
  remove_checkpoint_leftovers(output_dir);
  std::error_code ec;
  if (!fs::create_directories(tmp_dir, ec) || ec)
    fail(tmp_dir, ": cannot create checkpoint directory: ", ec ? ec.message() : "already exists");
  try {
    write_model(tmp_dir);
    require_file(tmp_dir + "/model.safetensors");
    require_file(tmp_dir + "/config.json");
    write_optimizer(tmp_dir + "/" + kOptimizerFile, adam_m, adam_v, state.adam_step);
    write_file_atomic(tmp_dir + "/trainer_state.json", trainer_state_json);
    // Last: the file that makes the checkpoint complete, recording every other one.
    CheckpointState recorded = state;
    recorded.files = checksum_files(tmp_dir);
    write_file_atomic(tmp_dir + "/" + kStateFile, py_json_dumps(state_to_json(recorded), 2) + "\n");
    if (fs::exists(final_dir, ec)) {
      const std::string old_dir = final_dir + ".old-" + std::to_string(::getpid());
      fs::remove_all(old_dir, ec);
      fs::rename(final_dir, old_dir);
      commit_directory(tmp_dir, final_dir);
      fs::remove_all(old_dir, ec);
    } else {
      commit_directory(tmp_dir, final_dir);
    }
  } catch (const fs::filesystem_error& e) {
    fs::remove_all(tmp_dir, ec);
    fail(final_dir, ": cannot write checkpoint: ", e.what());
  } catch (...) {
    fs::remove_all(tmp_dir, ec);
    throw;
  }
  return final_dir;
}

CheckpointState load_checkpoint_state(const std::string& dir) {
  const std::string path = dir + "/" + kStateFile;
  require_file(path);
  CheckpointState s = parse_checkpoint_state(read_file(path, kMaxSmallJsonBytes), path);
  verify_files(dir, s, path);
  return s;
}

CheckpointState parse_checkpoint_state(std::string_view text, const std::string& path) {
  json j = parse_json(text, path);
  if (!j.is_object()) fail(path, ": not a JSON object; the checkpoint is corrupt");
  Reader r{path};
  CheckpointState s;
  s.format_version = r.integer(j, "format_version");
  if (s.format_version == 1)
    fail(path, ": format_version: found 1, expected ", kCheckpointFormatVersion,
         " (written by an earlier cpuft, which recorded neither its files nor what it was made from, so it cannot "
         "be checked; finish that run with the cpuft that wrote it, or train afresh)");
  if (s.format_version != kCheckpointFormatVersion)
    fail(path, ": format_version: found ", s.format_version, ", expected ", kCheckpointFormatVersion,
         " (written by a different cpuft version)");
  s.progress.global_step = r.integer(j, "global_step");
  s.progress.epoch = r.integer(j, "epoch");
  s.progress.batches_in_epoch = r.integer(j, "batches_in_epoch");
  s.samples_seen = r.integer(j, "samples_seen");
  s.adam_step = r.integer(j, "adam_step");
  const json& sched = r.get(j, "scheduler", "");
  if (!sched.is_object()) fail(path, ": scheduler: found ", json_preview(sched), ", expected an object");
  s.scheduler_step = r.integer(sched, "step", "scheduler.");
  s.lr_scheduler_type = r.text(sched, "type", "scheduler.");
  s.base_lr = r.number(sched, "base_lr", "scheduler.");
  s.warmup_steps = r.integer(sched, "warmup_steps", "scheduler.");
  s.max_steps = r.integer(sched, "max_steps", "scheduler.");
  s.seed = r.integer(j, "seed");
  s.data_seed = r.integer(j, "data_seed");
  s.progress.loss_sum = r.number(j, "loss_sum");
  s.progress.loss_since_log = r.number(j, "loss_since_log");
  s.progress.last_logged_step = r.integer(j, "last_logged_step");
  s.progress.total_flos = r.number(j, "total_flos");
  s.world_size = r.integer(j, "world_size");
  s.args_hash = r.text(j, "args_hash");
  for (auto [key, map] : {std::pair{"flags", &s.flags}, std::pair{"made_from", &s.made_from}}) {
    const json& obj = r.get(j, key, "");
    if (!obj.is_object()) fail(path, ": ", key, ": found ", json_preview(obj), ", expected an object");
    // The names are the file's own (any text, NUL included): quoted through text_preview, never looked up again.
    for (auto it = obj.begin(); it != obj.end(); ++it)
      (*map)[it.key()] = r.text_at(*it, str_cat(key, ".", text_preview(it.key())));
  }
  const json& files = r.get(j, "files", "");
  if (!files.is_object()) fail(path, ": files: found ", json_preview(files), ", expected an object");
  for (auto it = files.begin(); it != files.end(); ++it) {
    const std::string where = str_cat("files.", text_preview(it.key()), ".");
    if (!is_plain_file_name(it.key()) || it.key() == kStateFile)
      fail(path, ": files: ", json_preview(it.key()), " is not a file name of this directory");
    if (!it->is_object()) fail(path, ": ", where.substr(0, where.size() - 1), ": found ", json_preview(*it), ", expected an object");
    FileChecksum c;
    const int64_t bytes = r.integer(*it, "bytes", where);
    if (bytes < 0) fail(path, ": ", where, "bytes: found ", bytes, ", expected a size >= 0");
    c.bytes = static_cast<uint64_t>(bytes);
    const std::string hex = r.text(*it, "xxh64", where);
    char* end = nullptr;
    errno = 0;
    c.xxh64 = std::strtoull(hex.c_str(), &end, 16);
    if (hex.size() != 16 || *end != '\0' || errno != 0 || hex.find_first_not_of("0123456789abcdef") != std::string::npos)
      fail(path, ": ", where, "xxh64: found ", json_preview(hex), ", expected 16 hex digits");
    s.files[it.key()] = c;
  }
  const TrainProgress& p = s.progress;
  if (p.global_step < 0 || s.world_size < 1 || p.epoch < 0 || p.batches_in_epoch < 0)
    fail(path, ": global_step ", p.global_step, ", epoch ", p.epoch, ", batches_in_epoch ", p.batches_in_epoch,
         ", world_size ", s.world_size, ": expected non-negative counts and world_size >= 1");
  return s;
}

LoadedCheckpoint load_checkpoint(const std::string& dir, const NamedArrays& adam_m, const NamedArrays& adam_v) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) fail(dir, ": not a checkpoint directory (missing)");
  check_moments(adam_m, adam_v);
  LoadedCheckpoint out;
  out.dir = dir;
  out.state = load_checkpoint_state(dir);  // every file is there, as it was written
  out.model_file = dir + "/model.safetensors";
  const std::string ts_path = dir + "/trainer_state.json";
  out.trainer_state_json = read_file(ts_path, kMaxTrainerStateBytes);
  TrainerState ts = TrainerState::from_json(out.trainer_state_json, ts_path);
  if (ts.global_step != out.state.progress.global_step)
    fail(ts_path, ": global_step: found ", ts.global_step, ", expected ", out.state.progress.global_step,
         " (cpuft_state.json)");
  const std::string opt_path = dir + "/" + kOptimizerFile;
  read_optimizer(opt_path, adam_m, adam_v, out.state.adam_step);
  return out;
}

}  // namespace cpuft
