// A strict reader for GPT-2's encoder.json (vocab.json): one JSON object whose values are
// non-negative integer ids. Anything else (other value types, duplicate keys, bad escapes,
// malformed UTF-8, trailing text) throws TokenizerError naming the source, line and column.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace traindeck {

struct TokenIdEntry {
  std::string token;  // the key, as UTF-8
  std::uint32_t id;
  std::size_t offset;  // of the key's opening quote, for messages
};

// The entries in file order. `source` names the text in messages (usually its path).
std::vector<TokenIdEntry> parseTokenIdJson(std::string_view json, const std::string& source);

// "line L, column C" (both from 1) of a byte offset, for messages.
std::string describeOffset(std::string_view text, std::size_t offset);

}  // namespace traindeck
