// Writes one token shard (shard_format.h). Tokens stream to "<path>.partial"; finish() fills in
// the header's token count, syncs and renames to <path>, so a crash or an error never leaves a
// file that looks complete. Not thread-safe: one writer, one thread.
#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <span>
#include <vector>

#include "trainer/data/shard_format.h"

namespace traindeck {

class ShardWriter {
 public:
  // Throws DataError when the file cannot be created.
  ShardWriter(std::filesystem::path path, ShardInfo info);
  ~ShardWriter();  // removes the partial file unless finish() succeeded
  ShardWriter(const ShardWriter&) = delete;
  ShardWriter& operator=(const ShardWriter&) = delete;

  // Throws DataError for an id at or above the vocabulary size, or a failed write.
  void append(std::span<const std::uint32_t> ids);
  // Completes the file; returns its token count. Throws DataError when it cannot.
  std::uint64_t finish();

  std::uint64_t tokenCount() const { return m_count; }
  const std::filesystem::path& path() const { return m_path; }

 private:
  void writeBytes(const void* bytes, std::size_t size);
  [[noreturn]] void fail(const std::string& what);

  std::filesystem::path m_path;
  std::filesystem::path m_partialPath;
  ShardHeader m_header;
  std::FILE* m_file = nullptr;
  std::uint64_t m_count = 0;
  std::vector<unsigned char> m_scratch;  // ids packed to the token width
};

}  // namespace traindeck
