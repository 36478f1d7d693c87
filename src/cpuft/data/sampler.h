// Training data order: torch's seeded randperm per epoch (optionally grouped by length), cut into
// global batches shared across ranks (docs/parity.md, Training).
//
// Epoch e uses randperm(num_features) from an MT19937 seeded with seed + e (Accelerate's
// SeedableRandomSampler; torch's CPU randperm for n < 2^32/20).
//
// --group_by_length (SamplerOptions::lengths set): that permutation is reordered as the Trainer's
// LengthGroupedSampler does (transformers' get_length_grouped_indices): megabatches of
// group_batch x min(50, n / (4 x group_batch)) (at least one batch) consecutive indices, each sorted
// by decreasing length (stably), and the megabatch holding the longest feature swaps its first
// index with the first megabatch's, so that the longest batch comes first (an out-of-memory error
// shows at once). The Trainer draws that permutation from torch's global generator, whose state
// depends on everything the process drew before; cpuft uses its own seeded permutation, so the
// grouping is the Trainer's and the permutation is cpuft's.
//
// Sharding: step s of an epoch consumes the GLOBAL batch perm[s*G, min((s+1)*G, n)) with
// G = per_device_batch * world_size; rank r takes the contiguous slice [floor(r*m/R), floor((r+1)*m/R))
// of it, m being the global batch's length (m = G except for the last, short batch, which is split as
// evenly as possible; a rank may then get fewer rows, even none, so the trainer must normalise the
// loss by the global row count m, not the local one). The sequence of global batches depends only on
// (seed, n, G, lengths), so R ranks x batch b trains exactly like 1 rank x batch R*b, up to summation
// order. Batches per epoch: ceil(n / G).
//
// Resuming: batch(epoch, step) is a pure function, so a run restarted at (epoch, step) continues
// exactly where it stopped.
#pragma once

#include <cstdint>
#include <vector>

namespace cpuft {

// torch.randperm(n, generator=torch.Generator().manual_seed(seed)) for n < 2^32 / 20.
std::vector<int64_t> torch_randperm(int64_t n, uint64_t seed);

// transformers' get_length_grouped_indices(lengths, batch_size) applied to the permutation `order`
// (what it draws with torch.randperm first); see above.
std::vector<int64_t> length_grouped_order(const std::vector<int64_t>& order, const std::vector<int32_t>& lengths,
                                          int64_t batch_size);

struct SamplerOptions {
  int64_t num_features = 0;
  int64_t per_device_batch = 8;
  uint64_t seed = 42;  // data_seed, else the run seed
  int world_size = 1;
  int rank = 0;
  // --group_by_length: each feature's length (num_features of them), and the batch the megabatches
  // are made of (the Trainer's train_batch_size x gradient_accumulation_steps: here the global batch
  // x accumulation steps). Empty: plain randperm order.
  std::vector<int32_t> lengths;
  int64_t group_batch = 0;
};

class Sampler {
 public:
  // Throws cpuft::Error on an empty data set, a batch size < 1, a rank outside [0, world_size) or
  // lengths that are not one per feature.
  explicit Sampler(const SamplerOptions& options);

  // Micro-batches in one epoch (the same on every rank): ceil(n / G).
  int64_t batches_per_epoch() const;

  // The feature indices this rank trains on at (epoch, step); throws if step >= batches_per_epoch().
  // Not thread-safe: it caches the order of the last epoch asked for.
  std::vector<int64_t> batch(int64_t epoch, int64_t step) const;
  // The whole global batch of (epoch, step), every rank's slice in rank order.
  std::vector<int64_t> global_batch(int64_t epoch, int64_t step) const;

  // The whole epoch's order (randperm with seed + epoch, grouped by length when asked).
  std::vector<int64_t> epoch_order(int64_t epoch) const;

  const SamplerOptions& options() const { return opt_; }

 private:
  const std::vector<int64_t>& order_of(int64_t epoch, int64_t step) const;

  SamplerOptions opt_;
  // The order of the last epoch asked for, reused for consecutive steps of the same epoch.
  mutable int64_t cached_epoch_ = -1;
  mutable std::vector<int64_t> cached_order_;
};

}  // namespace cpuft
