#include "cpuft/data/sampler.h"

#include <algorithm>
#include <random>
#include <utility>

#include "cpuft/util/error.h"

namespace cpuft {

std::vector<int64_t> torch_randperm(int64_t n, uint64_t seed) {
  // torch seeds its CPU MT19937 with the low 32 bits of the seed; draws are 32-bit below 2^32/20.
  if (n < 0 || n >= (int64_t{1} << 32) / 20) fail("randperm: n = ", n, ", expected 0 <= n < 2^32/20");
  std::mt19937 gen(static_cast<uint32_t>(seed));
  std::vector<int64_t> perm(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) perm[i] = i;
  for (int64_t i = 0; i + 1 < n; ++i) {
    const int64_t z = static_cast<int64_t>(gen() % static_cast<uint32_t>(n - i));
    std::swap(perm[i], perm[i + z]);
  }
  return perm;
}

Sampler::Sampler(const SamplerOptions& options) : opt_(options) {
  if (opt_.num_features < 1) fail("sampler: num_features = ", opt_.num_features, ", expected at least 1");
  if (opt_.per_device_batch < 1) fail("sampler: per_device_batch = ", opt_.per_device_batch, ", expected at least 1");
  if (opt_.world_size < 1) fail("sampler: world_size = ", opt_.world_size, ", expected at least 1");
  if (opt_.rank < 0 || opt_.rank >= opt_.world_size) {
    fail("sampler: rank = ", opt_.rank, ", expected 0 <= rank < world_size = ", opt_.world_size);
  }
}

int64_t Sampler::steps_per_epoch() const {
  // ceil(n / (b R)) = ceil(ceil(n / b) / R): both rules take the same number of steps.
  const int64_t global = opt_.per_device_batch * opt_.world_size;
  return (opt_.num_features + global - 1) / global;
}

std::vector<int64_t> Sampler::epoch_order(int64_t epoch) const {
  if (epoch < 0) fail("sampler: epoch = ", epoch, ", expected >= 0");
  return torch_randperm(opt_.num_features, opt_.seed + static_cast<uint64_t>(epoch));
}

std::vector<int64_t> Sampler::batch(int64_t epoch, int64_t step) const {
  if (epoch < 0) fail("sampler: epoch = ", epoch, ", expected >= 0");
  if (step < 0 || step >= steps_per_epoch()) {
    fail("sampler: step = ", step, ", expected 0 <= step < ", steps_per_epoch(), " (steps per epoch)");
  }
  if (epoch != cached_epoch_) {
    cached_order_ = epoch_order(epoch);
    cached_epoch_ = epoch;
  }
  const std::vector<int64_t>& order = cached_order_;
  if (opt_.rule == ShardRule::kAccelerate) return accelerate_batch(order, step);
  const int64_t n = opt_.num_features, R = opt_.world_size, r = opt_.rank;
  const int64_t start = step * opt_.per_device_batch * R;
  const int64_t m = std::min(opt_.per_device_batch * R, n - start);
  return std::vector<int64_t>(order.begin() + start + r * m / R, order.begin() + start + (r + 1) * m / R);
}

std::vector<int64_t> Sampler::accelerate_batch(const std::vector<int64_t>& order, int64_t step) const {
  const int64_t n = opt_.num_features, b = opt_.per_device_batch, R = opt_.world_size;
  const int64_t num_batches = (n + b - 1) / b;
  const int64_t short_len = n % b;  // length of a short last batch, 0 when the last batch is full
  const int64_t j = step * R + opt_.rank;
  auto at = [&](int64_t i) { return order.begin() + i; };
  if (j < num_batches && !(j == num_batches - 1 && short_len > 0)) {
    return std::vector<int64_t>(at(j * b), at(std::min(n, (j + 1) * b)));
  }
  // The last round is completed from the first R batches of the epoch, repeated while shorter than
  // R * b (tiny data sets); a short last batch is topped up first, later batches continue the cycle.
  std::vector<int64_t> initial(order.begin(), at(std::min(n, R * b)));
  while (static_cast<int64_t>(initial.size()) < R * b) {
    const size_t size = initial.size();
    for (size_t i = 0; i < size; ++i) initial.push_back(initial[i]);
  }
  auto cycle = [&](int64_t from, int64_t count) {
    return std::vector<int64_t>(initial.begin() + from, initial.begin() + from + count);
  };
  if (j == num_batches - 1) {  // the short last batch
    std::vector<int64_t> out(at(j * b), order.end());
    const std::vector<int64_t> fill = cycle(0, b - short_len);
    out.insert(out.end(), fill.begin(), fill.end());
    return out;
  }
  const int64_t first = (short_len > 0 ? b - short_len : 0) + (j - num_batches) * b;
  return cycle(first, b);
}

}  // namespace cpuft
