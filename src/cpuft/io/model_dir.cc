#include "cpuft/io/model_dir.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <set>

#include <nlohmann/json.hpp>

#include "cpuft/util/error.h"
#include "cpuft/util/json_read.h"
#include "cpuft/util/read_file.h"

namespace cpuft {
namespace {

bool is_dir(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// True for a regular file, false when nothing is there; anything else at `path` (a directory, a FIFO,
// a device, a dangling link) is an error that says what it is, rather than "no such file".
bool is_file(const std::string& path) {
  const std::string kind = non_regular_kind(path);
  if (kind.empty()) return true;
  if (kind == "missing") return false;
  fail(path, ": is ", kind, ", expected a regular file");
}

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// ORG/NAME or NAME, each part non-empty and not a relative-path component.
bool looks_like_repo_id(const std::string& id) {
  size_t slash = id.find('/');
  if (slash != std::string::npos && id.find('/', slash + 1) != std::string::npos) return false;
  for (const std::string& part : {id.substr(0, slash), slash == std::string::npos ? "x" : id.substr(slash + 1)}) {
    if (part.empty() || part[0] == '.' || part[0] == '~') return false;
  }
  return true;
}

// snapshots/REV per refs/main, else the only or newest snapshot; "" when there is none.
std::string pick_snapshot(const std::string& repo_dir) {
  const std::string snapshots = repo_dir + "/snapshots";
  if (is_file(repo_dir + "/refs/main")) {
    std::string rev = read_file(repo_dir + "/refs/main", 4096);
    rev.erase(rev.find_last_not_of(" \t\r\n") + 1);
    if (!rev.empty() && rev.find('/') == std::string::npos && is_dir(snapshots + "/" + rev)) {
      return snapshots + "/" + rev;
    }
  }
  std::string newest;
  struct timespec newest_time {};
  if (DIR* d = ::opendir(snapshots.c_str())) {
    while (const dirent* e = ::readdir(d)) {
      std::string name = e->d_name;
      struct stat st;
      if (name == "." || name == ".." || ::stat((snapshots + "/" + name).c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
        continue;
      }
      bool later = st.st_mtim.tv_sec != newest_time.tv_sec ? st.st_mtim.tv_sec > newest_time.tv_sec
                                                           : st.st_mtim.tv_nsec > newest_time.tv_nsec;
      if (newest.empty() || later) newest = snapshots + "/" + name, newest_time = st.st_mtim;
    }
    ::closedir(d);
  }
  return newest;
}

// weight_map of model.safetensors.index.json: tensor key -> shard file name.
std::map<std::string, std::string> read_shard_index(const std::string& index_path) {
  const nlohmann::json index = read_json_file(index_path, kMaxSmallJsonBytes);
  if (!index.is_object() || !index.contains("weight_map") || !index.at("weight_map").is_object()) {
    fail(index_path, ": expected an object with a \"weight_map\" object (tensor name -> shard file)");
  }
  std::map<std::string, std::string> map;
  const nlohmann::json& weight_map = index.at("weight_map");
  for (auto it = weight_map.begin(); it != weight_map.end(); ++it) {
    const std::string key = text_preview(it.key());
    if (!it->is_string()) fail(index_path, ": weight_map.", key, " is ", json_preview(*it), "; expected a file name");
    std::string file = it->get<std::string>();
    if (file.empty() || file[0] == '/' || file.find("..") != std::string::npos) {
      fail(index_path, ": weight_map.", key, " is \"", text_preview(file),
           "\"; expected a file name inside the directory");
    }
    map[it.key()] = file;
  }
  if (map.empty()) fail(index_path, ": weight_map is empty; expected tensor name -> shard file entries");
  return map;
}

}  // namespace

std::string hf_hub_cache_dir() {
  for (const char* var : {"HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE"}) {
    if (!env(var).empty()) return env(var);
  }
  if (!env("HF_HOME").empty()) return env("HF_HOME") + "/hub";
  if (!env("XDG_CACHE_HOME").empty()) return env("XDG_CACHE_HOME") + "/huggingface/hub";
  return env("HOME") + "/.cache/huggingface/hub";
}

std::string resolve_model_dir(const std::string& name_or_path) {
  struct stat st;
  if (::stat(name_or_path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return name_or_path;
    fail(name_or_path, ": is a file; expected a model directory (config.json, model.safetensors)");
  }
  const std::string how = str_cat(
      "; cpuft does not download models: fetch it where there is network access (e.g. `huggingface-cli "
      "download ", name_or_path, "`, or save_pretrained) and pass that directory to --model_name_or_path");
  if (!looks_like_repo_id(name_or_path)) fail(name_or_path, ": no such directory", how);
  std::string folder;  // ORG/NAME -> ORG--NAME
  for (char ch : name_or_path) folder += ch == '/' ? std::string("--") : std::string(1, ch);
  const std::string repo_dir = hf_hub_cache_dir() + "/models--" + folder;
  if (!is_dir(repo_dir)) {
    fail(name_or_path, ": no such directory, and no Hugging Face cache entry ", repo_dir, how);
  }
  std::string snapshot = pick_snapshot(repo_dir);
  if (snapshot.empty()) fail(name_or_path, ": cache entry ", repo_dir, " has no snapshots/ folder", how);
  return snapshot;
}

std::vector<std::string> find_weight_files(const std::string& dir) {
  if (!is_dir(dir)) fail(dir, ": not a directory");
  if (is_file(dir + "/model.safetensors")) return {dir + "/model.safetensors"};
  const std::string index_path = dir + "/model.safetensors.index.json";
  if (is_file(index_path)) {
    std::set<std::string> shards;
    for (const auto& [key, file] : read_shard_index(index_path)) shards.insert(file);
    std::vector<std::string> files;
    for (const std::string& shard : shards) {
      if (!is_file(dir + "/" + shard))
        fail(index_path, ": names shard \"", text_preview(shard), "\", which is not in ", dir);
      files.push_back(dir + "/" + shard);
    }
    return files;
  }
  if (is_file(dir + "/pytorch_model.bin")) {
    fail(dir, ": has only PyTorch pickle weights (pytorch_model.bin), which cpuft does not read (unpickling can run "
         "code); convert them once with: python -c \"import torch; from safetensors.torch import save_file; "
         "save_file({k: v.contiguous() for k, v in torch.load('", dir, "/pytorch_model.bin', map_location='cpu', "
         "weights_only=True).items()}, '", dir, "/model.safetensors', metadata={'format': 'pt'})\"");
  }
  if (is_file(dir + "/pytorch_model.bin.index.json")) {
    fail(dir, ": has only sharded PyTorch pickle weights (pytorch_model.bin.index.json), which cpuft does not read; "
         "convert them once with: python -c \"from transformers import AutoModel; AutoModel.from_pretrained('", dir,
         "').save_pretrained('", dir, "', safe_serialization=True)\"");
  }
  fail(dir, ": no model.safetensors or model.safetensors.index.json; expected Hugging Face safetensors weights");
}

std::string canonical_param_name(const std::string& key, ModelFamily family) {
  std::string name = key;
  if (ends_with(name, ".gamma")) name = name.substr(0, name.size() - 6) + ".weight";
  if (ends_with(name, ".beta")) name = name.substr(0, name.size() - 5) + ".bias";
  // The task heads' own tensors (docs/tasks.md) carry no base-model prefix.
  for (const char* head : {"qa_outputs.", "classifier.", "pre_classifier."})
    if (starts_with(name, head) && (ends_with(name, ".weight") || ends_with(name, ".bias")) &&
        name.find('.', std::char_traits<char>::length(head)) == std::string::npos)
      return name;
  const bool distil = family == ModelFamily::kDistilBert;
  const std::string prefix = distil ? "distilbert." : "bert.";
  const std::string body = starts_with(name, prefix) ? name.substr(prefix.size()) : name;
  if (body == "embeddings.position_ids") return "";  // a buffer, not a parameter
  if (starts_with(body, "embeddings.") || starts_with(body, distil ? "transformer." : "encoder.") ||
      (!distil && starts_with(body, "pooler."))) {
    return prefix + body;
  }
  return "";
}

WeightFiles::WeightFiles(const std::string& dir, ModelFamily family) : files_(find_weight_files(dir)) {
  std::map<std::string, std::string> key_of;  // canonical name -> the key it came from, for errors
  for (const std::string& file : files_) {
    readers_.push_back(std::make_unique<SafetensorsReader>(file));
    const SafetensorsReader* reader = readers_.back().get();
    for (const StTensorInfo& t : reader->tensors()) {
      std::string name = canonical_param_name(t.name, family);
      if (name.empty()) {
        ignored_.push_back(t.name);
        continue;
      }
      auto [it, inserted] = tensors_.emplace(name, WeightTensor{reader, &t});
      if (!inserted) {
        fail(dir, ": keys '", text_preview(it->second.info->name), "' (", it->second.reader->path(), ") and '",
             text_preview(t.name), "' (", file, ") both map to parameter '", name, "'; expected one");
      }
    }
  }
  const std::string index_path = dir + "/model.safetensors.index.json";
  if (files_.size() == 1 && ends_with(files_[0], "/model.safetensors")) return;
  for (const auto& [key, shard] : read_shard_index(index_path)) {
    const std::string path = dir + "/" + shard;
    auto reader = std::find_if(readers_.begin(), readers_.end(), [&](const auto& r) { return r->path() == path; });
    if ((*reader)->find(key) == nullptr) {
      fail(index_path, ": weight_map puts '", text_preview(key), "' in ", text_preview(shard),
           ", which holds no such tensor");
    }
  }
}

const WeightTensor* WeightFiles::find(const std::string& canonical_name) const {
  auto it = tensors_.find(canonical_name);
  return it == tensors_.end() ? nullptr : &it->second;
}

}  // namespace cpuft
