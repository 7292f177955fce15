// Shard header encoding: explicit little-endian byte order, so shards move between machines.
#include "trainer/data/shard_format.h"

#include <algorithm>
#include <cstring>

namespace traindeck {
namespace {

void storeLe(unsigned char* out, std::uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out[i] = static_cast<unsigned char>(value >> (8 * i));
}

std::uint64_t loadLe(const unsigned char* in, int bytes) {
  std::uint64_t value = 0;
  for (int i = 0; i < bytes; ++i) value |= std::uint64_t(in[i]) << (8 * i);
  return value;
}

}  // namespace

std::uint32_t tokenWidthFor(std::uint32_t vocabSize) {
  return vocabSize <= 65536 ? 2 : 4;
}

std::array<unsigned char, kShardHeaderBytes> encodeShardHeader(const ShardHeader& header) {
  std::array<unsigned char, kShardHeaderBytes> bytes{};
  std::memcpy(bytes.data(), kShardMagic.data(), kShardMagic.size());
  storeLe(bytes.data() + 8, header.version, 4);
  storeLe(bytes.data() + 12, header.tokenWidth, 4);
  storeLe(bytes.data() + 16, header.tokenCount, 8);
  storeLe(bytes.data() + 24, header.info.vocabSize, 4);
  storeLe(bytes.data() + 28, header.info.endOfText, 4);
  const std::size_t nameBytes = std::min(header.info.tokenizer.size(), kShardTokenizerNameBytes - 1);
  std::memcpy(bytes.data() + 32, header.info.tokenizer.data(), nameBytes);
  return bytes;
}

ShardHeader decodeShardHeader(const unsigned char* bytes, bool& magicMatches) {
  magicMatches = std::memcmp(bytes, kShardMagic.data(), kShardMagic.size()) == 0;
  ShardHeader header;
  header.version = static_cast<std::uint32_t>(loadLe(bytes + 8, 4));
  header.tokenWidth = static_cast<std::uint32_t>(loadLe(bytes + 12, 4));
  header.tokenCount = loadLe(bytes + 16, 8);
  header.info.vocabSize = static_cast<std::uint32_t>(loadLe(bytes + 24, 4));
  header.info.endOfText = static_cast<std::uint32_t>(loadLe(bytes + 28, 4));
  const char* name = reinterpret_cast<const char*>(bytes + 32);
  header.info.tokenizer.assign(name, std::find(name, name + kShardTokenizerNameBytes, '\0'));
  return header;
}

}  // namespace traindeck
