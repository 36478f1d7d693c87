// Edge and bad inputs of the tokenizer, each checked against what Hugging Face does
// (BertTokenizerFast from transformers, the tokenizer run_qa.py uses; expected ids were printed by it
// on the same vocab.txt).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "cpuft/text/tokenizer.h"
#include "cpuft/util/error.h"
#include "text_fixtures.h"

namespace cpuft {
namespace {

using testing::ScratchDir;

std::string load_error(const std::string& vocab_txt) {
  ScratchDir dir("edge_vocab");
  dir.write("vocab.txt", vocab_txt);
  try {
    Tokenizer::load(dir.path());
  } catch (const Error& e) {
    const std::string msg = e.what();
    return msg.substr(msg.rfind('/') + 1);  // without the scratch directory
  }
  return "";
}

TEST(EdgeInputs, EncodeNamesTheByteOffsetOfInvalidUtf8) {
  const Tokenizer tok = Tokenizer::load(testing::text_fixture(""));
  for (const auto& [text, byte] : std::vector<std::pair<std::string, int>>{
           {"hello \xE2\x82", 6}, {"\x80", 0}, {"caf\xC3\xA9 \xED\xA0\x80", 6}, {"ab\xF8\x88\x80\x80\x80", 2}}) {
    try {
      tok.encode(text);
      ADD_FAILURE() << "no error for byte " << byte;
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()),
                "invalid UTF-8 at byte " + std::to_string(byte) + ": expected a valid UTF-8 sequence");
    }
  }
}

// encode_prefix reads a long text in pieces cut at ASCII whitespace and stops after max_tokens + 1
// tokens (a 50 MB question took 2 GB to tokenise before failing as too long): its tokens and offsets
// are those of encode() over the whole text.
TEST(EdgeInputs, EncodePrefixMatchesEncode) {
  const Tokenizer tok = Tokenizer::load(testing::text_fixture(""));
  std::string text;
  const char* parts[] = {"Ærøskøbing liegt in Dänemark, ", "東京タワー\tnicht; ", "über [SEP] die Brücke\n", "e\xcc\x81 ",
                         "naïve café ", "\x01\x7f ", "don't stop-believing. "};
  for (int i = 0; text.size() < 300000; ++i) text += parts[(i * 7 + i / 3) % 7];
  const Tokenizer::Encoding all = tok.encode(text);
  const Tokenizer::Encoding same = tok.encode_prefix(text, all.ids.size() + 10);
  ASSERT_EQ(same.ids, all.ids);
  ASSERT_EQ(same.offsets.size(), all.offsets.size());
  for (size_t i = 0; i < all.offsets.size(); ++i) {
    ASSERT_EQ(same.offsets[i].begin, all.offsets[i].begin) << i;
    ASSERT_EQ(same.offsets[i].end, all.offsets[i].end) << i;
  }
  const Tokenizer::Encoding some = tok.encode_prefix(text, 1000);
  ASSERT_EQ(some.ids.size(), 1001u);
  EXPECT_TRUE(std::equal(some.ids.begin(), some.ids.end(), all.ids.begin()));
  // Malformed UTF-8 in a later piece is reported at its byte in the whole text.
  const std::string bad = text + "\xC3";
  try {
    tok.encode_prefix(bad, bad.size());
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "invalid UTF-8 at byte " + std::to_string(text.size()) +
                                         ": expected a valid UTF-8 sequence");
  }
}

TEST(EdgeInputs, VocabularyMissingASpecialToken) {
  EXPECT_EQ(load_error("[UNK]\n[CLS]\n[SEP]\nhello\n"), "vocab.txt: pad token '[PAD]' is not in the vocabulary");
  EXPECT_EQ(load_error("[PAD]\n[UNK]\n[SEP]\nhello\n"), "vocab.txt: cls token '[CLS]' is not in the vocabulary");
  EXPECT_EQ(load_error("[PAD]\n[CLS]\n[SEP]\nhello\n"), "vocab.txt: unk token '[UNK]' is not in the vocabulary");
  EXPECT_EQ(load_error("[PAD]\n[UNK]\n[CLS]\nhello\n"), "vocab.txt: sep token '[SEP]' is not in the vocabulary");
  EXPECT_EQ(load_error(""), "vocab.txt: empty vocabulary, expected at least one token");
}

// BertTokenizerFast('vocab.txt')('hello world') on this vocabulary gives [2, 7, 6, 3]: a token listed
// twice keeps its last line number, as tokenizers' WordPiece::read_file builds a HashMap line by line.
// cpuft does the same instead of rejecting the file, so a vocabulary HF accepts loads here too.
TEST(EdgeInputs, DuplicateVocabularyEntryKeepsTheLastIdLikeHuggingFace) {
  ScratchDir dir("dup_vocab");
  dir.write("vocab.txt", "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nhello\nworld\nhello\n");
  const Tokenizer tok = Tokenizer::load(dir.path());
  EXPECT_EQ(tok.encode("hello world").ids, (std::vector<int32_t>{7, 6}));
  EXPECT_EQ(tok.encode("hellohello").ids, (std::vector<int32_t>{1}));  // no "##hello": one [UNK] word
}

}  // namespace
}  // namespace cpuft
