// The byte <-> symbol tables, built once from GPT-2's rule.
#include "trainer/tokenizer/byte_symbols.h"

#include <array>

#include "trainer/tokenizer/utf8.h"

namespace traindeck {
namespace {

constexpr std::uint32_t kSymbolLimit = 0x100 + 68;  // every symbol is below this
constexpr std::int32_t kNoByte = -1;

struct Tables {
  std::array<std::uint32_t, 256> symbolOfByte{};
  std::array<std::int32_t, kSymbolLimit> byteOfSymbol{};
};

constexpr bool standsForItself(std::uint32_t b) {
  return (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
}

constexpr Tables makeTables() {
  Tables t;
  t.byteOfSymbol.fill(kNoByte);
  std::uint32_t shifted = 0x100;
  for (std::uint32_t b = 0; b < 256; ++b) {
    t.symbolOfByte[b] = standsForItself(b) ? b : shifted++;
    t.byteOfSymbol[t.symbolOfByte[b]] = static_cast<std::int32_t>(b);
  }
  return t;
}

constexpr Tables kTables = makeTables();

}  // namespace

std::uint32_t byteSymbol(std::uint8_t byte) {
  return kTables.symbolOfByte[byte];
}

std::optional<std::string> symbolsToBytes(std::string_view symbols) {
  std::string bytes;
  bytes.reserve(symbols.size());
  for (std::size_t pos = 0; pos < symbols.size();) {
    const Utf8Char c = decodeUtf8(symbols, pos);
    if (c.codePoint >= kSymbolLimit || kTables.byteOfSymbol[c.codePoint] == kNoByte) return std::nullopt;
    bytes += static_cast<char>(kTables.byteOfSymbol[c.codePoint]);
    pos += c.length;
  }
  return bytes;
}

}  // namespace traindeck
