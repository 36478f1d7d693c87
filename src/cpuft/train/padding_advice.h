// How much of a training epoch is padding, and the one-line advice when the batching flags would
// compute much less of it: training pads each batch to its longest window (all --max_seq_length
// with --pad_to_max_length, run_qa's default), and SQuAD windows are about half padding there.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cpuft/data/features.h"
#include "cpuft/data/sampler.h"

namespace cpuft {

// The positions one epoch computes when `order` is cut into batches of `batch` features (the last one
// short), each batch padded to its longest window as training pads it: the longest as stored (`stored`),
// or as --pad_to_max_length false would store them (feature_length); and the real tokens among them.
struct EpochPositions {
  int64_t computed = 0;
  int64_t real = 0;
  double padding_share() const { return computed > 0 ? 1.0 - static_cast<double>(real) / computed : 0.0; }
};
EpochPositions epoch_positions(const std::vector<Feature>& features, const std::vector<int64_t>& order, int64_t batch,
                               bool stored);

// What the run's batching computes against --pad_to_max_length false with --group_by_length (each
// feature at its own length, batches of similar lengths), both over epoch 0: `sampler` is the run's,
// global_batch its per-device batch x world size and group_batch the batch its length groups are made
// of (the total train batch size). Empty when the run pads little (under 25% of its positions) or those
// flags would not save a fifth of them; else one sentence naming the flags to pass, which calls a
// feature `unit` ("window" for question answering, "sequence" for classification). They give other
// batches, so other numbers, as they do in the Trainer.
std::string padding_advice(const std::vector<Feature>& features, const SamplerOptions& sampler, int64_t global_batch,
                           int64_t group_batch, bool pad_to_max_length, bool group_by_length, const std::string& unit);

}  // namespace cpuft
