// The JSON writer: nesting, separators, escaping, and numbers that read back exactly.
#include <gtest/gtest.h>

#include "runlog/json_value.h"
#include "runlog/json_writer.h"

namespace traindeck {
namespace {

TEST(JsonWriter, NestedObjectsAndArrays) {
  JsonWriter j;
  j.beginObject().field("kind", "train").field("step", 3).key("xs").beginArray().value(1.5).value(false).null();
  j.endArray().key("o").beginObject().endObject().endObject();
  EXPECT_EQ(j.str(), R"({"kind":"train","step":3,"xs":[1.5,false,null],"o":{}})");
}

TEST(JsonWriter, EscapesAndNonFiniteNumbers) {
  EXPECT_EQ(jsonEscape("a\"b\\c\n\x01"), R"("a\"b\\c\n\u0001")");
  JsonWriter j;
  j.beginArray().value(std::numeric_limits<double>::quiet_NaN()).value(0.1).value(std::int64_t{1} << 53).endArray();
  EXPECT_EQ(j.str(), "[null,0.1,9007199254740992]");
}

TEST(JsonWriter, KeepsValidUtf8ByteForByte) {
  const std::string text = "\xE8\xAE\xAD\xE7\xBB\x83 caf\xC3\xA9 \xF0\x9F\x98\x80";  // 训练 café 😀
  EXPECT_EQ(jsonEscape(text), "\"" + text + "\"");
}

// A reason cut inside a character used to reach run.json as it was, and the strict reader then
// refused the whole file.
TEST(JsonWriter, WritesInvalidUtf8AsReplacementCharacters) {
  const std::string fffd = "\xEF\xBF\xBD";
  EXPECT_EQ(jsonEscape("\xE4\xB8"), "\"" + fffd + "\"");                               // truncated 中
  EXPECT_EQ(jsonEscape("a\x80\"b"), "\"a" + fffd + "\\\"b\"");                         // stray continuation byte
  EXPECT_EQ(jsonEscape("\xC0\xAF"), "\"" + fffd + fffd + "\"");                        // overlong '/'
  EXPECT_EQ(jsonEscape("\xED\xA0\x80"), "\"" + fffd + fffd + fffd + "\"");             // a surrogate
  EXPECT_EQ(jsonEscape("\xF4\x90\x80\x80"), "\"" + fffd + fffd + fffd + fffd + "\"");  // past U+10FFFF

  JsonWriter j;
  j.beginObject().field("bad\xFFkey", std::string_view("\xE6\x95\xB0\xE6\x8D")).endObject();
  const JsonParseResult parsed = parseJson(j.str());
  ASSERT_TRUE(parsed.ok()) << parsed.error;
  ASSERT_EQ(parsed.value.members().size(), 1u);
  EXPECT_EQ(parsed.value.members()[0].first, "bad" + fffd + "key");
  EXPECT_EQ(parsed.value.members()[0].second.text(), "\xE6\x95\xB0" + fffd);  // 数 and a cut 据
}

}  // namespace
}  // namespace traindeck
