// Hugging Face model directories: resolving --model_name_or_path (a local directory or a repo id in
// the local hub cache; cpuft never downloads), finding the weight files, and the stored-key
// canonicalisation the model loader uses (docs/parity.md, Model and Files).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cpuft/io/hf_config.h"
#include "cpuft/io/safetensors.h"

namespace cpuft {

// The hub cache folder: $HF_HUB_CACHE, else $HUGGINGFACE_HUB_CACHE, else $HF_HOME/hub, else
// $XDG_CACHE_HOME/huggingface/hub, else ~/.cache/huggingface/hub (as huggingface_hub decides).
std::string hf_hub_cache_dir();

// An existing local directory is returned as given. Otherwise `name_or_path` is read as a repo id
// ORG/NAME or NAME and looked up as <cache>/models--ORG--NAME/snapshots/REV with REV from
// refs/main, else the only snapshot, else the most recently modified one. Throws cpuft::Error when
// nothing is found, saying that cpuft cannot download and how to pass a local directory.
std::string resolve_model_dir(const std::string& name_or_path);

// The safetensors files holding a directory's weights: model.safetensors, or every shard named by
// model.safetensors.index.json (sorted, each once). Throws cpuft::Error when the directory has
// only PyTorch pickles (with a one-line conversion command) or no weights at all.
std::vector<std::string> find_weight_files(const std::string& dir);

// Maps a stored tensor key to the canonical HF name of an encoder of this family (with "distilbert."/
// "bert." prefix, BERT's pooler included; LayerNorm.gamma/beta -> weight/bias) or of a task head
// (qa_outputs.*, pre_classifier.*, classifier.*), or "" when the key is to be ignored (cls.*, vocab_*,
// position_ids, ...).
std::string canonical_param_name(const std::string& key, ModelFamily family);

struct WeightTensor {
  const SafetensorsReader* reader = nullptr;
  const StTensorInfo* info = nullptr;  // info->name is the key as stored in the file
};

// Every weight file of a model directory, opened, with its tensors under their canonical names.
class WeightFiles {
 public:
  // Throws cpuft::Error when two keys map to the same canonical name, or when a sharded index
  // names a tensor that its shard does not hold.
  WeightFiles(const std::string& dir, ModelFamily family);

  const std::map<std::string, WeightTensor>& tensors() const { return tensors_; }
  const WeightTensor* find(const std::string& canonical_name) const;  // nullptr if absent
  const std::vector<std::string>& ignored_keys() const { return ignored_; }  // keys mapped to ""
  const std::vector<std::string>& files() const { return files_; }

 private:
  std::vector<std::string> files_;
  std::vector<std::unique_ptr<SafetensorsReader>> readers_;
  std::map<std::string, WeightTensor> tensors_;
  std::vector<std::string> ignored_;
};

}  // namespace cpuft
