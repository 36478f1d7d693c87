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

std::vector<int64_t> length_grouped_order(const std::vector<int64_t>& order, const std::vector<int32_t>& lengths,
                                          int64_t batch_size) {
  const int64_t n = static_cast<int64_t>(order.size());
  if (n == 0) return {};
  const int64_t mult = std::max<int64_t>(1, std::min<int64_t>(n / (batch_size * 4), 50));
  const int64_t mega = mult * batch_size;
  std::vector<int64_t> out(order);
  auto length = [&](int64_t i) { return lengths.at(static_cast<size_t>(i)); };
  // sorted(megabatch, key=length, reverse=True): stable, so equal lengths keep their order.
  for (int64_t at = 0; at < n; at += mega)
    std::stable_sort(out.begin() + at, out.begin() + std::min(n, at + mega),
                     [&](int64_t a, int64_t b) { return length(a) > length(b); });
  // The first megabatch whose maximum (its first element) is the largest (torch.argmax: the first).
  int64_t longest = 0;
  for (int64_t at = 0; at < n; at += mega)
    if (length(out[static_cast<size_t>(at)]) > length(out[static_cast<size_t>(longest)])) longest = at;
  std::swap(out[0], out[static_cast<size_t>(longest)]);
  return out;
}

Sampler::Sampler(const SamplerOptions& options) : opt_(options) {
  if (opt_.num_features < 1) fail("sampler: num_features = ", opt_.num_features, ", expected at least 1");
  if (opt_.per_device_batch < 1) fail("sampler: per_device_batch = ", opt_.per_device_batch, ", expected at least 1");
  if (opt_.world_size < 1) fail("sampler: world_size = ", opt_.world_size, ", expected at least 1");
  if (opt_.rank < 0 || opt_.rank >= opt_.world_size) {
    fail("sampler: rank = ", opt_.rank, ", expected 0 <= rank < world_size = ", opt_.world_size);
  }
  if (!opt_.lengths.empty() && static_cast<int64_t>(opt_.lengths.size()) != opt_.num_features)
    fail("sampler: ", opt_.lengths.size(), " lengths, expected one per feature (", opt_.num_features, ")");
  if (!opt_.lengths.empty() && opt_.group_batch < 1)
    fail("sampler: group_batch = ", opt_.group_batch, ", expected at least 1");
}

int64_t Sampler::batches_per_epoch() const {
  const int64_t global = opt_.per_device_batch * opt_.world_size;
  return (opt_.num_features + global - 1) / global;
}

std::vector<int64_t> Sampler::epoch_order(int64_t epoch) const {
  if (epoch < 0) fail("sampler: epoch = ", epoch, ", expected >= 0");
  std::vector<int64_t> order = torch_randperm(opt_.num_features, opt_.seed + static_cast<uint64_t>(epoch));
  if (opt_.lengths.empty()) return order;
  return length_grouped_order(order, opt_.lengths, opt_.group_batch);
}

const std::vector<int64_t>& Sampler::order_of(int64_t epoch, int64_t step) const {
  if (epoch < 0) fail("sampler: epoch = ", epoch, ", expected >= 0");
  if (step < 0 || step >= batches_per_epoch()) {
    fail("sampler: step = ", step, ", expected 0 <= step < ", batches_per_epoch(), " (batches per epoch)");
  }
  if (epoch != cached_epoch_) {
    cached_order_ = epoch_order(epoch);
    cached_epoch_ = epoch;
  }
  return cached_order_;
}

std::vector<int64_t> Sampler::global_batch(int64_t epoch, int64_t step) const {
  const std::vector<int64_t>& order = order_of(epoch, step);
  const int64_t global = opt_.per_device_batch * opt_.world_size;
  const int64_t start = step * global, m = std::min(global, opt_.num_features - start);
  return std::vector<int64_t>(order.begin() + start, order.begin() + start + m);
}

std::vector<int64_t> Sampler::batch(int64_t epoch, int64_t step) const {
  const std::vector<int64_t>& order = order_of(epoch, step);
  const int64_t n = opt_.num_features, R = opt_.world_size, r = opt_.rank;
  const int64_t start = step * opt_.per_device_batch * R;
  const int64_t m = std::min(opt_.per_device_batch * R, n - start);
  return std::vector<int64_t>(order.begin() + start + r * m / R, order.begin() + start + (r + 1) * m / R);
}

}  // namespace cpuft
