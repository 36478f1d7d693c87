#include "cpuft/data/feature_builder.h"

#include <algorithm>
#include <exception>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "cpuft/text/unicode_class.h"
#include "cpuft/text/utf8.h"
#include "cpuft/util/error.h"
#include "cpuft/util/json_read.h"

namespace cpuft {
namespace {

using Encoding = Tokenizer::Encoding;

struct Window {
  size_t begin = 0;  // context tokens [begin, end)
  size_t end = 0;
};

// tokenizers' only_second truncation with stride (docs/parity.md, Features): windows of W = M - 3 - q
// context tokens, each starting W - stride after the previous, until one reaches the end.
std::vector<Window> context_windows(const Example& example, size_t q, size_t c, const FeatureOptions& options) {
  const size_t budget = static_cast<size_t>(options.max_seq_length) - 3;
  if (q + c <= budget) return {{0, c}};
  const size_t to_remove = q + c - budget;
  const auto stride = static_cast<size_t>(options.doc_stride);
  if (c <= to_remove || c - to_remove <= stride) {
    // A question longer than the budget was tokenised only that far (encode_prefix).
    fail("example '", text_preview(example.id), "': the question has ",
         q > budget ? str_cat("more than ", budget) : str_cat(q), " tokens, which leaves ",
         c > to_remove ? c - to_remove : 0, " context tokens per window of max_seq_length ", options.max_seq_length,
         ", expected more than doc_stride ", stride, " (Hugging Face tokenizers fails on this example too)");
  }
  const size_t width = c - to_remove;
  std::vector<Window> windows;
  for (size_t start = 0;; start += width - stride) {
    const size_t end = std::min(start + width, c);
    windows.push_back({start, end});
    if (end == c) break;
  }
  return windows;
}

// input_ids, token_type_ids and attention_mask of [CLS] q [SEP] c[window] [SEP] + padding.
Feature make_feature(const Encoding& question, const Encoding& context, Window w, const Tokenizer& tokenizer,
                     const FeatureOptions& options) {
  const size_t q = question.ids.size();
  const size_t length = q + (w.end - w.begin) + 3;
  const size_t padded = options.pad_to_max_length ? static_cast<size_t>(options.max_seq_length) : length;
  Feature f;
  f.input_ids.assign(padded, tokenizer.pad_id());
  f.token_type_ids.assign(padded, 0);
  f.attention_mask.assign(padded, 0);
  f.input_ids[0] = tokenizer.cls_id();
  std::copy(question.ids.begin(), question.ids.end(), f.input_ids.begin() + 1);
  f.input_ids[q + 1] = tokenizer.sep_id();
  std::copy(context.ids.begin() + w.begin, context.ids.begin() + w.end, f.input_ids.begin() + q + 2);
  f.input_ids[length - 1] = tokenizer.sep_id();
  std::fill(f.token_type_ids.begin() + q + 2, f.token_type_ids.begin() + length, 1);
  std::fill(f.attention_mask.begin(), f.attention_mask.begin() + length, 1);
  return f;
}

// prepare_train_features' labels, on the offsets the fast tokenizer returns for the whole feature
// (question offsets, (0,0) for special tokens and padding), including its scans past the context.
void set_train_labels(Feature& f, const Example& example, const Encoding& question, const Encoding& context, Window w) {
  if (example.answers.empty()) return;  // (cls_index, cls_index) = (0, 0)
  const size_t q = question.ids.size();
  std::vector<TokenOffset> offsets(f.input_ids.size());
  std::copy(question.offsets.begin(), question.offsets.end(), offsets.begin() + 1);
  std::copy(context.offsets.begin() + w.begin, context.offsets.begin() + w.end, offsets.begin() + q + 2);

  const Answer& answer = example.answers[0];
  const int64_t start_char = answer.answer_start;
  const int64_t end_char = start_char + static_cast<int64_t>(count_code_points(answer.text));
  if (w.end == w.begin)
    fail("example '", text_preview(example.id), "': the context has no tokens, expected at least one");
  int64_t token_start = static_cast<int64_t>(q + 2);
  int64_t token_end = static_cast<int64_t>(q + 2 + (w.end - w.begin)) - 1;
  if (!(offsets[token_start].begin <= start_char && offsets[token_end].end >= end_char)) return;
  const auto n = static_cast<int64_t>(offsets.size());
  while (token_start < n && offsets[token_start].begin <= start_char) ++token_start;
  while (token_end >= 0 && offsets[token_end].end >= end_char) --token_end;
  if (token_end < 0) {  // run_qa would index offsets[-1] and fail
    fail("example '", text_preview(example.id), "': answer '", text_preview(answer.text), "' at ", start_char,
         " ends at or before the first token, expected a non-empty answer inside the context");
  }
  f.start_position = static_cast<int32_t>(token_start - 1);
  f.end_position = static_cast<int32_t>(token_end + 1);
}

void set_eval_offsets(Feature& f, const Encoding& question, const Encoding& context, Window w) {
  f.offsets.assign(f.input_ids.size(), Span{-1, -1});
  const size_t first = question.ids.size() + 2;
  for (size_t k = w.begin; k < w.end; ++k) {
    f.offsets[first + k - w.begin] = {context.offsets[k].begin, context.offsets[k].end};
  }
}

// Runs body(i) for i in [0, n) on OpenMP threads; rethrows the exception of the smallest failing i, so
// errors are deterministic too.
template <typename Body>
void parallel_for(size_t n, Body body) {
  std::vector<std::exception_ptr> errors(n);
#pragma omp parallel for schedule(dynamic, 16)
  for (int64_t i = 0; i < static_cast<int64_t>(n); ++i) {
    try {
      body(static_cast<size_t>(i));
    } catch (...) {
      errors[static_cast<size_t>(i)] = std::current_exception();
    }
  }
  for (const auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

// The tokens of one field; `max_tokens` > 0 keeps at most that many + 1 (Tokenizer::encode_prefix).
Encoding encode_field(const Tokenizer& tokenizer, std::string_view text, const Example& example, const char* field,
                      size_t max_tokens = 0) {
  try {
    return max_tokens > 0 ? tokenizer.encode_prefix(text, max_tokens) : tokenizer.encode(text);
  } catch (const Error& e) {
    fail("example '", text_preview(example.id), "': ", field, ": ", e.what());
  }
}

std::vector<Feature> build_features(const std::vector<Example>& examples, const Tokenizer& tokenizer,
                                    const FeatureOptions& options, bool train) {
  if (options.max_seq_length <= 3 || options.doc_stride < 0) {
    fail("feature options: max_seq_length ", options.max_seq_length, ", doc_stride ", options.doc_stride,
         ": expected max_seq_length > 3 ([CLS] question [SEP] context [SEP]) and doc_stride >= 0");
  }
  // Several questions share a paragraph: tokenise each distinct context once.
  std::unordered_map<std::string_view, size_t> context_index;
  std::vector<size_t> context_of(examples.size());
  std::vector<size_t> first_example;
  for (size_t i = 0; i < examples.size(); ++i) {
    const auto [it, added] = context_index.emplace(examples[i].context, first_example.size());
    if (added) first_example.push_back(i);
    context_of[i] = it->second;
  }
  std::vector<Encoding> contexts(first_example.size());
  parallel_for(contexts.size(), [&](size_t k) {
    const Example& ex = examples[first_example[k]];
    contexts[k] = encode_field(tokenizer, ex.context, ex, "context");
  });

  std::vector<std::vector<Feature>> per_example(examples.size());
  parallel_for(examples.size(), [&](size_t i) {
    const Example& ex = examples[i];
    // A question of more than max_seq_length - 3 tokens can never fit a window: tokenising the rest of
    // it (a 50 MB question took 40 times its size in memory) would only lead to the same error.
    const Encoding question = encode_field(tokenizer, lstrip_python_space(ex.question), ex, "question",
                                           static_cast<size_t>(options.max_seq_length) - 3);
    const Encoding& context = contexts[context_of[i]];
    for (const Window& w : context_windows(ex, question.ids.size(), context.ids.size(), options)) {
      Feature f = make_feature(question, context, w, tokenizer, options);
      f.example_index = static_cast<int32_t>(i);
      if (train) {
        set_train_labels(f, ex, question, context, w);
      } else {
        set_eval_offsets(f, question, context, w);
      }
      per_example[i].push_back(std::move(f));
    }
  });

  size_t total = 0;
  for (const auto& v : per_example) total += v.size();
  std::vector<Feature> features;
  features.reserve(total);
  for (auto& v : per_example) {
    for (Feature& f : v) features.push_back(std::move(f));
  }
  return features;
}

}  // namespace

std::vector<Feature> build_train_features(const std::vector<Example>& examples, const Tokenizer& tokenizer,
                                          const FeatureOptions& options) {
  return build_features(examples, tokenizer, options, true);
}

std::vector<Feature> build_eval_features(const std::vector<Example>& examples, const Tokenizer& tokenizer,
                                         const FeatureOptions& options) {
  return build_features(examples, tokenizer, options, false);
}

}  // namespace cpuft
