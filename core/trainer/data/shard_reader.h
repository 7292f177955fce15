// Reads one token shard through a memory map, after checking it: the magic bytes, the format
// version, the token width, a size of exactly header + count * width, and (on a sample of
// positions) ids below the vocabulary size. Any failure is a DataError naming the file.
// Read-only after construction, so any number of threads may read one reader at once.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "trainer/data/mapped_file.h"
#include "trainer/data/shard_format.h"

namespace traindeck {

class ShardReader {
 public:
  // How many evenly spaced ids (plus the first and last) the constructor checks.
  // Few, because each costs a page read when the file is not cached and a run opens every shard;
  // a wrong width or a foreign file shows on nearly every sample.
  static constexpr std::uint64_t kSampledIds = 256;

  explicit ShardReader(const std::filesystem::path& path);

  const std::filesystem::path& path() const { return m_path; }
  const ShardHeader& header() const { return m_header; }
  const ShardInfo& info() const { return m_header.info; }
  std::uint64_t size() const { return m_header.tokenCount; }

  std::uint32_t at(std::uint64_t index) const {
    return loadTokenId(m_tokens + index * m_header.tokenWidth, m_header.tokenWidth);
  }
  // Copies ids [begin, begin + count) to `out` widened to int64; the range must lie in the shard.
  void copyTo(std::uint64_t begin, std::uint64_t count, std::int64_t* out) const;
  std::vector<std::uint32_t> readAll() const;  // for tests and small shards

 private:
  void checkSampledIds() const;

  std::filesystem::path m_path;
  MappedFile m_file;
  ShardHeader m_header;
  const unsigned char* m_tokens = nullptr;
};

}  // namespace traindeck
