// Helpers for the data tests: a temporary folder removed afterwards, whole-file reads and
// writes, and a split's tokens read back through dataset.json and ShardReader.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "trainer/data/shard_format.h"

namespace traindeck::test {

class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return m_path; }
  std::filesystem::path operator/(const std::string& name) const { return m_path / name; }

 private:
  std::filesystem::path m_path;
};

void writeFile(const std::filesystem::path& path, const std::string& contents);
std::string readFile(const std::filesystem::path& path);

// The tokens of a prepared directory's split, all shards concatenated.
std::vector<std::uint32_t> splitTokens(const std::filesystem::path& dir, const std::string& split);

// A shard holding `ids`, written through ShardWriter.
void writeShard(const std::filesystem::path& path, const std::vector<std::uint32_t>& ids, const ShardInfo& info);

// Peak resident memory of this process so far, in bytes (getrusage).
std::uint64_t peakRssBytes();

}  // namespace traindeck::test
