// A read-only memory map of a whole file (POSIX mmap), released when the object goes away.
// Shards are read through it so that a loader over many gigabytes of tokens costs address space,
// not memory: the kernel pages tokens in as windows touch them.
#pragma once

#include <cstddef>
#include <filesystem>

namespace traindeck {

class MappedFile {
 public:
  // Throws DataError naming the file when it cannot be opened or mapped.
  explicit MappedFile(const std::filesystem::path& path);
  ~MappedFile();
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const unsigned char* data() const { return m_data; }
  std::size_t size() const { return m_size; }

 private:
  void release() noexcept;

  const unsigned char* m_data = nullptr;  // null for an empty file
  std::size_t m_size = 0;
};

}  // namespace traindeck
