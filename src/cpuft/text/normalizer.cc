#include "cpuft/text/normalizer.h"

#include <utf8proc.h>

#include <algorithm>

#include "cpuft/text/unicode_class.h"

namespace cpuft {
namespace {

// The canonical decomposition of one char (recursive, Hangul included) as NFD would give it.
size_t decompose(char32_t c, utf8proc_int32_t (&out)[32]) {
  if (c < 0xC0) {  // nothing below U+00C0 decomposes canonically
    out[0] = static_cast<utf8proc_int32_t>(c);
    return 1;
  }
  int boundclass = 0;
  const auto n = utf8proc_decompose_char(static_cast<utf8proc_int32_t>(c), out, 32, UTF8PROC_DECOMPOSE, &boundclass);
  if (n <= 0 || n > 32) {
    out[0] = static_cast<utf8proc_int32_t>(c);
    return 1;
  }
  return static_cast<size_t>(n);
}

int combining_class(char32_t c) {
  return c < 0x300 ? 0 : utf8proc_get_property(static_cast<utf8proc_int32_t>(c))->combining_class;
}

// NFD's canonical ordering: stable sort of every run of non-starters by combining class. Alignments
// stay with the positions, as in tokenizers' NormalizedString::transform.
void canonical_order(std::u32string& chars) {
  size_t i = 0;
  while (i < chars.size()) {
    if (combining_class(chars[i]) == 0) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < chars.size() && combining_class(chars[j]) != 0) ++j;
    if (j - i > 1) {
      std::stable_sort(chars.begin() + i, chars.begin() + j,
                       [](char32_t a, char32_t b) { return combining_class(a) < combining_class(b); });
    }
    i = j;
  }
}

void push(NormalizedText& t, char32_t c, int64_t origin) {
  t.chars.push_back(c);
  t.origin.push_back(origin);
}

// Rust char::to_lowercase: the simple mapping, except U+0130, the one char whose unconditional full
// lowercase mapping (SpecialCasing.txt) is two chars.
void push_lowercase(NormalizedText& t, char32_t c, int64_t origin) {
  if (c < 0x80) {
    push(t, (c >= 'A' && c <= 'Z') ? c + 32 : c, origin);
  } else if (c == 0x130) {
    push(t, U'i', origin);
    push(t, 0x307, origin);
  } else {
    push(t, static_cast<char32_t>(utf8proc_tolower(static_cast<utf8proc_int32_t>(c))), origin);
  }
}

}  // namespace

NormalizedText normalize(const NormalizerOptions& options, const std::u32string& original, size_t begin, size_t end) {
  NormalizedText cleaned;
  cleaned.chars.reserve(end - begin);
  cleaned.origin.reserve(end - begin);
  for (size_t i = begin; i < end; ++i) {
    char32_t c = original[i];
    const auto at = static_cast<int64_t>(i);
    if (options.clean_text) {
      if (c == 0 || c == 0xFFFD || is_bert_control(c)) continue;
      if (is_unicode_whitespace(c)) c = U' ';
    }
    if (options.handle_chinese_chars && is_cjk_ideograph(c)) {
      push(cleaned, U' ', at);
      push(cleaned, c, at);
      push(cleaned, U' ', at);
    } else {
      push(cleaned, c, at);
    }
  }

  const bool strip_accents = options.strip_accents.value_or(options.lowercase);
  if (strip_accents) {
    NormalizedText decomposed;
    decomposed.chars.reserve(cleaned.chars.size());
    decomposed.origin.reserve(cleaned.chars.size());
    utf8proc_int32_t parts[32];
    for (size_t i = 0; i < cleaned.chars.size(); ++i) {
      const size_t n = decompose(cleaned.chars[i], parts);
      for (size_t k = 0; k < n; ++k) push(decomposed, static_cast<char32_t>(parts[k]), cleaned.origin[i]);
    }
    canonical_order(decomposed.chars);
    NormalizedText kept;
    kept.chars.reserve(decomposed.chars.size());
    kept.origin.reserve(decomposed.chars.size());
    for (size_t i = 0; i < decomposed.chars.size(); ++i) {
      if (!is_nonspacing_mark(decomposed.chars[i])) push(kept, decomposed.chars[i], decomposed.origin[i]);
    }
    cleaned = std::move(kept);
  }

  if (!options.lowercase) return cleaned;
  NormalizedText lowered;
  lowered.chars.reserve(cleaned.chars.size());
  lowered.origin.reserve(cleaned.chars.size());
  for (size_t i = 0; i < cleaned.chars.size(); ++i) push_lowercase(lowered, cleaned.chars[i], cleaned.origin[i]);
  return lowered;
}

}  // namespace cpuft
