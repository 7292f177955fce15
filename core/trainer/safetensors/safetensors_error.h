// The one exception type of the safetensors reader and writer: a file that cannot be opened,
// mapped, written or trusted. The message is one sentence naming the file and the defect,
// lowercase and without a final period, so that a program can print it after its own prefix.
#pragma once

#include <stdexcept>
#include <string>

namespace traindeck {

class SafetensorsError : public std::runtime_error {
 public:
  explicit SafetensorsError(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace traindeck
