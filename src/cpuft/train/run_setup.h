// What every cpuft command that runs the model sets up first: threads pinned to this rank's cores,
// the model directory resolved, the tokenizer and the model loaded (weights broadcast from rank 0).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cpuft/cpu/placement.h"
#include "cpuft/dist/communicator.h"
#include "cpuft/dist/grad_buckets.h"
#include "cpuft/model/qa_model.h"
#include "cpuft/text/tokenizer.h"
#include "cpuft/train/train_args.h"

namespace cpuft {

// Plans and pins this rank's OpenMP threads (cpu/placement.h); returns this rank's placement (its
// thread CPUs and spare CPUs). `threads` 0 means one per physical core of this rank's share of the
// node (or OMP_NUM_THREADS when set).
RankPlacement configure_threads(int threads, Communicator& comm);


// The model's word-embedding table as a row-sparse region of its gradient arena (dist/grad_buckets.h):
// only the rows of the step's tokens are summed over ranks.
SparseRegion word_embedding_rows(const QaModel& model);

struct LoadedModel {
  std::string model_dir;      // resolved directory of --model_name_or_path
  std::string tokenizer_dir;  // resolved directory of --tokenizer_name, else model_dir
  std::unique_ptr<Tokenizer> tokenizer;
  std::unique_ptr<QaModel> model;
};

// Loads tokenizer and model; `weights_dir` (a checkpoint being resumed) replaces the model's weights.
// Notices (ignored tensors, a freshly initialised qa_outputs) are printed by rank 0 only.
LoadedModel load_model(const TrainArgs& args, Communicator& comm, const std::string& weights_dir = "");

// Copies the tokenizer files into `dir` (so transformers loads the tokenizer from a cpuft output).
void copy_tokenizer_files(const Tokenizer& tokenizer, const std::string& dir);

}  // namespace cpuft
