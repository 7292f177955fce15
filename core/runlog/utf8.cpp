// The decoder follows Unicode's table 3-7 of well-formed byte sequences; the length of an
// ill-formed subpart follows "U+FFFD substitution of maximal subparts" (as WHATWG and ICU do).
#include "runlog/utf8.h"

namespace traindeck {

Utf8Sequence decodeUtf8(std::string_view text) {
  if (text.empty()) return {};
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned lead = byte(0);
  if (lead < 0x80) return {1, true, lead};

  // The sequence's length, and the range of its second byte (narrower after E0, ED, F0, F4:
  // no overlong forms, no surrogates, nothing past U+10FFFF).
  std::size_t length = 0;
  unsigned lo = 0x80;
  unsigned hi = 0xBF;
  char32_t codePoint = 0;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
    codePoint = lead & 0x1F;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    codePoint = lead & 0x0F;
    if (lead == 0xE0) lo = 0xA0;
    if (lead == 0xED) hi = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    codePoint = lead & 0x07;
    if (lead == 0xF0) lo = 0x90;
    if (lead == 0xF4) hi = 0x8F;
  } else {
    return {1, false, 0xFFFD};  // a continuation byte, C0, C1 or F5..FF: starts nothing
  }
  for (std::size_t i = 1; i < length; ++i) {
    if (i >= text.size() || byte(i) < lo || byte(i) > hi) return {i, false, 0xFFFD};
    codePoint = (codePoint << 6) | (byte(i) & 0x3F);
    lo = 0x80;
    hi = 0xBF;
  }
  return {length, true, codePoint};
}

bool isValidUtf8(std::string_view text) {
  while (!text.empty()) {
    const Utf8Sequence s = decodeUtf8(text);
    if (!s.valid) return false;
    text.remove_prefix(s.length);
  }
  return true;
}

std::string validUtf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  while (!text.empty()) {
    const Utf8Sequence s = decodeUtf8(text);
    if (s.valid) {
      out.append(text.substr(0, s.length));
    } else {
      out.append(kUtf8Replacement);
    }
    text.remove_prefix(s.length);
  }
  return out;
}

std::string_view cutAtCharBoundary(std::string_view text, std::size_t maxBytes) {
  if (text.size() <= maxBytes) return text;
  std::size_t end = 0;
  while (true) {
    const std::size_t length = decodeUtf8(text.substr(end)).length;
    if (end + length > maxBytes) return text.substr(0, end);
    end += length;
  }
}

void appendUtf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

}  // namespace traindeck
