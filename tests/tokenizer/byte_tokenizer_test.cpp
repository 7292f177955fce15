// ByteTokenizer: ids are bytes, end-of-text is 256, and decode is the exact inverse of encode.
#include <gtest/gtest.h>

#include <random>

#include "trainer/tokenizer/byte_tokenizer.h"
#include "trainer/tokenizer/make_tokenizer.h"
#include "trainer/tokenizer/tokenizer_error.h"

namespace traindeck {
namespace {

TEST(ByteTokenizer, IdsAreBytes) {
  ByteTokenizer t;
  EXPECT_EQ(t.vocabSize(), 257u);
  EXPECT_EQ(t.endOfText(), 256u);
  EXPECT_EQ(t.name(), "byte");
  EXPECT_EQ(t.encode(""), std::vector<std::uint32_t>{});
  EXPECT_EQ(t.encode(std::string("a\0\xff", 3)), (std::vector<std::uint32_t>{97, 0, 255}));
}

TEST(ByteTokenizer, RoundTripsEveryByteString) {
  ByteTokenizer t;
  std::mt19937 random(7);
  for (int i = 0; i < 200; ++i) {
    std::string text(random() % 64, '\0');
    for (char& c : text) c = static_cast<char>(random() % 256);
    EXPECT_EQ(t.decode(t.encode(text)), text);
  }
}

TEST(ByteTokenizer, DecodesEndOfTextAndRejectsUnknownIds) {
  ByteTokenizer t;
  const std::vector<std::uint32_t> ids{104, 105, 256};
  EXPECT_EQ(t.decode(ids), "hi<|endoftext|>");
  const std::vector<std::uint32_t> bad{257};
  EXPECT_THROW(t.decode(bad), TokenizerError);
}

TEST(MakeTokenizer, ByNameAndErrors) {
  EXPECT_EQ(makeTokenizer("byte")->name(), "byte");
  EXPECT_THROW(makeTokenizer("sentencepiece"), TokenizerError);
  EXPECT_THROW(makeTokenizer("gpt2"), TokenizerError);  // no files given
}

}  // namespace
}  // namespace traindeck
