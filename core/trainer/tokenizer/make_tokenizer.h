// Builds a tokenizer from its name, as written in a config's data.tokenizer or on the command
// line: "byte" needs no files; "gpt2" loads encoder.json (vocab) and vocab.bpe (merges).
#pragma once

#include <filesystem>
#include <memory>
#include <string_view>

#include "trainer/tokenizer/tokenizer.h"

namespace traindeck {

// Throws TokenizerError for an unknown name, missing GPT-2 paths, or files that do not load.
std::unique_ptr<Tokenizer> makeTokenizer(std::string_view name, const std::filesystem::path& vocabFile = {},
                                         const std::filesystem::path& mergesFile = {});

}  // namespace traindeck
