// Gpt2Splitter against GPT-2's regex, case by case (each expectation agrees with what the
// regex gives in node), and its documented handling of malformed UTF-8.
#include <gtest/gtest.h>

#include <random>

#include "trainer/tokenizer/gpt2_splitter.h"

namespace traindeck {
namespace {

using Pieces = std::vector<std::string_view>;

TEST(Gpt2Splitter, WordsNumbersAndPunctuation) {
  EXPECT_EQ(splitGpt2(""), Pieces{});
  EXPECT_EQ(splitGpt2("Hello world"), (Pieces{"Hello", " world"}));
  EXPECT_EQ(splitGpt2("3.14 is pi!"), (Pieces{"3", ".", "14", " is", " pi", "!"}));
  EXPECT_EQ(splitGpt2(" 123abc"), (Pieces{" 123", "abc"}));
  EXPECT_EQ(splitGpt2("a, (b)..."), (Pieces{"a", ",", " (", "b", ")..."}));
  EXPECT_EQ(splitGpt2("Привет мир"), (Pieces{"Привет", " мир"}));
  EXPECT_EQ(splitGpt2("cafe\u0301"), (Pieces{"cafe", "\u0301"}));  // a combining mark is not a letter
}

TEST(Gpt2Splitter, Contractions) {
  EXPECT_EQ(splitGpt2("I'm don't we're"), (Pieces{"I", "'m", " don", "'t", " we", "'re"}));
  EXPECT_EQ(splitGpt2("they'll've'd's"), (Pieces{"they", "'ll", "'ve", "'d", "'s"}));
  EXPECT_EQ(splitGpt2("IT'S"), (Pieces{"IT", "'", "S"}));  // no case folding
  EXPECT_EQ(splitGpt2("'sand"), (Pieces{"'s", "and"}));
  EXPECT_EQ(splitGpt2("?'s"), (Pieces{"?'", "s"}));  // inside a run of symbols, no contraction
  EXPECT_EQ(splitGpt2(" 's"), (Pieces{" '", "s"}));
  EXPECT_EQ(splitGpt2("'"), (Pieces{"'"}));
}

TEST(Gpt2Splitter, Whitespace) {
  EXPECT_EQ(splitGpt2("a  b"), (Pieces{"a", " ", " b"}));
  EXPECT_EQ(splitGpt2("a   b"), (Pieces{"a", "  ", " b"}));
  EXPECT_EQ(splitGpt2("a \n b"), (Pieces{"a", " \n", " b"}));
  EXPECT_EQ(splitGpt2("a\n\nb"), (Pieces{"a", "\n", "\n", "b"}));
  EXPECT_EQ(splitGpt2("x\t\ty"), (Pieces{"x", "\t", "\t", "y"}));
  EXPECT_EQ(splitGpt2("x\ty"), (Pieces{"x", "\t", "y"}));
  EXPECT_EQ(splitGpt2("end   "), (Pieces{"end", "   "}));
  EXPECT_EQ(splitGpt2("\n\n"), (Pieces{"\n\n"}));
  EXPECT_EQ(splitGpt2(" "), (Pieces{" "}));
  EXPECT_EQ(splitGpt2("a\u3000b"), (Pieces{"a", "\u3000", "b"}));  // only U+0020 joins the next word
  EXPECT_EQ(splitGpt2("  \u00a0x"), (Pieces{"  ", "\u00a0", "x"}));
}

// Malformed UTF-8: each bad byte is one "other" character, like punctuation.
TEST(Gpt2Splitter, MalformedUtf8BytesAreOtherCharacters) {  // octal escapes: "\377b" is two bytes
  EXPECT_EQ(splitGpt2("a\377b"), (Pieces{"a", "\377", "b"}));
  EXPECT_EQ(splitGpt2(" \377!?"), (Pieces{" \377!?"}));
  EXPECT_EQ(splitGpt2("\342\202x"), (Pieces{"\342\202", "x"}));                            // a truncated euro sign
  EXPECT_EQ(splitGpt2("x\355\240\200y"), (Pieces{"x", "\355\240\200", "y"}));              // an encoded surrogate
  EXPECT_EQ(splitGpt2("\300\257\364\220\200\200"), (Pieces{"\300\257\364\220\200\200"}));  // overlong; > U+10FFFF
  EXPECT_EQ(splitGpt2("caf\303\251 caf\303"), (Pieces{"caf\303\251", " caf", "\303"}));
  EXPECT_EQ(splitGpt2(std::string_view("a\0b", 3)), (Pieces{"a", std::string_view("\0", 1), "b"}));
}

TEST(Gpt2Splitter, PiecesTileAnyBytes) {
  std::mt19937 random(11);
  const std::string alphabet = std::string("aZ9 \t\n'!.\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80\x80\xff", 26);
  for (int i = 0; i < 2000; ++i) {
    std::string text(random() % 40, '\0');
    for (char& c : text)
      c = random() % 4 == 0 ? static_cast<char>(random() % 256) : alphabet[random() % alphabet.size()];
    std::string joined;
    for (const std::string_view piece : splitGpt2(text)) {
      ASSERT_FALSE(piece.empty());
      joined += piece;
    }
    ASSERT_EQ(joined, text);
  }
}

}  // namespace
}  // namespace traindeck
