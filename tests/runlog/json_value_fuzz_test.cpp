// The JSON reader against random and mutated input, from a fixed seed: it must answer every
// byte sequence with a value or an error at a byte inside the text, and whatever it accepts
// must write back through JsonWriter and read again as the same value.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "json_test_util.h"
#include "runlog/json_value.h"

namespace traindeck {
namespace {

const std::vector<std::string>& seeds() {
  static const std::vector<std::string> kSeeds = {
      R"({"kind":"header","schema":1,"run":"20240611-120000-gpt2","world_size":8})",
      R"({"kind":"train","time":1718000000.25,"step":120,"tokens":491520,"loss":3.4521,"lr":0.0006,)"
      R"("grad_norm":1.25,"tokens_per_s":81234.5,"step_ms":412.5,"mfu":0.41})",
      R"({"kind":"event","level":"warn","rank":3,"msg":"NaN skipped \u00e9\ud83d\ude00","step":7})",
      R"({"w":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]},"__metadata__":{"format":"pt"}})",
      R"([1,-0,2.5e-3,1E+2,true,false,null,"a\"b\\c\/\b\f\n\r\t",[],{},[[[]]],{"a":{"b":[1]}}])",
      "\"caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80\"",
      " \t\r\n[ 1 , { \"x\" : [ ] } ] \n",
  };
  return kSeeds;
}

void check(const std::string& text) {
  const JsonParseResult r = parseJson(text);
  if (!r.ok()) {
    ASSERT_LE(r.offset, text.size()) << r.error;
    ASSERT_TRUE(r.value.isNull());
    return;
  }
  ASSERT_EQ(r.offset, 0u);
  const std::string written = testing::toJson(r.value);
  const JsonParseResult again = parseJson(written);
  ASSERT_TRUE(again.ok()) << again.error << "\nwritten: " << written;
  ASSERT_TRUE(testing::sameValue(r.value, again.value)) << "written: " << written;
}

std::string mutate(std::string text, std::mt19937& random) {
  static const std::string kPieces[] = {"[",
                                        "]",
                                        "{",
                                        "}",
                                        ",",
                                        ":",
                                        "\"",
                                        "\\",
                                        "\\u",
                                        "\\uD800",
                                        "\\uDC00",
                                        "0",
                                        "-",
                                        ".",
                                        "e",
                                        "1e999",
                                        "true",
                                        "null",
                                        " ",
                                        "\xC3",
                                        "\xED\xA0\x80",
                                        "\xF0\x9F",
                                        std::string(1, '\0'),
                                        "\x1F",
                                        "NaN",
                                        "9223372036854775808"};
  const int edits = 1 + static_cast<int>(random() % 4);
  for (int i = 0; i < edits; ++i) {
    const std::size_t at = text.empty() ? 0 : random() % (text.size() + 1);
    switch (random() % 6) {
      case 0:  // flip one bit
        if (!text.empty()) text[at % text.size()] ^= static_cast<char>(1u << (random() % 8));
        break;
      case 1:  // delete a run
        text.erase(at, random() % 8);
        break;
      case 2:  // insert a token
        text.insert(at, kPieces[random() % std::size(kPieces)]);
        break;
      case 3:  // truncate
        text.resize(at);
        break;
      case 4:  // duplicate a slice
        text.insert(at, text.substr(random() % (text.size() + 1), random() % 16));
        break;
      default:  // replace with a random byte
        if (!text.empty()) text[at % text.size()] = static_cast<char>(random());
        break;
    }
  }
  return text;
}

TEST(JsonValueFuzz, SeedsAreValid) {
  for (const std::string& seed : seeds()) {
    const JsonParseResult r = parseJson(seed);
    EXPECT_TRUE(r.ok()) << seed << "\n" << r.error;
    check(seed);
  }
}

TEST(JsonValueFuzz, MutatedDocumentsNeverCrash) {
  std::mt19937 random(8259);
  int accepted = 0;
  for (int i = 0; i < 6000; ++i) {
    const std::string& seed = seeds()[random() % seeds().size()];
    const std::string text = mutate(seed, random);
    ASSERT_NO_FATAL_FAILURE(check(text)) << "iteration " << i;
    accepted += parseJson(text).ok() ? 1 : 0;
  }
  // Some mutations (a changed digit, a flipped letter in a string) stay valid.
  EXPECT_GT(accepted, 100);
}

TEST(JsonValueFuzz, RandomBytesNeverCrash) {
  std::mt19937 random(1234);
  static const char kAlphabet[] = "[]{},:\"\\u0123456789abcdefABCDEF-+.eEtrunlfas \t\r\n";
  for (int i = 0; i < 4000; ++i) {
    std::string text(random() % 64, '\0');
    const bool json = i % 2 == 0;  // half from JSON's own characters, so that parses get deep
    for (char& c : text) c = json ? kAlphabet[random() % (sizeof kAlphabet - 1)] : static_cast<char>(random());
    ASSERT_NO_FATAL_FAILURE(check(text)) << "iteration " << i;
  }
}

TEST(JsonValueFuzz, EveryPrefixOfADocumentIsHandled) {
  for (const std::string& seed : seeds()) {
    for (std::size_t n = 0; n <= seed.size(); ++n) ASSERT_NO_FATAL_FAILURE(check(seed.substr(0, n)));
  }
}

}  // namespace
}  // namespace traindeck
