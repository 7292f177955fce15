// ByteTokenizer: bytes are ids, and ids are bytes.
#include "trainer/tokenizer/byte_tokenizer.h"

#include "trainer/tokenizer/tokenizer_error.h"

namespace traindeck {

void ByteTokenizer::encodeInto(std::string_view text, std::vector<std::uint32_t>& ids) {
  const std::size_t start = ids.size();
  ids.resize(start + text.size());
  for (std::size_t i = 0; i < text.size(); ++i) ids[start + i] = static_cast<unsigned char>(text[i]);
}

std::string ByteTokenizer::decode(std::span<const std::uint32_t> ids) const {
  std::string text;
  text.reserve(ids.size());
  for (const std::uint32_t id : ids) {
    if (id < kEndOfText) {
      text.push_back(static_cast<char>(id));
    } else if (id == kEndOfText) {
      text += "<|endoftext|>";
    } else {
      throw TokenizerError("token id " + std::to_string(id) + " is out of range for the byte tokenizer (ids 0-" +
                           std::to_string(kEndOfText) + ")");
    }
  }
  return text;
}

}  // namespace traindeck
