// A hand-written reader for exactly one shape of JSON (RFC 8259): {"string": integer, ...}.
// No recursion and memory in proportion to the input, so a hostile file cannot blow the stack.
#include "trainer/tokenizer/token_id_json.h"

#include <unordered_map>
#include <utility>

#include "trainer/tokenizer/tokenizer_error.h"
#include "trainer/tokenizer/utf8.h"

namespace traindeck {
namespace {

class TokenIdJsonParser {
 public:
  TokenIdJsonParser(std::string_view json, const std::string& source) : m_json(json), m_source(source) {}

  std::vector<TokenIdEntry> parse() {
    std::vector<TokenIdEntry> entries;
    skipSpace();
    expect('{', "expected '{' to open the object");
    skipSpace();
    if (!consume('}')) {
      for (;;) {
        const std::size_t keyOffset = m_pos;
        std::string key = parseString();
        skipSpace();
        expect(':', "expected ':' after a key");
        skipSpace();
        const std::uint32_t id = parseId();
        entries.push_back({std::move(key), id, keyOffset});
        skipSpace();
        if (consume('}')) break;
        expect(',', "expected ',' or '}' after a value");
        skipSpace();
      }
    }
    skipSpace();
    if (m_pos != m_json.size()) fail("unexpected text after the object");
    std::unordered_map<std::string_view, std::size_t> seen(entries.size());  // key -> offset
    for (const TokenIdEntry& e : entries) {
      const auto [it, inserted] = seen.emplace(e.token, e.offset);
      if (!inserted) failAt(e.offset, "the key repeats the one at " + describeOffset(m_json, it->second));
    }
    return entries;
  }

 private:
  [[noreturn]] void failAt(std::size_t offset, const std::string& what) const {
    throw TokenizerError("cannot read " + m_source + ": " + describeOffset(m_json, offset) + ": " + what);
  }
  [[noreturn]] void fail(const std::string& what) const { failAt(m_pos, what); }

  bool atEnd() const { return m_pos >= m_json.size(); }
  char peek() const { return atEnd() ? '\0' : m_json[m_pos]; }
  bool consume(char c) {
    if (atEnd() || m_json[m_pos] != c) return false;
    ++m_pos;
    return true;
  }
  void expect(char c, const char* what) {
    if (!consume(c)) fail(atEnd() ? std::string(what) + ", found the end of the file" : what);
  }
  void skipSpace() {
    while (!atEnd() && (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r')) ++m_pos;
  }

  std::string parseString() {
    expect('"', "expected a string key");
    std::string out;
    for (;;) {
      if (atEnd()) fail("the string is not closed");
      const unsigned char c = static_cast<unsigned char>(m_json[m_pos]);
      if (c == '"') {
        ++m_pos;
        return out;
      }
      if (c < 0x20) fail("a control character must be escaped inside a string");
      if (c == '\\') {
        parseEscape(out);
      } else if (c < 0x80) {
        out += static_cast<char>(c);
        ++m_pos;
      } else {
        const Utf8Char u = decodeUtf8(m_json, m_pos);
        if (u.codePoint == kInvalidCodePoint) fail("malformed UTF-8");
        out.append(m_json.substr(m_pos, u.length));
        m_pos += u.length;
      }
    }
  }

  void parseEscape(std::string& out) {
    static constexpr std::pair<char, char> kSimple[] = {{'"', '"'},  {'\\', '\\'}, {'/', '/'},  {'b', '\b'},
                                                        {'f', '\f'}, {'n', '\n'},  {'r', '\r'}, {'t', '\t'}};
    ++m_pos;  // the backslash
    const char e = peek();
    for (const auto& [letter, value] : kSimple) {
      if (e == letter) {
        out += value;
        ++m_pos;
        return;
      }
    }
    if (e != 'u') fail("unknown escape sequence");
    ++m_pos;
    std::uint32_t cp = parseHex4();
    if (cp >= 0xDC00 && cp <= 0xDFFF) fail("a \\u escape holds a low surrogate without a high one");
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      if (!consume('\\') || !consume('u')) fail("a high surrogate must be followed by a \\u low surrogate");
      const std::uint32_t low = parseHex4();
      if (low < 0xDC00 || low > 0xDFFF) fail("a high surrogate must be followed by a \\u low surrogate");
      cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
    }
    appendUtf8(out, cp);
  }

  std::uint32_t parseHex4() {
    std::uint32_t value = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = peek();
      const bool digit = c >= '0' && c <= '9', lower = c >= 'a' && c <= 'f', upper = c >= 'A' && c <= 'F';
      if (!digit && !lower && !upper) fail("expected four hex digits after \\u");
      value = value << 4 | static_cast<std::uint32_t>(digit ? c - '0' : lower ? c - 'a' + 10 : c - 'A' + 10);
      ++m_pos;
    }
    return value;
  }

  std::uint32_t parseId() {
    const std::size_t start = m_pos;
    if (peek() < '0' || peek() > '9') fail("expected a token id (a non-negative integer)");
    std::uint64_t value = 0;
    while (peek() >= '0' && peek() <= '9') {
      value = value * 10 + static_cast<std::uint64_t>(peek() - '0');
      if (value > kMaxId) failAt(start, "the token id is too large");
      ++m_pos;
    }
    if (m_pos - start > 1 && m_json[start] == '0') failAt(start, "a token id must not have leading zeros");
    if (peek() == '.' || peek() == 'e' || peek() == 'E') failAt(start, "a token id must be an integer");
    return static_cast<std::uint32_t>(value);
  }

  static constexpr std::uint64_t kMaxId = (std::uint64_t{1} << 31) - 1;

  std::string_view m_json;
  const std::string& m_source;
  std::size_t m_pos = 0;
};

}  // namespace

std::vector<TokenIdEntry> parseTokenIdJson(std::string_view json, const std::string& source) {
  return TokenIdJsonParser(json, source).parse();
}

std::string describeOffset(std::string_view text, std::size_t offset) {
  std::size_t line = 1, lineStart = 0;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      lineStart = i + 1;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(offset - lineStart + 1);
}

}  // namespace traindeck
