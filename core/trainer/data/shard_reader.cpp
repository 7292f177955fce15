// ShardReader: validation happens once, in the constructor; reads after that are plain loads.
#include "trainer/data/shard_reader.h"

#include "trainer/data/data_error.h"

namespace traindeck {
namespace {

constexpr const char* kRemedy = "re-run traindeck-train prepare to write it again";

}  // namespace

ShardReader::ShardReader(const std::filesystem::path& path) : m_path(path), m_file(path) {
  const std::string name = path.string();
  if (m_file.size() < kShardHeaderBytes)
    throw DataError(name + " is too short to be a token shard (" + std::to_string(m_file.size()) +
                    " bytes, the header alone is " + std::to_string(kShardHeaderBytes) + "); " + kRemedy);
  bool magicMatches = false;
  m_header = decodeShardHeader(m_file.data(), magicMatches);
  if (!magicMatches)
    throw DataError(name + " is not a TrainDeck token shard (wrong magic bytes); " +
                    "give a directory or .bin shards written by traindeck-train prepare");
  if (m_header.version != kShardFormatVersion)
    throw DataError(name + " has shard format version " + std::to_string(m_header.version) +
                    ", which this traindeck-train does not know (it reads version " +
                    std::to_string(kShardFormatVersion) + "); " + kRemedy + " with this version");
  if (m_header.tokenWidth != 2 && m_header.tokenWidth != 4)
    throw DataError(name + " has a token width of " + std::to_string(m_header.tokenWidth) +
                    " bytes (expected 2 or 4); the file is corrupt: " + kRemedy);
  if (m_header.info.vocabSize == 0 || m_header.info.endOfText >= m_header.info.vocabSize)
    throw DataError(name + " has an impossible vocabulary (size " + std::to_string(m_header.info.vocabSize) +
                    ", end-of-text " + std::to_string(m_header.info.endOfText) + "); the file is corrupt: " + kRemedy);
  const std::uint64_t payload = m_file.size() - kShardHeaderBytes;
  const std::uint64_t width = m_header.tokenWidth;
  if (m_header.tokenCount > payload / width || payload != m_header.tokenCount * width) {
    const bool truncated = m_header.tokenCount > payload / width;
    throw DataError(name + (truncated ? " is truncated" : " has trailing bytes after its tokens") +
                    ": its header says " + std::to_string(m_header.tokenCount) + " tokens (" +
                    std::to_string(kShardHeaderBytes + m_header.tokenCount * width) + " bytes) but the file has " +
                    std::to_string(m_file.size()) + " bytes; " + kRemedy);
  }
  m_tokens = m_file.data() + kShardHeaderBytes;
  checkSampledIds();
}

void ShardReader::checkSampledIds() const {
  const std::uint64_t count = size();
  if (count == 0) return;
  const std::uint64_t step = count > kSampledIds ? count / kSampledIds : 1;
  auto check = [&](std::uint64_t index) {
    const std::uint32_t id = at(index);
    if (id >= m_header.info.vocabSize)
      throw DataError(m_path.string() + " holds token id " + std::to_string(id) + " at position " +
                      std::to_string(index) + ", outside its " + m_header.info.tokenizer + " vocabulary of " +
                      std::to_string(m_header.info.vocabSize) + "; the file is corrupt: " + kRemedy);
  };
  for (std::uint64_t index = 0; index < count; index += step) check(index);
  check(count - 1);
}

void ShardReader::copyTo(std::uint64_t begin, std::uint64_t count, std::int64_t* out) const {
  const std::uint32_t width = m_header.tokenWidth;
  const unsigned char* in = m_tokens + begin * width;
  if (width == 2) {
    for (std::uint64_t i = 0; i < count; ++i, in += 2) out[i] = std::int64_t(in[0]) | std::int64_t(in[1]) << 8;
  } else {
    for (std::uint64_t i = 0; i < count; ++i, in += 4) out[i] = loadTokenId(in, 4);
  }
}

std::vector<std::uint32_t> ShardReader::readAll() const {
  std::vector<std::uint32_t> ids(size());
  for (std::uint64_t i = 0; i < ids.size(); ++i) ids[i] = at(i);
  return ids;
}

}  // namespace traindeck
