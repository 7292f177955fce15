// A recursive-descent parser over the bytes of the text. Recursion is bounded by maxDepth, the
// first defect ends the parse, and every byte outside the grammar is reported, not skipped.
#include "runlog/json_value.h"

#include <charconv>
#include <cstdio>
#include <system_error>

#include "runlog/utf8.h"

namespace traindeck {

JsonValue JsonValue::makeBool(bool flag) {
  JsonValue v;
  v.m_type = Type::Bool;
  v.m_bool = flag;
  return v;
}

JsonValue JsonValue::makeNumber(double number, bool writtenAsInteger, std::optional<std::int64_t> exactInteger) {
  JsonValue v;
  v.m_type = Type::Number;
  v.m_number = number;
  v.m_writtenAsInteger = writtenAsInteger || exactInteger.has_value();
  v.m_exactInteger = exactInteger;
  return v;
}

JsonValue JsonValue::makeInteger(std::int64_t number) {
  return makeNumber(static_cast<double>(number), true, number);
}

JsonValue JsonValue::makeString(std::string text) {
  JsonValue v;
  v.m_type = Type::String;
  v.m_text = std::move(text);
  return v;
}

JsonValue JsonValue::makeArray(std::vector<JsonValue> items) {
  JsonValue v;
  v.m_type = Type::Array;
  v.m_items = std::move(items);
  return v;
}

JsonValue JsonValue::makeObject(std::vector<Member> members) {
  JsonValue v;
  v.m_type = Type::Object;
  v.m_members = std::move(members);
  return v;
}

std::string JsonValue::stringOr(std::string_view fallback) const {
  return isString() ? m_text : std::string(fallback);
}

const JsonValue* JsonValue::at(std::size_t index) const {
  return isArray() && index < m_items.size() ? &m_items[index] : nullptr;
}

const JsonValue* JsonValue::find(std::string_view key) const {
  for (auto it = m_members.rbegin(); it != m_members.rend(); ++it) {
    if (it->first == key) return &it->second;
  }
  return nullptr;
}

bool JsonValue::boolOr(std::string_view key, bool fallback) const {
  const JsonValue* v = find(key);
  return v ? v->boolOr(fallback) : fallback;
}

double JsonValue::numberOr(std::string_view key, double fallback) const {
  const JsonValue* v = find(key);
  return v ? v->numberOr(fallback) : fallback;
}

std::int64_t JsonValue::integerOr(std::string_view key, std::int64_t fallback) const {
  const JsonValue* v = find(key);
  return v ? v->integerOr(fallback) : fallback;
}

std::string JsonValue::stringOr(std::string_view key, std::string_view fallback) const {
  const JsonValue* v = find(key);
  return v ? v->stringOr(fallback) : std::string(fallback);
}

namespace {


int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

class Parser {
 public:
  Parser(std::string_view text, std::size_t maxDepth) : m_text(text), m_maxDepth(maxDepth) {}

  JsonParseResult run() {
    JsonParseResult result;
    if (m_text.starts_with("\xEF\xBB\xBF")) {
      fail(0, "the text starts with a UTF-8 byte order mark, which JSON does not allow: save it without one");
    } else {
      skipWhitespace();
      if (atEnd()) {
        fail(m_pos, m_pos == 0 ? "the text is empty: expected a JSON value"
                               : "the text holds only whitespace: expected a JSON value");
      } else if (parseValue(result.value, 0)) {
        skipWhitespace();
        if (!atEnd()) fail(m_pos, "unexpected " + describe(m_pos) + " after the end of the JSON value");
      }
    }
    if (!m_error.empty()) {
      result.value = JsonValue();
      result.error = m_error;
      result.offset = m_errorAt;
    }
    return result;
  }

 private:
  bool atEnd() const { return m_pos >= m_text.size(); }
  char peek() const { return atEnd() ? '\0' : m_text[m_pos]; }

