// The simplest tokenizer: one id per byte (0-255) and end-of-text as id 256, for a vocabulary
// of 257. Needs no files; decode is the exact inverse of encode.
#pragma once

#include "trainer/tokenizer/tokenizer.h"

namespace traindeck {

class ByteTokenizer final : public Tokenizer {
 public:
  static constexpr std::uint32_t kEndOfText = 256;

  void encodeInto(std::string_view text, std::vector<std::uint32_t>& ids) override;
  // Decodes kEndOfText as the text "<|endoftext|>", as GPT-2 decodes its own.
  std::string decode(std::span<const std::uint32_t> ids) const override;
  std::uint32_t vocabSize() const override { return kEndOfText + 1; }
  std::uint32_t endOfText() const override { return kEndOfText; }
  std::string name() const override { return "byte"; }
};

}  // namespace traindeck
