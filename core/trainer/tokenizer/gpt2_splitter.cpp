// The scanner behind Gpt2Splitter. next() tries the regex's alternatives in the regex's order:
// a contraction, then a run of one class with an optional space before it, then whitespace.
#include "trainer/tokenizer/gpt2_splitter.h"

#include "trainer/tokenizer/utf8.h"

namespace traindeck {

Gpt2Splitter::Char Gpt2Splitter::charAt(std::size_t pos) const {
  const unsigned char byte = static_cast<unsigned char>(m_text[pos]);
  if (byte < 0x80) return {static_cast<CharClass>(unicode_table::kAsciiClasses[byte]), 1};
  const Utf8Char c = decodeUtf8(m_text, pos);
  return {c.codePoint == kInvalidCodePoint ? CharClass::Other : classifyNonAscii(c.codePoint), c.length};
}

std::size_t Gpt2Splitter::runEnd(std::size_t pos, CharClass charClass) const {
  while (pos < m_text.size()) {
    const Char c = charAt(pos);
    if (c.charClass != charClass) break;
    pos += c.length;
  }
  return pos;
}

// 's 't 're 've 'm 'll 'd, lowercase only (the reference has no case-insensitive flag).
std::size_t Gpt2Splitter::contractionLength(std::size_t pos) const {
  const std::string_view rest = m_text.substr(pos + 1, 2);
  if (rest.empty()) return 0;
  if (rest[0] == 's' || rest[0] == 't' || rest[0] == 'm' || rest[0] == 'd') return 2;
  if (rest == "re" || rest == "ve" || rest == "ll") return 3;
  return 0;
}

// \s+(?!\S)|\s+ : a run of whitespace, less its last character when a non-space follows (that
// character then starts the next piece, where a plain space joins the word after it).
std::size_t Gpt2Splitter::spacesEnd(std::size_t pos) const {
  std::size_t lastStart = pos, end = pos;
  while (end < m_text.size()) {
    const Char c = charAt(end);
    if (c.charClass != CharClass::Space) break;
    lastStart = end;
    end += c.length;
  }
  return end < m_text.size() && lastStart > pos ? lastStart : end;
}

std::string_view Gpt2Splitter::next() {
  if (m_pos >= m_text.size()) return {};
  const std::size_t start = m_pos;
  std::size_t end = start;
  if (const std::size_t length = m_text[start] == '\'' ? contractionLength(start) : 0; length > 0) {
    end = start + length;
  } else {
    // " ?\p{L}+", " ?\p{N}+", " ?[^\s\p{L}\p{N}]+": a run of one class, maybe with a space before it.
    const std::size_t runStart = m_text[start] == ' ' && start + 1 < m_text.size() ? start + 1 : start;
    const Char c = charAt(runStart);
    end = c.charClass == CharClass::Space ? spacesEnd(start) : runEnd(runStart + c.length, c.charClass);
  }
  m_pos = end;
  return m_text.substr(start, end - start);
}

std::vector<std::string_view> splitGpt2(std::string_view text) {
  std::vector<std::string_view> pieces;
  Gpt2Splitter splitter(text);
  for (std::string_view piece = splitter.next(); !piece.empty(); piece = splitter.next()) pieces.push_back(piece);
  return pieces;
}

}  // namespace traindeck