  void skipWhitespace() {
    while (!atEnd() && (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r')) ++m_pos;
  }

  // What sits at byte `at`, for a message: "'x'", "byte 0x07", "the end of the text".
  std::string describe(std::size_t at) const {
    if (at >= m_text.size()) return "the end of the text";
    const auto c = static_cast<unsigned char>(m_text[at]);
    char buffer[16];
    if (c >= 0x20 && c < 0x7F) {
      std::snprintf(buffer, sizeof buffer, "'%c'", c);
    } else {
      std::snprintf(buffer, sizeof buffer, "byte 0x%02X", c);
    }
    return buffer;
  }

  bool fail(std::size_t at, const std::string& message) {
    if (m_error.empty()) {
      m_error = message + " (at byte " + std::to_string(at) + ")";
      m_errorAt = at;
    }
    return false;
  }

  bool parseValue(JsonValue& out, std::size_t depth) {
    switch (peek()) {
      case '{':
        return parseObject(out, depth + 1);
      case '[':
        return parseArray(out, depth + 1);
      case '"': {
        std::string text;
        if (!parseString(text)) return false;
        out = JsonValue::makeString(std::move(text));
        return true;
      }
      case 't':
        return parseLiteral("true", JsonValue::makeBool(true), out);
      case 'f':
        return parseLiteral("false", JsonValue::makeBool(false), out);
      case 'n':
        return parseLiteral("null", JsonValue(), out);
      default:
        break;
    }
    const std::string_view rest = m_text.substr(m_pos);
    if (rest.starts_with("NaN") || rest.starts_with("Infinity") || rest.starts_with("-Infinity")) {
      return fail(m_pos, "NaN and Infinity are not JSON numbers: write null instead");
    }
    if (peek() == '-' || isAsciiDigit(peek())) return parseNumber(out);
    if (atEnd()) return fail(m_pos, "the text ends where a value was expected");
    return fail(m_pos, "unexpected " + describe(m_pos) + " where a value was expected");
  }

  bool parseLiteral(std::string_view word, JsonValue value, JsonValue& out) {
    if (m_text.substr(m_pos, word.size()) != word) {
      return fail(m_pos, "invalid literal: expected " + std::string(word));
    }
    m_pos += word.size();
    out = std::move(value);
    return true;
  }

  bool enter(std::size_t depth) {
    if (depth <= m_maxDepth) return true;
    return fail(m_pos, "arrays and objects are nested deeper than " + std::to_string(m_maxDepth) + " levels");
  }

  bool parseArray(JsonValue& out, std::size_t depth) {
    if (!enter(depth)) return false;
    ++m_pos;  // '['
    std::vector<JsonValue> items;
    skipWhitespace();
    if (peek() == ']') {
      ++m_pos;
      out = JsonValue::makeArray(std::move(items));
      return true;
    }
    while (true) {
      skipWhitespace();
      if (peek() == ']' && !items.empty()) return fail(m_pos, "trailing comma before ']': remove it");
      items.emplace_back();
      if (!parseValue(items.back(), depth)) return false;
      skipWhitespace();
      if (peek() == ',') {
        ++m_pos;
      } else if (peek() == ']') {
        ++m_pos;
        out = JsonValue::makeArray(std::move(items));
        return true;
      } else {
        return fail(m_pos, "expected ',' or ']' after an array element, found " + describe(m_pos));
      }
    }
  }

  bool parseObject(JsonValue& out, std::size_t depth) {
    if (!enter(depth)) return false;
    ++m_pos;  // '{'
    std::vector<JsonValue::Member> members;
    skipWhitespace();
    if (peek() == '}') {
      ++m_pos;
      out = JsonValue::makeObject(std::move(members));
      return true;
    }
    while (true) {
      skipWhitespace();
      if (peek() == '}' && !members.empty()) return fail(m_pos, "trailing comma before '}': remove it");
      if (peek() != '"') return fail(m_pos, "expected a double-quoted key, found " + describe(m_pos));
      members.emplace_back();
      if (!parseString(members.back().first)) return false;
      skipWhitespace();
      if (peek() != ':') return fail(m_pos, "expected ':' after an object key, found " + describe(m_pos));
      ++m_pos;
      skipWhitespace();
      if (!parseValue(members.back().second, depth)) return false;
      skipWhitespace();
      if (peek() == ',') {
        ++m_pos;
      } else if (peek() == '}') {
        ++m_pos;
        out = JsonValue::makeObject(std::move(members));
        return true;
      } else {
        return fail(m_pos, "expected ',' or '}' after an object member, found " + describe(m_pos));
      }
    }
  }

  // Four hex digits at m_pos, consumed; -1 when they are not there.
  long readHex4() {
    if (m_text.size() - m_pos < 4) return -1;
    long value = 0;
    for (int i = 0; i < 4; ++i) {
      const int digit = hexValue(m_text[m_pos + i]);
      if (digit < 0) return -1;
      value = value * 16 + digit;
    }
    m_pos += 4;
    return value;
  }

  bool parseEscape(std::string& out) {
    const std::size_t start = m_pos;  // at the backslash
    ++m_pos;
    if (atEnd()) return fail(m_pos, "the text ends inside a string");
    const char c = m_text[m_pos++];
    switch (c) {
      case '"':
        out += '"';
        return true;
      case '\\':
        out += '\\';
        return true;
      case '/':
        out += '/';
        return true;
      case 'b':
        out += '\b';
        return true;
      case 'f':
        out += '\f';
        return true;
      case 'n':
        out += '\n';
        return true;
      case 'r':
        out += '\r';
        return true;
      case 't':
        out += '\t';
        return true;
      case 'u':
        break;
      default:
        if (static_cast<unsigned char>(c) > 0x20 && static_cast<unsigned char>(c) < 0x7F) {
          return fail(start, std::string("invalid escape \\") + c + " in a string");
        }
        return fail(start, "invalid escape in a string: a backslash followed by " + describe(m_pos - 1));
    }
    const long unit = readHex4();
    if (unit < 0) return fail(start, "invalid \\u escape in a string: it needs four hex digits");
    std::uint32_t cp = static_cast<std::uint32_t>(unit);
    if (cp >= 0xDC00 && cp <= 0xDFFF) {
      return fail(start, "a \\u escape holds a low surrogate with no high surrogate before it");
    }
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      long low = -1;
      if (m_text.substr(m_pos, 2) == "\\u") {
        m_pos += 2;
        low = readHex4();
      }
      if (low < 0xDC00 || low > 0xDFFF) {
        return fail(start, "a \\u escape holds a high surrogate that no low surrogate follows");
      }
      cp = 0x10000 + ((cp - 0xD800) << 10) + (static_cast<std::uint32_t>(low) - 0xDC00);
    }
    appendUtf8(out, cp);
    return true;
  }

  bool parseString(std::string& out) {
    ++m_pos;  // '"'
    while (true) {
      if (atEnd()) return fail(m_pos, "the text ends inside a string");
      const auto c = static_cast<unsigned char>(m_text[m_pos]);
      if (c == '"') {
        ++m_pos;
        return true;
      }
      if (c == '\\') {
        if (!parseEscape(out)) return false;
      } else if (c < 0x20) {
        return fail(m_pos, "a string holds the raw control character " + describe(m_pos) + ": escape it");
      } else if (c < 0x80) {
        out += static_cast<char>(c);
        ++m_pos;
      } else {
        const Utf8Sequence sequence = decodeUtf8(m_text.substr(m_pos));
        if (!sequence.valid) return fail(m_pos, "a string holds bytes that are not valid UTF-8");
        out.append(m_text.substr(m_pos, sequence.length));
        m_pos += sequence.length;
      }
    }
  }

  bool parseNumber(JsonValue& out) {
    const std::size_t start = m_pos;
    const auto digits = [&] {
      while (isAsciiDigit(peek())) ++m_pos;
    };
    if (peek() == '-') ++m_pos;
    if (!isAsciiDigit(peek())) return fail(start, "invalid number: '-' must be followed by a digit");
    if (peek() == '0') {
      ++m_pos;
      if (isAsciiDigit(peek())) return fail(start, "invalid number: a number may not start with 0 followed by digits");
    } else {
      digits();
    }
    bool integral = true;
    if (peek() == '.') {
      ++m_pos;
      integral = false;
      if (!isAsciiDigit(peek())) return fail(start, "invalid number: '.' must be followed by a digit");
      digits();
    }
    if (peek() == 'e' || peek() == 'E') {
      ++m_pos;
      integral = false;
      if (peek() == '+' || peek() == '-') ++m_pos;
      if (!isAsciiDigit(peek())) return fail(start, "invalid number: the exponent has no digits");
      digits();
    }
    const std::string_view token = m_text.substr(start, m_pos - start);
    const char* first = token.data();
    const char* last = token.data() + token.size();

    double number = 0;
    const auto [end, ec] = std::from_chars(first, last, number);
    if (ec == std::errc::result_out_of_range) {
      if (overflows(token)) return fail(start, "the number is too large for a double");
      number = token.front() == '-' ? -0.0 : 0.0;
    } else if (ec != std::errc() || end != last) {
      return fail(start, "invalid number");
    }
    std::optional<std::int64_t> exact;
    if (integral) {
      std::int64_t value = 0;
      const auto [intEnd, intEc] = std::from_chars(first, last, value);
      if (intEc == std::errc() && intEnd == last) exact = value;
    }
    out = JsonValue::makeNumber(number, integral, exact);
    return true;
  }

  // Whether a number that from_chars found out of range is too large (rather than too small):
  // the power of ten of its first significant digit, plus its exponent, is positive.
  static bool overflows(std::string_view token) {
    long long power = 0;
    bool seenSignificant = false;
    bool inFraction = false;
    std::size_t i = token.front() == '-' ? 1 : 0;
    for (; i < token.size() && token[i] != 'e' && token[i] != 'E'; ++i) {
      if (token[i] == '.') {
        inFraction = true;
      } else if (token[i] != '0' || seenSignificant) {
        if (!seenSignificant) {
          seenSignificant = true;
          if (inFraction) --power;
        } else if (!inFraction) {
          ++power;
        }
      } else if (inFraction) {
        --power;
      }
    }
    long long exponent = 0;
    bool negative = false;
    if (i < token.size()) {
      ++i;
      if (token[i] == '+' || token[i] == '-') negative = token[i++] == '-';
      for (; i < token.size(); ++i) {
        if (exponent < 1'000'000'000) exponent = exponent * 10 + (token[i] - '0');
      }
    }
    return power + (negative ? -exponent : exponent) > 0;
  }

  std::string_view m_text;
  std::size_t m_maxDepth;
  std::size_t m_pos = 0;
  std::string m_error;
  std::size_t m_errorAt = 0;
};

}  // namespace

JsonParseResult parseJson(std::string_view text, std::size_t maxDepth) {
  return Parser(text, maxDepth).run();
}

}  // namespace traindeck
