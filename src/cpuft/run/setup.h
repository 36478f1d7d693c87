// What every cpuft command that runs the model sets up first: threads pinned to this rank's cores,
// the model directory resolved, the tokenizer and the model loaded (weights broadcast from rank 0).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cpuft/cpu/placement.h"
#include "cpuft/flags/train_args.h"
#include "cpuft/model/qa_model.h"
#include "cpuft/parallel/communicator.h"
#include "cpuft/text/tokenizer.h"
#include "cpuft/util/dir_lock.h"

namespace cpuft {

// Plans and pins this rank's OpenMP threads (cpu/placement.h); returns this rank's placement (its
// thread CPUs and spare CPUs). `threads` 0 means one per physical core of this rank's share of the
// node (or OMP_NUM_THREADS when set); more than the machine's logical CPUs is an error naming --threads.
RankPlacement configure_threads(int threads, Communicator& comm);

struct LoadedModel {
  std::string model_dir;      // resolved directory of --model_name_or_path
  std::string tokenizer_dir;  // resolved directory of --tokenizer_name, else model_dir
  std::unique_ptr<Tokenizer> tokenizer;
  std::unique_ptr<QaModel> model;
};

// What load_model needs to know, from the flags of train / evaluate / predict (model_source).
struct ModelSource {
  std::string model_name_or_path;  // a model directory or a repo id in the Hugging Face cache
  std::string tokenizer_name;      // empty: the model's own tokenizer files
  bool bf16 = false;
  uint64_t seed = 42;              // draws a qa_outputs the directory does not have
  bool training = true;            // an int8 directory (cpuft quantize) loads only when false
  int64_t max_seq_length = 384;    // must fit the model's max_position_embeddings
  // The head to train (a classification task's labels); unset: the one config.json names.
  std::optional<HeadSpec> head;
};
ModelSource model_source(const TrainArgs& args);

// Loads tokenizer and model; `weights_dir` (a checkpoint being resumed) replaces the model's weights.
// Notices (ignored tensors, a freshly initialised qa_outputs) and warnings (NaN / infinite weights)
// are printed by rank 0 only. A tokenizer with ids beyond the config's vocab_size is an error naming
// both.
LoadedModel load_model(const ModelSource& source, Communicator& comm, const std::string& weights_dir = "");

// Reserves the activation arena for batches of `batch` windows of `seq_len` tokens, after checking
// that the step (weights, activations and, when training, gradients and AdamW moments) fits in this
// machine's memory; the error names `batch_flag`, `seq_flag` and the sizes. Returns the arena's bytes.
size_t reserve_activations(QaModel& model, int64_t batch, int64_t seq_len, bool training, const char* batch_flag,
                           const char* seq_flag = "--max_seq_length");

// mkdir -p for an output directory; a one-line error naming --output_dir when it cannot be made or
// nothing can be written in it (checked before any work, not at the first save).
void create_output_dir(const std::string& dir);

// create_output_dir, then the directory's lock (util/dir_lock.h), held until the returned object goes:
// taken by the command that writes results there (train, evaluate, predict --test_file) before it
// writes anything. Another process holding it is a one-line error naming --output_dir and that process.
DirLock lock_output_dir(const std::string& dir);

// Copies the tokenizer files into `dir` (so transformers loads the tokenizer from a cpuft output).
void copy_tokenizer_files(const Tokenizer& tokenizer, const std::string& dir);

}  // namespace cpuft
