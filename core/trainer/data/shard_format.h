// Token shard file format, version 1: a 64-byte header, then `tokenCount` little-endian token
// ids of `tokenWidth` bytes each (2 while the vocabulary fits in uint16, else 4). Nothing follows
// the tokens, so a file's size is exactly kShardHeaderBytes + tokenCount * tokenWidth.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace traindeck {

// Header layout (all integers little-endian):
//   0  char[8]  magic "TDTOKENS"
//   8  u32      format version (1)
//  12  u32      token width in bytes (2 or 4)
//  16  u64      token count
//  24  u32      vocabulary size
//  28  u32      end-of-text id
//  32  char[32] tokenizer name, NUL-padded ("byte", "gpt2")
inline constexpr std::size_t kShardHeaderBytes = 64;
inline constexpr std::array<char, 8> kShardMagic = {'T', 'D', 'T', 'O', 'K', 'E', 'N', 'S'};
inline constexpr std::uint32_t kShardFormatVersion = 1;
inline constexpr std::size_t kShardTokenizerNameBytes = 32;

// What a shard says about the tokens it holds.
struct ShardInfo {
  std::string tokenizer;  // at most 31 bytes
  std::uint32_t vocabSize = 0;
  std::uint32_t endOfText = 0;
};

struct ShardHeader {
  std::uint32_t version = kShardFormatVersion;
  std::uint32_t tokenWidth = 2;
  std::uint64_t tokenCount = 0;
  ShardInfo info;
};

// 2 when every id of a `vocabSize` vocabulary fits in uint16, else 4.
std::uint32_t tokenWidthFor(std::uint32_t vocabSize);

std::array<unsigned char, kShardHeaderBytes> encodeShardHeader(const ShardHeader& header);

// Decodes without judging: the caller checks magic, version and width (ShardReader does).
ShardHeader decodeShardHeader(const unsigned char* bytes, bool& magicMatches);

// The id stored at `bytes` with `width` 2 or 4, little-endian.
inline std::uint32_t loadTokenId(const unsigned char* bytes, std::uint32_t width) {
  std::uint32_t id = std::uint32_t(bytes[0]) | std::uint32_t(bytes[1]) << 8;
  if (width == 4) id |= std::uint32_t(bytes[2]) << 16 | std::uint32_t(bytes[3]) << 24;
  return id;
}

}  // namespace traindeck
