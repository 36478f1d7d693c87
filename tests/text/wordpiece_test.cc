// WordPiece's greedy longest match never tries a piece longer than the longest vocabulary token: the
// same pieces as the full search, in time linear in the word. A tokenizer.json with
// max_input_chars_per_word 1e9 made a 100 KB word take ~25 minutes (quadratic candidates, each hashed).
#include "cpuft/text/wordpiece.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace cpuft {
namespace {

std::shared_ptr<const Vocab> small_vocab() {
  return Vocab::from_entries({{"[UNK]", 0}, {"a", 1}, {"##a", 2}, {"ab", 3}, {"##b", 4}, {"abc", 5}, {"##bca", 6},
                              {"c", 7}, {"##c", 8}, {"b", 9}},
                             "test vocab");
}

// The search as written before the bound: every stop from the end of the word down.
std::vector<int32_t> reference_pieces(const Vocab& vocab, const std::string& word) {
  std::vector<int32_t> ids;
  size_t start = 0;
  while (start < word.size()) {
    int32_t found = -1;
    size_t stop = word.size();
    for (; stop > start; --stop) {
      const std::string piece = (start == 0 ? "" : "##") + word.substr(start, stop - start);
      found = vocab.find(piece);
      if (found >= 0) break;
    }
    if (found < 0) return {0};
    ids.push_back(found);
    start = stop;
  }
  return ids;
}

std::vector<int32_t> pieces(const WordPiece& wp, const std::string& word) {
  const std::u32string chars(word.begin(), word.end());
  std::vector<Piece> out;
  wp.tokenize(chars, 0, chars.size(), out);
  std::vector<int32_t> ids;
  for (const Piece& p : out) ids.push_back(p.id);
  return ids;
}

TEST(WordPiece, BoundedSearchGivesTheSamePieces) {
  const auto vocab = small_vocab();
  EXPECT_EQ(vocab->max_token_chars(), 5u);  // "##bca"
  WordPieceOptions o;
  o.max_input_chars_per_word = 1000;
  const WordPiece wp(vocab, o, "test");
  std::mt19937 rng(7);
  for (int i = 0; i < 2000; ++i) {
    std::string word;
    const int len = 1 + static_cast<int>(rng() % 30);
    for (int k = 0; k < len; ++k) word.push_back("abcd"[rng() % (i % 2 ? 3 : 4)]);
    EXPECT_EQ(pieces(wp, word), reference_pieces(*vocab, word)) << word;
  }
}

TEST(WordPiece, LongWordUnderAHostileLimitIsLinear) {
  WordPieceOptions o;
  o.max_input_chars_per_word = 1000000000;
  const WordPiece wp(small_vocab(), o, "test");
  const std::vector<int32_t> ids = pieces(wp, std::string(200000, 'a'));
  ASSERT_EQ(ids.size(), 200000u);
  EXPECT_EQ(ids.front(), 1);
  EXPECT_EQ(ids.back(), 2);
  // One unknown character at the end still makes the whole word one [UNK], after the same scan.
  EXPECT_EQ(pieces(wp, std::string(200000, 'a') + "d"), std::vector<int32_t>{0});
}

}  // namespace
}  // namespace cpuft
