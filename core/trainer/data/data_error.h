// The one exception type of the data library: a shard or dataset that is missing, corrupt,
// made by another tokenizer, or cannot be written. The message names the file and says what
// to do; like TokenizerError it is one lowercase sentence without a final period.
#pragma once

#include <stdexcept>
#include <string>

namespace traindeck {

class DataError : public std::runtime_error {
 public:
  explicit DataError(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace traindeck
