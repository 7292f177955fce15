// Splits text into the pieces GPT-2 runs BPE on, exactly as the reference encoder's regex
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// does on the same text, but as a hand-written scanner over UTF-8. A malformed UTF-8 byte is
// one "other" character (not a letter, number or space), so the pieces always tile the input.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "trainer/tokenizer/unicode_classes.h"

namespace traindeck {

class Gpt2Splitter {
 public:
  explicit Gpt2Splitter(std::string_view text) : m_text(text) {}

  // The next piece; an empty view once the text is used up. Pieces are never empty.
  std::string_view next();

 private:
  struct Char {
    CharClass charClass;
    std::size_t length;
  };
  Char charAt(std::size_t pos) const;
  std::size_t runEnd(std::size_t pos, CharClass charClass) const;
  std::size_t contractionLength(std::size_t pos) const;
  std::size_t spacesEnd(std::size_t pos) const;

  std::string_view m_text;
  std::size_t m_pos = 0;
};

// All pieces of `text`, in order.
std::vector<std::string_view> splitGpt2(std::string_view text);

}  // namespace traindeck
