// Dropout site numbers: each dropout in the network draws its mask from (seed, site, element), so
// every site needs its own number. Forward and backward name the same sites.
#pragma once

#include <cstdint>

namespace cpuft::dropout_site {

constexpr uint64_t kEmbeddings = 1;
constexpr uint64_t kHeadInput = 2;        // before qa_outputs or classifier (every token)
constexpr uint64_t kClassifierInput = 3;  // before a sequence head's classifier (its first-token rows)
inline uint64_t attention(int64_t layer) { return 16 + 4 * static_cast<uint64_t>(layer); }
inline uint64_t attention_output(int64_t layer) { return 17 + 4 * static_cast<uint64_t>(layer); }
inline uint64_t ffn_output(int64_t layer) { return 18 + 4 * static_cast<uint64_t>(layer); }

}  // namespace cpuft::dropout_site
