// Writes one split of a dataset ("train" or "val") as numbered shards, <split>-000000.bin,
// <split>-000001.bin, ..., each holding at most `shardTokens` tokens; a shard is created only
// when a token arrives for it, so an empty split has no files. Used by prepare's writer thread.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>

#include "trainer/data/dataset_manifest.h"
#include "trainer/data/shard_format.h"
#include "trainer/data/shard_writer.h"

namespace traindeck {

class SplitWriter {
 public:
  SplitWriter(std::filesystem::path dir, std::string split, ShardInfo info, std::uint64_t shardTokens);

  void append(std::span<const std::uint32_t> ids);  // throws DataError
  void countDocument() { ++m_manifest.documents; }
  // Finishes the open shard; the split's entry for dataset.json.
  SplitManifest finish();

  static std::string shardFileName(const std::string& split, std::size_t index);

 private:
  std::filesystem::path m_dir;
  std::string m_split;
  ShardInfo m_info;
  std::uint64_t m_shardTokens;
  std::unique_ptr<ShardWriter> m_current;
  SplitManifest m_manifest;
};

}  // namespace traindeck
