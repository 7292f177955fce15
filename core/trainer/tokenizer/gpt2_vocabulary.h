// The loaded, read-only half of the GPT-2 tokenizer: the bytes of every id, the id of every
// byte, the ranked merges and the end-of-text id, read from encoder.json and vocab.bpe and
// checked so that encoding can never meet an unknown symbol. Every problem is a TokenizerError.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "trainer/tokenizer/bpe_merges.h"

namespace traindeck {

class Gpt2Vocabulary {
 public:
  static constexpr std::string_view kEndOfTextToken = "<|endoftext|>";

  static Gpt2Vocabulary load(const std::filesystem::path& vocabFile, const std::filesystem::path& mergesFile);
  // As load(), from the files' contents; the names are for messages.
  static Gpt2Vocabulary parse(std::string_view vocabJson, const std::string& vocabName, std::string_view mergesText,
                              const std::string& mergesName);

  std::uint32_t size() const { return static_cast<std::uint32_t>(m_offsets.size() - 1); }
  std::string_view bytes(std::uint32_t id) const {
    return std::string_view(m_bytes).substr(m_offsets[id], m_offsets[id + 1] - m_offsets[id]);
  }
  std::uint32_t byteId(unsigned char byte) const { return m_byteIds[byte]; }
  const BpeMerges& merges() const { return m_merges; }
  std::uint32_t endOfText() const { return m_endOfText; }

 private:
  Gpt2Vocabulary() = default;

  std::string m_bytes;                   // every id's bytes, back to back, in id order
  std::vector<std::uint32_t> m_offsets;  // id -> start in m_bytes; one more entry than ids
  std::array<std::uint32_t, 256> m_byteIds{};
  BpeMerges m_merges;
  std::uint32_t m_endOfText = 0;
};

}  // namespace traindeck
