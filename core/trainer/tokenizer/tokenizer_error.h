// The one exception type of the tokenizer library: a file that cannot be read or parsed, a
// token id outside the vocabulary, an unknown tokenizer name. The message is one sentence,
// lowercase and without a final period, so that a program can print it after its own prefix.
#pragma once

#include <stdexcept>
#include <string>

namespace traindeck {

class TokenizerError : public std::runtime_error {
 public:
  explicit TokenizerError(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace traindeck
