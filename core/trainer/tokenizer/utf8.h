// Strict UTF-8 decoding, one code point at a time: only the well-formed sequences of the
// Unicode standard (no overlongs, no surrogates, nothing above U+10FFFF). A malformed byte is
// reported alone, so that callers can carry it along instead of failing or skipping it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace traindeck {

inline constexpr std::uint32_t kInvalidCodePoint = 0xFFFFFFFF;

struct Utf8Char {
  std::uint32_t codePoint;  // kInvalidCodePoint for a malformed byte
  std::uint32_t length;     // bytes consumed: 1 to 4; 1 for a malformed byte
};

// Decodes the character at `pos`, which must be inside `text`.
inline Utf8Char decodeUtf8(std::string_view text, std::size_t pos) {
  const auto byte = [&](std::size_t i) -> std::uint32_t {
    return pos + i < text.size() ? static_cast<unsigned char>(text[pos + i]) : 0;
  };
  const auto continuation = [](std::uint32_t b) { return (b & 0xC0) == 0x80; };
  const std::uint32_t b0 = byte(0);
  if (b0 < 0x80) return {b0, 1};
  const std::uint32_t b1 = byte(1);
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    if (continuation(b1)) return {(b0 & 0x1F) << 6 | (b1 & 0x3F), 2};
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    // E0 needs A0-BF (no overlongs), ED needs 80-9F (no surrogates).
    const std::uint32_t low = b0 == 0xE0 ? 0xA0 : 0x80, high = b0 == 0xED ? 0x9F : 0xBF;
    const std::uint32_t b2 = byte(2);
    if (b1 >= low && b1 <= high && continuation(b2)) return {(b0 & 0x0F) << 12 | (b1 & 0x3F) << 6 | (b2 & 0x3F), 3};
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    // F0 needs 90-BF (no overlongs), F4 needs 80-8F (nothing above U+10FFFF).
    const std::uint32_t low = b0 == 0xF0 ? 0x90 : 0x80, high = b0 == 0xF4 ? 0x8F : 0xBF;
    const std::uint32_t b2 = byte(2), b3 = byte(3);
    if (b1 >= low && b1 <= high && continuation(b2) && continuation(b3))
      return {(b0 & 0x07) << 18 | (b1 & 0x3F) << 12 | (b2 & 0x3F) << 6 | (b3 & 0x3F), 4};
  }
  return {kInvalidCodePoint, 1};
}

// Appends the UTF-8 form of a valid code point (not a surrogate, at most U+10FFFF).
inline void appendUtf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | cp >> 6);
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | cp >> 12);
    out += static_cast<char>(0x80 | (cp >> 6 & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | cp >> 18);
    out += static_cast<char>(0x80 | (cp >> 12 & 0x3F));
    out += static_cast<char>(0x80 | (cp >> 6 & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

}  // namespace traindeck
