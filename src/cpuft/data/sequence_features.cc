#include "cpuft/data/sequence_features.h"

#include <algorithm>

#include "cpuft/util/error.h"
#include "cpuft/util/memory.h"
#include "cpuft/util/read_file.h"

namespace cpuft {
namespace {

// Bytes a text of n bytes may take while it is tokenised (code points, normalised copy, tokens).
constexpr uint64_t kTokenizeBytesPerByte = 24;

std::vector<int32_t> token_ids(const Tokenizer& tokenizer, const std::string& text, const TextExample& ex) {
  if (text.size() > (size_t{1} << 20))
    check_fits_in_memory(text.size() * kTokenizeBytesPerByte,
                         str_cat("line ", ex.line, ": tokenising a text of ", format_bytes(text.size())));
  try {
    return tokenizer.encode(text).ids;
  } catch (const Error& e) {
    fail("line ", ex.line, ": ", e.what());
  }
}

}  // namespace

void longest_first_lengths(size_t n_a, size_t n_b, size_t budget, size_t* keep_a, size_t* keep_b) {
  if (n_a + n_b <= budget) {
    *keep_a = n_a, *keep_b = n_b;
    return;
  }
  const bool swap = n_a > n_b;
  size_t n1 = swap ? n_b : n_a;  // the shorter
  size_t n2 = swap ? n_a : n_b;
  n2 = n1 > budget ? n1 : std::max(n1, budget - n1);
  if (n1 + n2 > budget) {
    n1 = budget / 2;
    n2 = n1 + budget % 2;
  }
  if (swap) std::swap(n1, n2);
  *keep_a = std::min(n_a, n1);
  *keep_b = std::min(n_b, n2);
}

std::vector<SequenceFeature> build_sequence_features(const std::vector<TextExample>& examples, bool pairs,
                                                     const Tokenizer& tokenizer, const SequenceFeatureOptions& options) {
  const int specials = pairs ? 3 : 2;
  if (options.max_seq_length < specials)
    fail("max_seq_length ", options.max_seq_length, " cannot hold the ", specials, " special tokens of ",
         pairs ? "a sentence pair" : "a sentence", ", expected at least ", specials);
  const auto max_len = static_cast<size_t>(options.max_seq_length);
  const size_t budget = max_len - static_cast<size_t>(specials);
  check_fits_in_memory(static_cast<uint64_t>(examples.size()) * (max_len * 6 + sizeof(SequenceFeature)),
                       str_cat(examples.size(), " features of up to ", max_len, " tokens"));
  std::vector<SequenceFeature> out;
  out.reserve(examples.size());
  for (const TextExample& ex : examples) {
    std::vector<int32_t> a = token_ids(tokenizer, ex.text_a, ex);
    std::vector<int32_t> b;
    if (pairs) b = token_ids(tokenizer, ex.text_b, ex);
    size_t keep_a = std::min(a.size(), budget), keep_b = 0;
    if (pairs) longest_first_lengths(a.size(), b.size(), budget, &keep_a, &keep_b);
    SequenceFeature f;
    const size_t used = keep_a + keep_b + static_cast<size_t>(specials);
    const size_t length = options.pad_to_max_length ? max_len : used;
    f.input_ids.reserve(length);
    f.input_ids.push_back(tokenizer.cls_id());
    f.input_ids.insert(f.input_ids.end(), a.begin(), a.begin() + static_cast<std::ptrdiff_t>(keep_a));
    f.input_ids.push_back(tokenizer.sep_id());
    f.token_type_ids.assign(f.input_ids.size(), 0);
    if (pairs) {
      f.input_ids.insert(f.input_ids.end(), b.begin(), b.begin() + static_cast<std::ptrdiff_t>(keep_b));
      f.input_ids.push_back(tokenizer.sep_id());
      f.token_type_ids.resize(f.input_ids.size(), 1);
    }
    f.attention_mask.assign(f.input_ids.size(), 1);
    f.input_ids.resize(length, tokenizer.pad_id());
    f.token_type_ids.resize(length, 0);
    f.attention_mask.resize(length, 0);
    f.label = ex.label;
    f.target = ex.target;
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace cpuft
