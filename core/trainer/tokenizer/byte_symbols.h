// GPT-2's bytes_to_unicode: in encoder.json and vocab.bpe every byte is written as one
// printable character. Printable Latin-1 bytes stand for themselves; the other 68 bytes (control
// characters, space, DEL, NBSP, soft hyphen...) are written as U+0100 to U+0143, in byte order.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace traindeck {

// The code point that stands for `byte`.
std::uint32_t byteSymbol(std::uint8_t byte);

// The bytes a string of symbols stands for; nullopt when `symbols` is not valid UTF-8 or holds
// a character that stands for no byte.
std::optional<std::string> symbolsToBytes(std::string_view symbols);

}  // namespace traindeck
