// Gpt2Tokenizer against GPT-2's JavaScript reference encoder: the committed fixtures (made by
// make_fixtures.js), and, where node and Encoder.js are present, a long seeded random text
// encoded by both in this run. Also decode(encode(x)) == x, and malformed UTF-8.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>

#include <unistd.h>

#include "command_output.h"
#include "gpt2_test_files.h"
#include "trainer/tokenizer/gpt2_tokenizer.h"
#include "trainer/tokenizer/tokenizer_error.h"
#include "trainer/tokenizer/utf8.h"

namespace traindeck {
namespace {

using Ids = std::vector<std::uint32_t>;

struct FixtureCase {
  std::string name;
  std::string text;
  Ids ids;
};

std::vector<std::string> splitTabs(const std::string& line) {
  std::vector<std::string> fields;
  std::size_t start = 0;
  for (std::size_t tab; (tab = line.find('\t', start)) != std::string::npos; start = tab + 1)
    fields.push_back(line.substr(start, tab - start));
  fields.push_back(line.substr(start));
  return fields;
}

Ids parseIds(const std::string& text) {
  Ids ids;
  std::istringstream in(text);
  for (std::uint32_t id; in >> id;) ids.push_back(id);
  return ids;
}

std::vector<FixtureCase> readFixtures() {
  std::ifstream in(tokenizer_test::fixturesDir() / "gpt2_cases.tsv");
  std::vector<FixtureCase> cases;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    const std::vector<std::string> fields = splitTabs(line);
    if (fields.size() != 3) throw std::runtime_error("bad fixture line: " + line);
    std::string text;
    for (std::size_t i = 0; i + 1 < fields[1].size(); i += 2)
      text += static_cast<char>(std::stoi(fields[1].substr(i, 2), nullptr, 16));
    cases.push_back({fields[0], text, parseIds(fields[2])});
  }
  return cases;
}

TEST(Gpt2Parity, FixturesFromTheReferenceEncoder) {
  TRAINDECK_SKIP_WITHOUT_GPT2_FILES();
  Gpt2Tokenizer tokenizer(tokenizer_test::sharedGpt2Vocabulary());
  const std::vector<FixtureCase> cases = readFixtures();
  ASSERT_GE(cases.size(), 40u);
  for (const FixtureCase& c : cases) {
    EXPECT_EQ(tokenizer.encode(c.text), c.ids) << c.name;
    EXPECT_EQ(tokenizer.decode(c.ids), c.text) << c.name;
  }
}

TEST(Gpt2Parity, EndOfTextIsAnIdButPlainTextWhenEncoded) {
  TRAINDECK_SKIP_WITHOUT_GPT2_FILES();
  Gpt2Tokenizer tokenizer(tokenizer_test::sharedGpt2Vocabulary());
  EXPECT_EQ(tokenizer.vocabSize(), 50257u);
  EXPECT_EQ(tokenizer.endOfText(), 50256u);
  EXPECT_EQ(tokenizer.name(), "gpt2");
  EXPECT_EQ(tokenizer.encode("<|endoftext|>"), (Ids{27, 91, 437, 1659, 5239, 91, 29}));  // as Encoder.js
  EXPECT_EQ(tokenizer.decode(Ids{50256}), "<|endoftext|>");
  EXPECT_THROW(tokenizer.decode(Ids{50257}), TokenizerError);
}

// A seeded text that visits every class the splitter tells apart, in many combinations.
std::string randomText(std::uint32_t seed, std::size_t bytes) {
  // clang-format off
  static const std::vector<std::string> kPieces = {
      "the", " The", "quick", "brown", "fox", "'s", "'t", "'re", "'ve", "'m", "'ll", "'d", "'S", "'T", "'", "\"",
      "don't", "I'M", " ", "  ", "   ", "\n", "\n\n", "\r\n", "\t", " \t", "\u00a0", "\u3000", "\u2028", "\ufeff",
      "\u0085", "0", "42", "3.14", "1,000", "\u00bd", "\u0663", "\u096a", "\U0001D7D8", ".", ",", "!", "?", "...",
      "--", "(", ")", "[", "]", "{", "}", "\",\"", "],", "),\"", "#", "@", "$", "%", "&", "*", "+", "=", "/", "\\",
      "|", "<", ">", "~", "`", "^", "_", "<|endoftext|>", "Привет", "мир", "日本語", "中文", "한국어", "مرحبا",
      "नमस्ते", "हिंदी", "สวัสดี", "שָׁלוֹם", "Ελληνικά", "e\u0301", "n\u0303", "\u0301", "😀", "❤️", "👍🏽",
      "👨‍👩‍👧‍👦", "🏳️‍🌈", "🇫🇷", "🇯🇵", "𝐀𝐁", "𠀀", "ß", "Œ", "façade", "x86_64", "COVID-19", "a1b2", "\u200b",
      "\u200d", "\u00ad", "©", "™", "€", "£", "¥"};
  // clang-format on
  std::mt19937 random(seed);
  std::string text;
  while (text.size() < bytes) {
    text += kPieces[random() % kPieces.size()];
    if (random() % 3 == 0) text += ' ';
    if (random() % 50 == 0) text += std::string(random() % 12, ' ');
  }
  return text;
}

std::string runCommand(const std::string& command) {
  const test_support::CommandOutput out = test_support::commandOutput(command);
  return out.status == 0 ? out.text : "exit status " + std::to_string(out.status) + ": " + out.text;
}

TEST(Gpt2Parity, RandomTextAgainstTheReferenceEncoderLive) {
  TRAINDECK_SKIP_WITHOUT_GPT2_FILES();
  if (!tokenizer_test::haveNodeReference())
    GTEST_SKIP() << "node or " << (tokenizer_test::gpt2Dir() / "Encoder.js").string()
                 << " is missing; run packaging/fetch-gpt2-tokenizer.sh " << tokenizer_test::gpt2Dir().string();
  Gpt2Tokenizer tokenizer(tokenizer_test::sharedGpt2Vocabulary());
  const auto file =
      std::filesystem::temp_directory_path() / ("traindeck-parity-" + std::to_string(::getpid()) + ".txt");
  for (const std::uint32_t seed : {1u, 2u, 3u}) {
    const std::string text = randomText(seed, 24 * 1024);
    std::ofstream(file, std::ios::binary) << text;
    const std::string output =
        runCommand("'" + tokenizer_test::nodeExecutable() + "' '" + tokenizer_test::referenceScript().string() + "' '" +
                   tokenizer_test::gpt2Dir().string() + "' '" + file.string() + "'");
    std::filesystem::remove(file);
    const Ids expected = parseIds(output);
    ASSERT_GT(expected.size(), 1000u) << output.substr(0, 500);
    const Ids ours = tokenizer.encode(text);
    ASSERT_EQ(ours.size(), expected.size()) << "seed " << seed;
    for (std::size_t i = 0; i < ours.size(); ++i) ASSERT_EQ(ours[i], expected[i]) << "seed " << seed << ", id #" << i;
    EXPECT_EQ(tokenizer.decode(ours), text);
  }
}

// Any valid UTF-8, including code points drawn from every plane, comes back byte for byte.
TEST(Gpt2Parity, DecodeInvertsEncodeForUtf8) {
  TRAINDECK_SKIP_WITHOUT_GPT2_FILES();
  Gpt2Tokenizer tokenizer(tokenizer_test::sharedGpt2Vocabulary());
  std::mt19937 random(9);
  for (int i = 0; i < 300; ++i) {
    std::string text;
    for (int n = random() % 60; n > 0; --n) {
      std::uint32_t cp = random() % 4 == 0 ? random() % 0x110000 : random() % 0x3000;
      if (cp >= 0xD800 && cp <= 0xDFFF) cp = ' ';
      appendUtf8(text, cp);
    }
    ASSERT_EQ(tokenizer.decode(tokenizer.encode(text)), text);
  }
  const std::string text = randomText(4, 8192);
  EXPECT_EQ(tokenizer.decode(tokenizer.encode(text)), text);
}

// Our documented behaviour (the reference only takes strings): each malformed byte is an
// "other" character, encoded as its raw byte, and comes back unchanged.
TEST(Gpt2Parity, MalformedUtf8RoundTrips) {
  TRAINDECK_SKIP_WITHOUT_GPT2_FILES();
  Gpt2Tokenizer tokenizer(tokenizer_test::sharedGpt2Vocabulary());
  EXPECT_EQ(tokenizer.encode("\xff"), Ids{187});  // the byte symbol for 0xFF ("ÿ") has id 187
  Ids expected = tokenizer.encode("x");
  for (const std::uint32_t id : tokenizer.encode("\xff")) expected.push_back(id);
  for (const std::uint32_t id : tokenizer.encode("y")) expected.push_back(id);
  EXPECT_EQ(tokenizer.encode("x\xffy"), expected);
  // A malformed byte joins neighbouring symbols and a space before it, as punctuation would:
  // " \xfe!" is one piece, so its ids follow those of "a" unchanged.
  expected = tokenizer.encode("a");
  for (const std::uint32_t id : tokenizer.encode(" \xfe!")) expected.push_back(id);
  EXPECT_EQ(tokenizer.encode("a \xfe!"), expected);
  std::mt19937 random(3);
  for (int i = 0; i < 500; ++i) {
    std::string text(random() % 48, '\0');
    for (char& c : text) c = static_cast<char>(random() % 4 ? random() % 256 : 'a' + random() % 3);
    ASSERT_EQ(tokenizer.decode(tokenizer.encode(text)), text);
  }
}

}  // namespace
}  // namespace traindeck
