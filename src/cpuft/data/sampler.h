// Training data order: torch's seeded randperm per epoch, cut into batches, shared across ranks
// (docs/parity.md, Training).
//
// Epoch e uses randperm(num_features) from an MT19937 seeded with seed + e (Accelerate's
// SeedableRandomSampler; torch's CPU randperm for n < 2^32/20).
//
// Sharding rule of cpuft (ShardRule::kGlobalBatch): step s of an epoch consumes the GLOBAL batch
// perm[s*G, min((s+1)*G, n)) with G = per_device_batch * world_size; rank r takes the contiguous
// slice [floor(r*m/R), floor((r+1)*m/R)) of it, m being the global batch's length (m = G except for
// the last, short batch, which is split as evenly as possible; a rank may then get fewer rows, even
// none, so the trainer must normalise the loss by the global row count m, not the local one). The
// sequence of global batches depends only on (seed, n, G), so R ranks x batch b trains exactly
// like 1 rank x batch R*b, up to summation order. Steps per epoch: ceil(n / G).
//
// ShardRule::kAccelerate reproduces what the HF Trainer does under torchrun (Accelerate's
// BatchSamplerShard, split_batches false, even_batches true): batches of size b are dealt to ranks
// round-robin (batch j to rank j mod R); the last round is completed by cycling indices from the
// start of the epoch's order, so every rank gets ceil(ceil(n / b) / R) full batches.
//
// Resuming: batch(epoch, step) is a pure function, so a run restarted at (epoch, step) continues
// exactly where it stopped.
#pragma once

#include <cstdint>
#include <vector>

namespace cpuft {

// torch.randperm(n, generator=torch.Generator().manual_seed(seed)) for n < 2^32 / 20.
std::vector<int64_t> torch_randperm(int64_t n, uint64_t seed);

enum class ShardRule { kGlobalBatch, kAccelerate };

struct SamplerOptions {
  int64_t num_features = 0;
  int64_t per_device_batch = 8;
  uint64_t seed = 42;  // data_seed, else the run seed
  int world_size = 1;
  int rank = 0;
  ShardRule rule = ShardRule::kGlobalBatch;
};

class Sampler {
 public:
  // Throws cpuft::Error on an empty data set, a batch size < 1 or a rank outside [0, world_size).
  explicit Sampler(const SamplerOptions& options);

  // Optimizer steps in one epoch (the same on every rank).
  int64_t steps_per_epoch() const;

  // The feature indices this rank trains on at (epoch, step); throws if step >= steps_per_epoch().
  // Not thread-safe: it caches the order of the last epoch asked for.
  std::vector<int64_t> batch(int64_t epoch, int64_t step) const;

  // The whole epoch's order (randperm with seed + epoch).
  std::vector<int64_t> epoch_order(int64_t epoch) const;

  const SamplerOptions& options() const { return opt_; }

 private:
  std::vector<int64_t> accelerate_batch(const std::vector<int64_t>& order, int64_t step) const;

  SamplerOptions opt_;
  // The order of the last epoch asked for, reused for consecutive steps of the same epoch.
  mutable int64_t cached_epoch_ = -1;
  mutable std::vector<int64_t> cached_order_;
};

}  // namespace cpuft
