// A small read-only JSON document for metrics records, run.json and safetensors headers.
// parseJson() is strict RFC 8259 and answers every byte sequence with a value or an error,
// never a crash or an exception; the accessors fall back to a default instead of failing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace traindeck {

class JsonValue {
 public:
  enum class Type { Null, Bool, Number, String, Array, Object };
  using Member = std::pair<std::string, JsonValue>;

  JsonValue() = default;  // null
  static JsonValue makeBool(bool flag);
  // As parsed: `writtenAsInteger` when the text had no fraction or exponent, and then
  // `exactInteger` when it fits int64 ("-0" is -0.0 with exact value 0).
  static JsonValue makeNumber(double number, bool writtenAsInteger = false,
                              std::optional<std::int64_t> exactInteger = std::nullopt);
  static JsonValue makeInteger(std::int64_t number);
  static JsonValue makeString(std::string text);
  static JsonValue makeArray(std::vector<JsonValue> items);
  static JsonValue makeObject(std::vector<Member> members);

  Type type() const { return m_type; }
  bool isNull() const { return m_type == Type::Null; }
  bool isBool() const { return m_type == Type::Bool; }
  bool isNumber() const { return m_type == Type::Number; }
  bool isString() const { return m_type == Type::String; }
  bool isArray() const { return m_type == Type::Array; }
  bool isObject() const { return m_type == Type::Object; }
  // A number written without fraction or exponent ("12", "-0"), whether or not it fits int64.
  bool isWrittenAsInteger() const { return m_type == Type::Number && m_writtenAsInteger; }
  // A number written as an integer whose exact value fits int64: integerOr() returns it.
  bool isInteger() const { return m_type == Type::Number && m_exactInteger.has_value(); }

  // The value when it has that type, else `fallback`.
  bool boolOr(bool fallback) const { return isBool() ? m_bool : fallback; }
  double numberOr(double fallback) const { return isNumber() ? m_number : fallback; }
  std::int64_t integerOr(std::int64_t fallback) const { return isInteger() ? *m_exactInteger : fallback; }
  std::string stringOr(std::string_view fallback) const;
  bool boolOr(const char* key) const = delete;  // a key needs a fallback: boolOr(key, false)
  // The text of a string; empty for any other type.
  const std::string& text() const { return m_text; }

  // The elements of an array; empty for any other type.
  const std::vector<JsonValue>& items() const { return m_items; }
  // The members of an object in file order, repeated keys kept; empty for any other type.
  const std::vector<Member>& members() const { return m_members; }
  // Elements of an array or members of an object; 0 for any other type.
  std::size_t size() const { return isObject() ? m_members.size() : m_items.size(); }
  // The element at `index` of an array; nullptr when out of range or not an array.
  const JsonValue* at(std::size_t index) const;

  // Object lookups, linear in the number of members. A repeated key: the last one wins, as in
  // JavaScript and Python. Not an object, or no such key: nullptr or the fallback.
  const JsonValue* find(std::string_view key) const;
  bool boolOr(std::string_view key, bool fallback) const;
  double numberOr(std::string_view key, double fallback) const;
  std::int64_t integerOr(std::string_view key, std::int64_t fallback) const;
  std::string stringOr(std::string_view key, std::string_view fallback) const;

 private:
  Type m_type = Type::Null;
  bool m_bool = false;
  bool m_writtenAsInteger = false;
  double m_number = 0;
  std::optional<std::int64_t> m_exactInteger;
  std::string m_text;
  std::vector<JsonValue> m_items;  // arrays only
  std::vector<Member> m_members;   // objects only
};

struct JsonParseResult {
  JsonValue value;         // null when parsing failed
  std::string error;       // empty on success, else one sentence naming the defect and its byte
  std::size_t offset = 0;  // the byte of `text` where the defect is
  bool ok() const { return error.empty(); }
};

// Containers nested deeper than this are an error, so that no input can exhaust the stack.
inline constexpr std::size_t kJsonMaxDepth = 512;

// Parses one JSON text (RFC 8259: one value, optional surrounding whitespace, UTF-8; no
// comments, trailing commas, NaN or a byte order mark). Numbers past the range of a double
// are an error; ones too small for it read as zero. Only std::bad_alloc can escape.
JsonParseResult parseJson(std::string_view text, std::size_t maxDepth = kJsonMaxDepth);

}  // namespace traindeck
