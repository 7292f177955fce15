// The JSON reader: valid documents, the accessors, each kind of error with its byte offset,
// round trips through JsonWriter, and nesting up to and past the depth limit.
#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>

#include "json_test_util.h"
#include "runlog/json_value.h"
#include "runlog/json_writer.h"

namespace traindeck {
namespace {

JsonValue parseOk(std::string_view text) {
  JsonParseResult r = parseJson(text);
  EXPECT_TRUE(r.ok()) << "text: " << text << "\nerror: " << r.error;
  return r.value;
}

TEST(JsonValue, Scalars) {
  EXPECT_TRUE(parseOk("null").isNull());
  EXPECT_TRUE(parseOk(" true ").boolOr(false));
  EXPECT_FALSE(parseOk("\t\r\nfalse\n").boolOr(true));
  EXPECT_EQ(parseOk(R"("hi")").text(), "hi");
  EXPECT_EQ(parseOk("0.5").numberOr(0), 0.5);
  EXPECT_EQ(parseOk("-1.5E+3").numberOr(0), -1500);
  EXPECT_EQ(parseOk("2e-2").numberOr(0), 0.02);
}

TEST(JsonValue, IntegersKeepTheirExactValue) {
  const JsonValue big = parseOk("9223372036854775807");
  EXPECT_TRUE(big.isInteger());
  EXPECT_EQ(big.integerOr(0), std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(parseOk("-9223372036854775808").integerOr(0), std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(parseOk("9007199254740993").integerOr(0), 9007199254740993);  // not a double

  const JsonValue tooBig = parseOk("9223372036854775808");
  EXPECT_TRUE(tooBig.isWrittenAsInteger());
  EXPECT_FALSE(tooBig.isInteger());
  EXPECT_EQ(tooBig.integerOr(-1), -1);
  EXPECT_EQ(tooBig.numberOr(0), 9223372036854775808.0);

  const JsonValue fraction = parseOk("3.0");
  EXPECT_FALSE(fraction.isWrittenAsInteger());
  EXPECT_FALSE(fraction.isInteger());
  EXPECT_EQ(fraction.integerOr(7), 7);
  EXPECT_FALSE(parseOk("1e2").isInteger());
  EXPECT_EQ(parseOk("-0").integerOr(1), 0);
}

TEST(JsonValue, NumberRangeEdges) {
  EXPECT_EQ(parseOk("1.7976931348623157e308").numberOr(0), std::numeric_limits<double>::max());
  EXPECT_EQ(parseOk("4.9406564584124654e-324").numberOr(0), std::numeric_limits<double>::denorm_min());
  EXPECT_EQ(parseOk("1e-400").numberOr(1), 0.0);  // too small: zero, as strtod does
  const double negativeZero = parseOk("-1e-400").numberOr(1);
  EXPECT_EQ(negativeZero, 0.0);
  EXPECT_TRUE(std::signbit(negativeZero));
  EXPECT_EQ(parseOk("0.000000000000000000000000000000000001e-300").numberOr(1), 0.0);
  EXPECT_EQ(parseOk("100000000000000000000000000000000000000000000000000").numberOr(0), 1e50);
}

TEST(JsonValue, StringsAndEscapes) {
  EXPECT_EQ(parseOk(R"("a\"b\\c\/d\b\f\n\r\t")").text(), "a\"b\\c/d\b\f\n\r\t");
  EXPECT_EQ(parseOk(R"("\u00e9\u20AC")").text(), "\xC3\xA9\xE2\x82\xAC");  // é €
  EXPECT_EQ(parseOk(R"("\ud83d\ude00")").text(), "\xF0\x9F\x98\x80");      // 😀 from a surrogate pair
  EXPECT_EQ(parseOk(R"("\uDBFF\uDFFF")").text(), "\xF4\x8F\xBF\xBF");      // U+10FFFF
  EXPECT_EQ(parseOk(R"("a\u0000b")").text(), std::string("a\0b", 3));
  EXPECT_EQ(parseOk("\"caf\xC3\xA9 \xF0\x9F\x98\x80\"").text(), "caf\xC3\xA9 \xF0\x9F\x98\x80");
  EXPECT_EQ(parseOk("\"\x7F\"").text(), "\x7F");  // DEL is not a control character to JSON
}

TEST(JsonValue, ObjectsKeepFileOrderAndTheLastDuplicateWins) {
  const JsonValue v = parseOk(R"({"kind":"train","step":12,"loss":2.5,"ok":true,"step":13,"xs":[1,"a",null],"o":{}})");
  ASSERT_TRUE(v.isObject());
  ASSERT_EQ(v.size(), 7u);
  EXPECT_EQ(v.members()[0].first, "kind");
  EXPECT_EQ(v.members()[4].first, "step");
  EXPECT_EQ(v.integerOr("step", 0), 13);
  EXPECT_EQ(v.stringOr("kind", ""), "train");
  EXPECT_EQ(v.numberOr("loss", 0), 2.5);
  EXPECT_EQ(v.numberOr("step", 0), 13);
  EXPECT_TRUE(v.boolOr("ok", false));
  const JsonValue* xs = v.find("xs");
  ASSERT_NE(xs, nullptr);
  ASSERT_TRUE(xs->isArray());
  ASSERT_EQ(xs->size(), 3u);
  EXPECT_EQ(xs->at(1)->text(), "a");
  EXPECT_TRUE(xs->at(2)->isNull());
  EXPECT_EQ(xs->at(3), nullptr);
  EXPECT_TRUE(v.find("o")->isObject());
  EXPECT_EQ(v.find("o")->size(), 0u);
}

TEST(JsonValue, AccessorsFallBackOnTheWrongTypeOrAMissingKey) {
  const JsonValue v = parseOk(R"({"s":"x","n":1.5,"b":true,"z":null})");
  EXPECT_EQ(v.numberOr("s", -1), -1);
  EXPECT_EQ(v.stringOr("n", "none"), "none");
  EXPECT_EQ(v.integerOr("n", -1), -1);  // not an integer
  EXPECT_FALSE(v.boolOr("z", false));
  EXPECT_EQ(v.numberOr("missing", 4), 4);
  EXPECT_EQ(v.find("missing"), nullptr);
  EXPECT_EQ(v.at(0), nullptr);  // not an array

  const JsonValue array = parseOk("[1]");
  EXPECT_EQ(array.find("a"), nullptr);
  EXPECT_EQ(array.stringOr("a", "fb"), "fb");
  EXPECT_EQ(array.stringOr("fb"), "fb");
  EXPECT_TRUE(array.members().empty());
  EXPECT_EQ(parseOk("3").size(), 0u);
  EXPECT_EQ(parseOk("3").text(), "");
}

struct BadJson {
  std::string text;
  std::string message;  // a part of the expected error
  std::size_t offset;
};

class JsonErrors : public ::testing::TestWithParam<BadJson> {};

TEST_P(JsonErrors, NameTheDefectAndItsByte) {
  const BadJson& bad = GetParam();
  const JsonParseResult r = parseJson(bad.text);
  ASSERT_FALSE(r.ok()) << bad.text;
  EXPECT_TRUE(r.value.isNull());
  EXPECT_NE(r.error.find(bad.message), std::string::npos) << "text: " << bad.text << "\nerror: " << r.error;
  EXPECT_EQ(r.offset, bad.offset) << r.error;
  EXPECT_NE(r.error.find("(at byte " + std::to_string(bad.offset) + ")"), std::string::npos) << r.error;
}

INSTANTIATE_TEST_SUITE_P(
    EveryKind, JsonErrors,
    ::testing::Values(
        BadJson{"", "the text is empty", 0}, BadJson{" \n", "only whitespace", 2},
        BadJson{"\xEF\xBB\xBF{}", "byte order mark", 0},
        BadJson{"{} x", "unexpected 'x' after the end of the JSON value", 3},
        BadJson{"1 2", "after the end of the JSON value", 2},
        BadJson{"[1 2]", "expected ',' or ']' after an array element, found '2'", 3},
        BadJson{"[1", "expected ',' or ']' after an array element, found the end of the text", 2},
        BadJson{"[1,]", "trailing comma before ']'", 3}, BadJson{"[,1]", "unexpected ','", 1},
        BadJson{R"({"a":1,})", "trailing comma before '}'", 7},
        BadJson{"{a:1}", "expected a double-quoted key, found 'a'", 1},
        BadJson{"{'a':1}", "expected a double-quoted key, found '''", 1},
        BadJson{"{,}", "expected a double-quoted key", 1}, BadJson{R"({"a" 1})", "expected ':' after an object key", 5},
        BadJson{R"({"a":1 "b":2})", "expected ',' or '}' after an object member", 7},
        BadJson{R"({"a":})", "unexpected '}' where a value was expected", 5},
        BadJson{"[", "the text ends where a value was expected", 1},
        BadJson{"\x01", "unexpected byte 0x01 where a value was expected", 0},
        BadJson{"\xC3\xA9", "unexpected byte 0xC3", 0}, BadJson{"tru", "invalid literal: expected true", 0},
        BadJson{"[nul]", "invalid literal: expected null", 1}, BadJson{"falsy", "invalid literal: expected false", 0},
        BadJson{"True", "unexpected 'T'", 0}, BadJson{"NaN", "NaN and Infinity are not JSON numbers", 0},
        BadJson{"[-Infinity]", "NaN and Infinity are not JSON numbers", 1}, BadJson{"// c\n1", "unexpected '/'", 0},
        BadJson{"+1", "unexpected '+'", 0}, BadJson{".5", "unexpected '.'", 0},
        BadJson{"-", "'-' must be followed by a digit", 0}, BadJson{"-a", "'-' must be followed by a digit", 0},
        BadJson{"[01]", "may not start with 0 followed by digits", 1},
        BadJson{"1.", "'.' must be followed by a digit", 0}, BadJson{"1.e5", "'.' must be followed by a digit", 0},
        BadJson{"1e", "the exponent has no digits", 0}, BadJson{"[2E+]", "the exponent has no digits", 1},
        BadJson{"0x10", "unexpected 'x' after the end", 1}, BadJson{"1e400", "too large for a double", 0},
        BadJson{"[-2.5e999999999999]", "too large for a double", 1},
        BadJson{"\"abc", "the text ends inside a string", 4}, BadJson{"\"ab\\", "the text ends inside a string", 4},
        BadJson{"\"a\x01\"", "raw control character byte 0x01", 2},
        BadJson{"\"a\nb\"", "raw control character byte 0x0A", 2},
        BadJson{R"("a\x")", "invalid escape \\x in a string", 2},
        BadJson{"\"\\\x01\"", "a backslash followed by byte 0x01", 1}, BadJson{R"("\u12G4")", "four hex digits", 1},
        BadJson{R"("\u12")", "four hex digits", 1}, BadJson{R"("x\uDC00")", "low surrogate with no high surrogate", 2},
        BadJson{R"("\uD800")", "high surrogate that no low surrogate follows", 1},
        BadJson{R"("\uD800x")", "high surrogate that no low surrogate follows", 1},
        BadJson{R"("\uD800\u0041")", "high surrogate that no low surrogate follows", 1},
        BadJson{R"("\uD800\uD800")", "high surrogate that no low surrogate follows", 1},
        BadJson{"\"\xC3\"", "not valid UTF-8", 1},              // truncated sequence
        BadJson{"\"\xC0\xAF\"", "not valid UTF-8", 1},          // overlong '/'
        BadJson{"\"\xE0\x80\xAF\"", "not valid UTF-8", 1},      // overlong, three bytes
        BadJson{"\"\xED\xA0\x80\"", "not valid UTF-8", 1},      // a surrogate in UTF-8
        BadJson{"\"\xF4\x90\x80\x80\"", "not valid UTF-8", 1},  // past U+10FFFF
        BadJson{"\"ok\xFF\"", "not valid UTF-8", 3}, BadJson{"\"\x80\"", "not valid UTF-8", 1},
        BadJson{std::string(513, '['), "nested deeper than 512 levels", 512}));

TEST(JsonValue, ErrorMessagesAreOneLowercaseSentence) {
  for (const char* text : {"[1,]", "\"\\uD800\"", "{\"a\" 1}", "1e400", ""}) {
    const JsonParseResult r = parseJson(text);
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(std::islower(static_cast<unsigned char>(r.error.front())) || r.error.front() == '\'') << r.error;
    EXPECT_NE(r.error.back(), '.') << r.error;
    EXPECT_EQ(r.error.find('\n'), std::string::npos) << r.error;
  }
}

TEST(JsonValue, NestingUpToTheLimitParses) {
  const std::string deepest = std::string(512, '[') + std::string(512, ']');
  JsonValue v = parseOk(deepest);
  std::size_t depth = 0;
  for (const JsonValue* p = &v; p != nullptr && p->isArray(); p = p->at(0)) ++depth;
  EXPECT_EQ(depth, 512u);

  std::string objects;
  for (int i = 0; i < 512; ++i) objects += R"({"a":)";
  objects += "1" + std::string(512, '}');
  EXPECT_TRUE(parseJson(objects).ok());
  objects = R"({"a":)" + objects + "}";
  const JsonParseResult tooDeep = parseJson(objects);
  EXPECT_FALSE(tooDeep.ok());
  EXPECT_NE(tooDeep.error.find("nested deeper than 512"), std::string::npos);
}

TEST(JsonValue, HugeNestingIsAnErrorNotACrash) {
  for (const char open : {'[', '{'}) {
    const JsonParseResult r = parseJson(std::string(1'000'000, open));
    EXPECT_FALSE(r.ok());
  }
  const JsonParseResult mixed = parseJson(std::string(200'000, '[') + R"({"a":)");
  EXPECT_NE(mixed.error.find("nested deeper"), std::string::npos);
}

TEST(JsonValue, TheDepthLimitCanBeLowered) {
  EXPECT_TRUE(parseJson("[[1]]", 2).ok());
  EXPECT_FALSE(parseJson("[[[1]]]", 2).ok());
  EXPECT_TRUE(parseJson("1", 0).ok());
  EXPECT_FALSE(parseJson("[]", 0).ok());
}

TEST(JsonValue, ReadsWhatJsonWriterWrites) {
  JsonWriter w;
  w.beginObject().field("kind", "train").field("time", 1718000000.123456).field("step", std::int64_t{1} << 40);
  w.field("loss", 2.718281828459045).field("lr", 3e-4).field("nan", std::nan("")).field("neg", -0.0);
  w.field("ok", true).key("none").null();
  w.field("text", std::string("tab\t quote\" slash\\ nl\n ctl\x01 del\x7F caf\xC3\xA9 \xF0\x9F\x98\x80"));
  w.key("list").beginArray().value(1).value(2.5).beginObject().endObject().beginArray().endArray().endArray();
  w.endObject();

  const JsonValue v = parseOk(w.str());
  EXPECT_EQ(v.stringOr("kind", ""), "train");
  EXPECT_EQ(v.numberOr("time", 0), 1718000000.123456);
  EXPECT_EQ(v.integerOr("step", 0), std::int64_t{1} << 40);
  EXPECT_EQ(v.numberOr("loss", 0), 2.718281828459045);
  EXPECT_EQ(v.numberOr("lr", 0), 3e-4);
  EXPECT_TRUE(v.find("nan")->isNull());  // the writer turns NaN into null
  EXPECT_TRUE(v.find("none")->isNull());
  EXPECT_TRUE(v.boolOr("ok", false));
  EXPECT_EQ(v.stringOr("text", ""), "tab\t quote\" slash\\ nl\n ctl\x01 del\x7F caf\xC3\xA9 \xF0\x9F\x98\x80");
  EXPECT_EQ(v.find("list")->size(), 4u);
  EXPECT_EQ(testing::toJson(v), w.str());
}

TEST(JsonValue, EveryFiniteDoubleReadsBackExactly) {
  std::mt19937_64 random(20240611);
  JsonWriter w;
  std::vector<double> numbers;
  w.beginArray();
  while (numbers.size() < 20000) {
    const std::uint64_t bits = random();
    double d;
    std::memcpy(&d, &bits, sizeof d);
    if (!std::isfinite(d)) continue;
    numbers.push_back(d);
    w.value(d);
  }
  for (const double d : {0.0, -0.0, 5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 0.1, 1e23}) {
    numbers.push_back(d);
    w.value(d);
  }
  w.endArray();
  const JsonValue v = parseOk(w.str());
  ASSERT_EQ(v.size(), numbers.size());
  for (std::size_t i = 0; i < numbers.size(); ++i) {
    const double back = v.at(i)->numberOr(std::nan(""));
    ASSERT_EQ(std::memcmp(&back, &numbers[i], sizeof back), 0) << i << ": " << numbers[i];
  }
}

TEST(JsonValue, EveryCodePointRoundTripsThroughEscapes) {
  std::string escaped = "\"";
  std::string raw;
  char buffer[16];
  for (std::uint32_t cp = 1; cp <= 0x10FFFF; cp += (cp < 0x3000 ? 1 : 97)) {
    if (cp >= 0xD800 && cp <= 0xDFFF) continue;
    if (cp < 0x10000) {
      std::snprintf(buffer, sizeof buffer, "\\u%04X", static_cast<unsigned>(cp));
    } else {
      const std::uint32_t v = cp - 0x10000;
      std::snprintf(buffer, sizeof buffer, "\\u%04x\\u%04x", 0xD800 + (v >> 10), 0xDC00 + (v & 0x3FF));
    }
    escaped += buffer;
  }
  escaped += "\"";
  const JsonValue fromEscapes = parseOk(escaped);
  // The decoded text is valid UTF-8: written raw by JsonWriter, it reads back the same.
  const JsonValue fromRaw = parseOk(testing::toJson(fromEscapes));
  EXPECT_EQ(fromRaw.text(), fromEscapes.text());
  EXPECT_GT(fromEscapes.text().size(), 20000u);
}

}  // namespace
}  // namespace traindeck
