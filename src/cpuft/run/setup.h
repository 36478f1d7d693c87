// What every cpuft command that runs the model sets up first: threads pinned to this rank's cores,
// the model directory resolved, the tokenizer and the model loaded (weights broadcast from rank 0).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cpuft/cpu/placement.h"
#include "cpuft/dist/communicator.h"
#include "cpuft/flags/train_args.h"
#include "cpuft/model/qa_model.h"
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

// Loads tokenizer and model; `weights_dir` (a checkpoint being resumed) replaces the model's weights.
// Notices (ignored tensors, a freshly initialised qa_outputs) and warnings (NaN / infinite weights)
// are printed by rank 0 only. A tokenizer with ids beyond the config's vocab_size is an error naming
// both.
LoadedModel load_model(const TrainArgs& args, Communicator& comm, const std::string& weights_dir = "");

// Reserves the activation arena for batches of `batch` windows of --max_seq_length tokens, after
// checking that the step (weights, activations and, when training, gradients and AdamW moments) fits
// in this machine's memory; the error names `batch_flag` and the sizes. Returns the arena's bytes.
size_t reserve_activations(QaModel& model, const TrainArgs& args, int64_t batch, bool training,
                           const char* batch_flag);

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
