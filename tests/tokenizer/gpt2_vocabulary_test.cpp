// Loading GPT-2's files: a tiny synthetic vocabulary that loads, and the typed, located errors
// for missing files, malformed JSON and merges that name what the vocabulary lacks.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "trainer/tokenizer/byte_symbols.h"
#include "trainer/tokenizer/gpt2_tokenizer.h"
#include "trainer/tokenizer/tokenizer_error.h"
#include "trainer/tokenizer/utf8.h"

namespace traindeck {
namespace {

// encoder.json with the 256 byte symbols (ids 0-255), `extra` tokens, then <|endoftext|>.
std::string tinyVocab(const std::vector<std::string>& extra) {
  std::string json = "{";
  std::uint32_t id = 0;
  const auto add = [&](const std::string& token) {
    json += (id ? ", \"" : "\"") + token + "\": " + std::to_string(id);
    ++id;
  };
  for (unsigned b = 0; b < 256; ++b) {
    std::string symbol;
    appendUtf8(symbol, byteSymbol(static_cast<std::uint8_t>(b)));
    add(symbol == "\"" ? "\\\"" : symbol == "\\" ? "\\\\" : symbol);
  }
  for (const std::string& token : extra) add(token);
  add("<|endoftext|>");
  return json + "}";
}

std::string errorOf(std::string_view vocab, std::string_view merges) {
  try {
    Gpt2Vocabulary::parse(vocab, "encoder.json", merges, "vocab.bpe");
  } catch (const TokenizerError& e) {
    return e.what();
  }
  return "no error";
}

TEST(Gpt2Vocabulary, LoadsATinyVocabularyAndEncodesWithIt) {
  // "Ġ" is the symbol of the space byte.
  const std::string vocab = tinyVocab({"ab", "Ġab", "abab"});
  const auto tables = std::make_shared<const Gpt2Vocabulary>(
      Gpt2Vocabulary::parse(vocab, "encoder.json", "#version: 0.2\na b\nĠ ab\nab ab\n", "vocab.bpe"));
  EXPECT_EQ(tables->size(), 260u);
  EXPECT_EQ(tables->endOfText(), 259u);
  EXPECT_EQ(tables->merges().size(), 3u);
  EXPECT_EQ(tables->byteId(' '), tables->byteId(0x20));
  Gpt2Tokenizer tokenizer(tables);
  EXPECT_EQ(tokenizer.encode("abab ab"), (std::vector<std::uint32_t>{258, 257}));
  EXPECT_EQ(tokenizer.decode(std::vector<std::uint32_t>{258, 257, 259}), "abab ab<|endoftext|>");
  EXPECT_THROW(tokenizer.decode(std::vector<std::uint32_t>{260}), TokenizerError);
}

TEST(Gpt2Vocabulary, MergeErrorsNameTheFileAndLine) {
  const std::string vocab = tinyVocab({"ab"});
  EXPECT_EQ(errorOf(vocab, "a b\n"),
            "cannot read vocab.bpe: line 1: expected the \"#version\" header of a GPT-2 merges file");
  EXPECT_EQ(errorOf(vocab, "#version: 0.2\na b\nab zz\n"),
            "cannot read vocab.bpe: line 3: the merge names \"zz\", which is not in the vocabulary");
  EXPECT_EQ(errorOf(vocab, "#version: 0.2\nb a\n"),
            "cannot read vocab.bpe: line 2: the merge makes \"ba\", which is not in the vocabulary");
  EXPECT_EQ(errorOf(vocab, "#version: 0.2\na b\na b\n"),
            "cannot read vocab.bpe: line 3: the merge repeats the one on line 2");
  EXPECT_EQ(errorOf(vocab, "#version: 0.2\na  b\n"),
            "cannot read vocab.bpe: line 2: expected two symbols separated by one space");
  EXPECT_EQ(errorOf(vocab, "#version: 0.2\n\na b\n"),
            "cannot read vocab.bpe: line 2: expected two symbols separated by one space");
  EXPECT_EQ(errorOf(vocab, "#version: 0.2\r\na b\r\n\n"), "no error");
  EXPECT_EQ(errorOf(vocab, ""), "cannot read vocab.bpe: the file is empty");
}

TEST(Gpt2Vocabulary, VocabularyErrors) {
  EXPECT_EQ(errorOf("{\"a\": 0}", "#version\n"),
            "cannot read encoder.json: the vocabulary has no token for byte 0 (\"Ā\")");
  std::string noEnd = tinyVocab({});
  noEnd = noEnd.substr(0, noEnd.rfind(", \"<|endoftext|>\"")) + "}";
  EXPECT_EQ(errorOf(noEnd, "#version\n"), "cannot read encoder.json: the vocabulary has no <|endoftext|>");
  EXPECT_EQ(errorOf("{\"a\": 0, \"b\": 5}", "#version\n"),
            "cannot read encoder.json: line 1, column 10: token id 5 is out of range: 2 tokens need ids 0 to 1");
  EXPECT_EQ(errorOf("{\"a\": 0, \"b\": 0}", "#version\n"),
            "cannot read encoder.json: line 1, column 10: token id 0 is given to two tokens");
  EXPECT_EQ(errorOf("{\"a b\": 0}", "#version\n"),
            "cannot read encoder.json: line 1, column 2: the token holds a character that is not one of GPT-2's "
            "byte symbols");
  EXPECT_EQ(errorOf("{}", "#version\n"), "cannot read encoder.json: the vocabulary is empty");
}

TEST(Gpt2Vocabulary, MissingAndMalformedFiles) {
  const auto dir = std::filesystem::temp_directory_path() / ("traindeck-tokenizer-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "bad.json") << "{\"a\": 0,\n  \"b\": x}";
  std::ofstream(dir / "vocab.bpe") << "#version: 0.2\n";
  try {
    Gpt2Tokenizer(dir / "missing.json", dir / "vocab.bpe");
    ADD_FAILURE() << "a missing file loaded";
  } catch (const TokenizerError& e) {
    EXPECT_EQ(std::string(e.what()), "cannot open the GPT-2 vocabulary " + (dir / "missing.json").string());
  }
  try {
    Gpt2Tokenizer(dir / "bad.json", dir / "vocab.bpe");
    ADD_FAILURE() << "malformed JSON loaded";
  } catch (const TokenizerError& e) {
    EXPECT_EQ(std::string(e.what()), "cannot read " + (dir / "bad.json").string() +
                                         ": line 2, column 8: expected a token id (a non-negative integer)");
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace traindeck
