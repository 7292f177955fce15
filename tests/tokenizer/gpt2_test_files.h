// Where the tokenizer tests find GPT-2's files and Node.js (both optional), the one shared
// loaded vocabulary, and the skip that names the script which fetches the files.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>

#include "trainer/tokenizer/gpt2_vocabulary.h"

namespace traindeck::tokenizer_test {

inline std::filesystem::path gpt2Dir() {
  return TRAINDECK_GPT2_TOKENIZER_DIR;
}
inline std::filesystem::path fixturesDir() {
  return TRAINDECK_TOKENIZER_FIXTURES_DIR;
}
inline std::filesystem::path referenceScript() {
  return TRAINDECK_TOKENIZER_REFERENCE_SCRIPT;
}
inline std::string nodeExecutable() {
  return TRAINDECK_NODE_EXECUTABLE;
}

inline bool haveGpt2Files() {
  const std::filesystem::path dir = gpt2Dir();
  return std::filesystem::is_regular_file(dir / "encoder.json") && std::filesystem::is_regular_file(dir / "vocab.bpe");
}

inline bool haveNode() {
  return !nodeExecutable().empty() && std::filesystem::exists(nodeExecutable());
}

inline bool haveNodeReference() {
  return haveNode() && std::filesystem::is_regular_file(gpt2Dir() / "Encoder.js");
}

// Loaded once per test program: reading 1 MB of JSON for every test would be slow.
inline std::shared_ptr<const Gpt2Vocabulary> sharedGpt2Vocabulary() {
  static const auto vocabulary =
      std::make_shared<const Gpt2Vocabulary>(Gpt2Vocabulary::load(gpt2Dir() / "encoder.json", gpt2Dir() / "vocab.bpe"));
  return vocabulary;
}

}  // namespace traindeck::tokenizer_test

#define TRAINDECK_SKIP_WITHOUT_GPT2_FILES()                                                                     \
  if (!::traindeck::tokenizer_test::haveGpt2Files())                                                            \
  GTEST_SKIP() << "GPT-2 tokenizer files not found in " << ::traindeck::tokenizer_test::gpt2Dir().string()      \
               << "; run packaging/fetch-gpt2-tokenizer.sh " << ::traindeck::tokenizer_test::gpt2Dir().string() \
               << " (or configure with -DTRAINDECK_GPT2_TOKENIZER_DIR=DIR)"
