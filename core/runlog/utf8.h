// UTF-8 as Unicode defines it (table 3-7): the one decoder that the JSON reader, the JSON
// writer and the launcher's reason lines share, so that whatever one side writes the other
// accepts. Invalid input is never an error here: it decodes to U+FFFD, one per maximal subpart.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace traindeck {

inline constexpr std::string_view kUtf8Replacement = "\xEF\xBF\xBD";  // U+FFFD

// '0'..'9' only, whatever the locale (JSON's and the metrics scanner's digits).
inline constexpr bool isAsciiDigit(char c) {
  return c >= '0' && c <= '9';
}

struct Utf8Sequence {
  std::size_t length = 0;       // bytes it takes; 0 only for empty text
  bool valid = false;           // a well-formed character (ASCII included)
  char32_t codePoint = 0xFFFD;  // its code point; U+FFFD when not valid
};

// The sequence at the start of `text`: a well-formed character (1 to 4 bytes), or else the
// maximal ill-formed subpart (1 to 3 bytes: a truncated sequence, or one byte that can start
// none: a stray continuation byte, C0, C1, F5..FF), which a decoder replaces by one U+FFFD.
// Overlong forms, UTF-16 surrogates and code points past U+10FFFF are ill-formed.
Utf8Sequence decodeUtf8(std::string_view text);

bool isValidUtf8(std::string_view text);

// `text` with each maximal ill-formed subpart replaced by U+FFFD; valid text comes back
// byte for byte.
std::string validUtf8(std::string_view text);

// The longest prefix of `text` of at most `maxBytes` bytes that ends on a sequence boundary,
// so a cut never splits a character.
std::string_view cutAtCharBoundary(std::string_view text, std::size_t maxBytes);

// Appends the UTF-8 form of `codePoint` (at most U+10FFFF, not a surrogate).
void appendUtf8(std::string& out, char32_t codePoint);

}  // namespace traindeck
