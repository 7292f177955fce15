// makeTokenizer: the one place that maps tokenizer names to classes.
#include "trainer/tokenizer/make_tokenizer.h"

#include "trainer/tokenizer/byte_tokenizer.h"
#include "trainer/tokenizer/gpt2_tokenizer.h"
#include "trainer/tokenizer/tokenizer_error.h"

namespace traindeck {

std::unique_ptr<Tokenizer> makeTokenizer(std::string_view name, const std::filesystem::path& vocabFile,
                                         const std::filesystem::path& mergesFile) {
  if (name == "byte") return std::make_unique<ByteTokenizer>();
  if (name == "gpt2") {
    if (vocabFile.empty() || mergesFile.empty())
      throw TokenizerError("the gpt2 tokenizer needs its vocabulary (encoder.json) and merges (vocab.bpe) files");
    return std::make_unique<Gpt2Tokenizer>(vocabFile, mergesFile);
  }
  throw TokenizerError("unknown tokenizer \"" + std::string(name) + "\" (known: byte, gpt2)");
}

}  // namespace traindeck
