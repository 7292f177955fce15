// The interface the trainer, `prepare` and `sample` use to turn text into token ids and back.
// Implementations: ByteTokenizer (bytes + end-of-text) and Gpt2Tokenizer (GPT-2's BPE).
// encodeInto may update a cache, so one instance must not encode on two threads at once.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace traindeck {

class Tokenizer {
 public:
  virtual ~Tokenizer() = default;

  // Appends the ids of `text` (any bytes, UTF-8 or not) to `ids`. Never produces endOfText().
  virtual void encodeInto(std::string_view text, std::vector<std::uint32_t>& ids) = 0;
  // The bytes of `ids`, concatenated; decode(encode(x)) == x for every x. Throws
  // TokenizerError for an id at or above vocabSize().
  virtual std::string decode(std::span<const std::uint32_t> ids) const = 0;
  virtual std::uint32_t vocabSize() const = 0;
  // The id that separates documents; callers append it, encoding text never yields it.
  virtual std::uint32_t endOfText() const = 0;
  virtual std::string name() const = 0;  // "byte" or "gpt2", as in a config's data.tokenizer

  std::vector<std::uint32_t> encode(std::string_view text) {
    std::vector<std::uint32_t> ids;
    encodeInto(text, ids);
    return ids;
  }
};

}  // namespace traindeck
