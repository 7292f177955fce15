// Gpt2Tokenizer: split, then BPE each piece (or find it in the cache), then concatenate.
#include "trainer/tokenizer/gpt2_tokenizer.h"

#include "trainer/tokenizer/gpt2_splitter.h"
#include "trainer/tokenizer/tokenizer_error.h"

namespace traindeck {

Gpt2Tokenizer::Gpt2Tokenizer(const std::filesystem::path& vocabFile, const std::filesystem::path& mergesFile)
    : Gpt2Tokenizer(std::make_shared<const Gpt2Vocabulary>(Gpt2Vocabulary::load(vocabFile, mergesFile))) {}

Gpt2Tokenizer::Gpt2Tokenizer(std::shared_ptr<const Gpt2Vocabulary> vocabulary) : m_vocabulary(std::move(vocabulary)) {}

void Gpt2Tokenizer::encodeInto(std::string_view text, std::vector<std::uint32_t>& ids) {
  Gpt2Splitter splitter(text);
  for (std::string_view piece = splitter.next(); !piece.empty(); piece = splitter.next()) encodePiece(piece, ids);
}

void Gpt2Tokenizer::encodePiece(std::string_view piece, std::vector<std::uint32_t>& ids) {
  if (piece.size() == 1) {
    ids.push_back(m_vocabulary->byteId(static_cast<unsigned char>(piece[0])));
    return;
  }
  if (const auto cached = m_cache.find(piece)) {
    ids.insert(ids.end(), cached->begin(), cached->end());
    return;
  }
  m_symbols.clear();
  for (const char c : piece) m_symbols.push_back(m_vocabulary->byteId(static_cast<unsigned char>(c)));
  m_vocabulary->merges().apply(m_symbols, m_workspace);
  m_cache.insert(piece, m_symbols);
  ids.insert(ids.end(), m_symbols.begin(), m_symbols.end());
}

std::string Gpt2Tokenizer::decode(std::span<const std::uint32_t> ids) const {
  std::string text;
  for (const std::uint32_t id : ids) {
    if (id >= vocabSize())
      throw TokenizerError("token id " + std::to_string(id) + " is out of range for the gpt2 tokenizer (ids 0-" +
                           std::to_string(vocabSize() - 1) + ")");
    text += m_vocabulary->bytes(id);
  }
  return text;
}

}  // namespace traindeck
