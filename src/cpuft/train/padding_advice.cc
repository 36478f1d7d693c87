#include "cpuft/train/padding_advice.h"

#include <algorithm>
#include <cmath>

#include "cpuft/data/batch.h"
#include "cpuft/util/error.h"

namespace cpuft {

EpochPositions epoch_positions(const std::vector<Feature>& features, const std::vector<int64_t>& order, int64_t batch,
                               bool stored) {
  EpochPositions p;
  for (size_t b = 0; b < order.size(); b += static_cast<size_t>(batch)) {
    const size_t end = std::min(order.size(), b + static_cast<size_t>(batch));
    int64_t own = 0;  // the longest feature_length: what the batch stored at its own lengths pads to
    for (size_t i = b; i < end; ++i) {
      const int64_t real = feature_length(features.at(static_cast<size_t>(order[i])));
      own = std::max(own, real);
      p.real += real;
    }
    // As stored, the batch pads to what the trainer pads it to (data/batch.h).
    const int64_t longest = stored ? longest_feature(features, order, b, end) : own;
    p.computed += longest * static_cast<int64_t>(end - b);
  }
  return p;
}

std::string padding_advice(const std::vector<Feature>& features, const SamplerOptions& sampler, int64_t global_batch,
                           int64_t group_batch, bool pad_to_max_length, bool group_by_length, const std::string& unit) {
  if (!pad_to_max_length && group_by_length) return "";
  const EpochPositions now = epoch_positions(features, Sampler(sampler).epoch_order(0), global_batch, true);
  SamplerOptions grouped = sampler;
  grouped.lengths.clear();
  for (const Feature& f : features) grouped.lengths.push_back(feature_length(f));
  grouped.group_batch = group_batch;
  const EpochPositions then = epoch_positions(features, Sampler(grouped).epoch_order(0), global_batch, false);
  const double fewer = then.computed > 0 ? static_cast<double>(now.computed) / then.computed : 1.0;
  if (now.padding_share() < 0.25 || fewer < 1.25) return "";
  const char* flags = !pad_to_max_length ? "--group_by_length"
                      : group_by_length  ? "--pad_to_max_length false"
                                         : "--pad_to_max_length false --group_by_length";
  size_t stored = 0;
  for (const Feature& f : features) stored = std::max(stored, f.input_ids.size());
  const std::string padded = pad_to_max_length ? str_cat("every ", unit, " padded to --max_seq_length ", stored)
                                               : str_cat("each batch padded to its longest ", unit);
  return str_cat(std::lround(100 * now.padding_share()), "% of the positions an epoch computes are padding (", padded,
                 "); ", flags, " would compute ", std::lround(10 * fewer) / 10.0, "x fewer (",
                 std::lround(100 * then.padding_share()), "% padding; other batches, so other numbers)");
}

}  // namespace cpuft
