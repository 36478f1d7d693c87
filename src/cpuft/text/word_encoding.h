// Words tokenised each on its own, as the fast tokenizer encodes pre-split input
// (is_split_into_words=True, what run_ner.py passes): every word goes through the added-token
// matching, normalizer, pre-tokenizer and WordPiece by itself, and each token remembers the word it
// came from (the tokenizer's word_ids()). A word that yields no token (empty, or only spaces) is
// simply absent from word_ids.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cpuft/text/tokenizer.h"

namespace cpuft {

struct WordEncoding {
  std::vector<int32_t> ids;
  std::vector<int32_t> word_ids;  // index into the words of each token
};

// The tokens of words[0..], stopping once there are more than max_tokens (the result then holds
// max_tokens + 1): a sentence is truncated to a window anyway, so a hostile one costs memory in
// proportion to what is kept. Throws cpuft::Error naming the word on malformed UTF-8.
WordEncoding encode_words(const Tokenizer& tokenizer, const std::vector<std::string>& words, size_t max_tokens);

}  // namespace cpuft
