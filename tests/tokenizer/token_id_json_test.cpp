// The strict encoder.json reader: what it accepts, and that every malformed input is a
// TokenizerError whose message names the source, line and column.
#include <gtest/gtest.h>

#include "trainer/tokenizer/token_id_json.h"
#include "trainer/tokenizer/tokenizer_error.h"

namespace traindeck {
namespace {

std::string errorOf(std::string_view json) {
  try {
    parseTokenIdJson(json, "vocab.json");
  } catch (const TokenizerError& e) {
    return e.what();
  }
  return "no error";
}

TEST(TokenIdJson, ReadsKeysEscapesAndIds) {
  const auto entries = parseTokenIdJson(
      " {\"a\": 0, \"\\u0120the\":1,\n\"\\\"\\\\\\/\\b\\f\\n\\r\\t\" : 2, \"\\ud83d\\ude00\":3, \"\xc3\xa9\": 4294} ",
      "v");
  ASSERT_EQ(entries.size(), 5u);
  EXPECT_EQ(entries[0].token, "a");
  EXPECT_EQ(entries[1].token, "\xc4\xa0the");  // U+0120
  EXPECT_EQ(entries[1].id, 1u);
  EXPECT_EQ(entries[2].token, "\"\\/\b\f\n\r\t");
  EXPECT_EQ(entries[3].token, "\xf0\x9f\x98\x80");  // a surrogate pair, joined
  EXPECT_EQ(entries[4].token, "\xc3\xa9");
  EXPECT_EQ(entries[4].id, 4294u);
  EXPECT_TRUE(parseTokenIdJson("{}", "v").empty());
}

TEST(TokenIdJson, RejectsEverythingElse) {
  EXPECT_EQ(errorOf(""),
            "cannot read vocab.json: line 1, column 1: expected '{' to open the object, found the end of the file");
  EXPECT_EQ(errorOf("{\"a\":1,}"), "cannot read vocab.json: line 1, column 8: expected a string key");
  EXPECT_EQ(errorOf("{\"a\":1,\n \"b\" 2}"), "cannot read vocab.json: line 2, column 6: expected ':' after a key");
  EXPECT_EQ(errorOf("{\"a\":1,\"a\":2}"),
            "cannot read vocab.json: line 1, column 8: the key repeats the one at line 1, column 2");
  EXPECT_EQ(errorOf("{\"a\":1} x"), "cannot read vocab.json: line 1, column 9: unexpected text after the object");
  for (const char* bad :
       {"[]", "{\"a\":-1}", "{\"a\":1.0}", "{\"a\":1e3}", "{\"a\":01}", "{\"a\":\"1\"}", "{\"a\":99999999999}",
        "{\"a\":true}", "{\"a\\q\":1}", "{\"\\u12\":1}", "{\"\\ud800\":1}", "{\"\\udc00\":1}", "{\"\\ud800\\u0041\":1}",
        "{\"a\tb\":1}", "{\"\xff\":1}", "{\"a\":1", "{\"a", "{\"a\":1 \"b\":2}", "{'a':1}"}) {
    const std::string message = errorOf(bad);
    EXPECT_EQ(message.rfind("cannot read vocab.json: line 1, column ", 0), 0u) << bad << " -> " << message;
  }
}

}  // namespace
}  // namespace traindeck
