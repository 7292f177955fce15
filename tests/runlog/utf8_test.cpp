// The one UTF-8 decoder (core/runlog/utf8): well-formed characters of every length decode to
// their code points; each maximal ill-formed subpart is one U+FFFD; a cut never splits a character.
#include <gtest/gtest.h>

#include <string>

#include "runlog/utf8.h"

namespace traindeck {
namespace {

const std::string kFffd(kUtf8Replacement);

TEST(Utf8, DecodesWellFormedCharactersOfEveryLength) {
  struct Case {
    std::string bytes;
    char32_t codePoint;
  };
  const Case cases[] = {
      {"A", U'A'},
      {"\x7F", 0x7F},
      {"\xC2\x80", 0x80},
      {"\xC3\xA9", U'\u00E9'},  // é
      {"\xDF\xBF", 0x7FF},
      {"\xE0\xA0\x80", 0x800},
      {"\xE4\xB8\xAD", U'\u4E2D'},  // 中
      {"\xED\x9F\xBF", 0xD7FF},     // just below the surrogates
      {"\xEE\x80\x80", 0xE000},     // just above them
      {"\xEF\xBF\xBD", 0xFFFD},
      {"\xF0\x90\x80\x80", 0x10000},
      {"\xF0\x9F\x98\x80", U'\U0001F600'},  // 😀
      {"\xF4\x8F\xBF\xBF", 0x10FFFF},
  };
  for (const Case& c : cases) {
    const Utf8Sequence s = decodeUtf8(c.bytes + "tail");
    EXPECT_TRUE(s.valid) << c.bytes;
    EXPECT_EQ(s.length, c.bytes.size()) << c.bytes;
    EXPECT_EQ(s.codePoint, c.codePoint) << c.bytes;
    std::string encoded;
    appendUtf8(encoded, c.codePoint);
    EXPECT_EQ(encoded, c.bytes);
  }
  EXPECT_EQ(decodeUtf8("").length, 0u);
}

TEST(Utf8, EachMaximalIllFormedSubpartIsOneReplacement) {
  struct Case {
    const char* what;
    std::string bytes;
    std::string valid;
  };
  const Case cases[] = {
      {"a stray continuation byte", "a\x80z", "a" + kFffd + "z"},
      {"two stray continuation bytes", "\xBF\x80", kFffd + kFffd},
      {"a truncated two-byte sequence", "a\xC3", "a" + kFffd},
      {"a truncated three-byte sequence", "\xE4\xB8z", kFffd + "z"},
      {"a truncated four-byte sequence", "\xF0\x9F\x98", kFffd},
      {"a lead byte followed by another lead", "\xE4\xE4\xB8\xAD", kFffd + "\xE4\xB8\xAD"},
      {"an overlong '/' (C0 never starts anything)", "\xC0\xAF", kFffd + kFffd},
      {"an overlong three-byte form", "\xE0\x80\xAF", kFffd + kFffd + kFffd},
      {"an overlong four-byte form", "\xF0\x8F\xBF\xBF", kFffd + kFffd + kFffd + kFffd},
      {"a UTF-16 surrogate", "\xED\xA0\x80", kFffd + kFffd + kFffd},
      {"a code point past U+10FFFF", "\xF4\x90\x80\x80", kFffd + kFffd + kFffd + kFffd},
      {"a byte past F4", "\xF5\x80\x80\x80", kFffd + kFffd + kFffd + kFffd},
      {"0xFF", "x\xFFy", "x" + kFffd + "y"},
  };
  for (const Case& c : cases) {
    EXPECT_FALSE(isValidUtf8(c.bytes)) << c.what;
    EXPECT_EQ(validUtf8(c.bytes), c.valid) << c.what;
    EXPECT_TRUE(isValidUtf8(validUtf8(c.bytes))) << c.what;
  }
  EXPECT_EQ(decodeUtf8("\xE4\xB8z").length, 2u);
  EXPECT_EQ(decodeUtf8("\xC0\xAF").length, 1u);
}

TEST(Utf8, ValidTextComesBackByteForByte) {
  const std::string text = "/home/\xE7\x94\xA8\xE6\x88\xB7/\xE6\x95\xB0\xE6\x8D\xAE caf\xC3\xA9 \xF0\x9F\x98\x80";
  EXPECT_TRUE(isValidUtf8(text));
  EXPECT_EQ(validUtf8(text), text);
  EXPECT_TRUE(isValidUtf8(""));
  EXPECT_EQ(validUtf8(""), "");
}

TEST(Utf8, CutsNeverSplitACharacter) {
  const std::string zhong = "\xE4\xB8\xAD";       // 中, three bytes
  const std::string text = "ab" + zhong + zhong;  // 8 bytes: a b [2..4] [5..7]
  EXPECT_EQ(cutAtCharBoundary(text, 100), text);
  EXPECT_EQ(cutAtCharBoundary(text, 8), text);
  EXPECT_EQ(cutAtCharBoundary(text, 7), "ab" + zhong);
  EXPECT_EQ(cutAtCharBoundary(text, 6), "ab" + zhong);
  EXPECT_EQ(cutAtCharBoundary(text, 5), "ab" + zhong);
  EXPECT_EQ(cutAtCharBoundary(text, 4), "ab");
  EXPECT_EQ(cutAtCharBoundary(text, 3), "ab");
  EXPECT_EQ(cutAtCharBoundary(text, 2), "ab");
  EXPECT_EQ(cutAtCharBoundary(text, 0), "");
  for (std::size_t limit = 0; limit <= text.size(); ++limit) {
    EXPECT_TRUE(isValidUtf8(cutAtCharBoundary(text, limit))) << limit;
  }
}

}  // namespace
}  // namespace traindeck
