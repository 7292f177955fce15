// Reads what was appended to a file since the last read, by path: notices a file that appears
// late, is truncated (size below the offset) or replaced (another inode at the path) and
// then starts again from byte 0. Plain POSIX; used by one thread at a time.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <string>

namespace traindeck {

class FileTail {
 public:
  explicit FileTail(std::string path) : m_path(std::move(path)) {}
  ~FileTail();
  FileTail(const FileTail&) = delete;
  FileTail& operator=(const FileTail&) = delete;

  struct Chunk {
    bool restart = false;  // what was read before is void: the file was truncated or replaced
    std::string bytes;     // new bytes, at most the asked maximum
    bool more = false;     // more bytes were already there than were read
  };
  // Never throws for I/O trouble: a missing or unreadable file reads as nothing new.
  Chunk read(std::size_t maxBytes);

  const std::string& path() const { return m_path; }
  off_t offset() const { return m_offset; }

 private:
  void close();
  std::string m_path;
  int m_fd = -1;
  dev_t m_dev = 0;
  ino_t m_inode = 0;
  off_t m_offset = 0;
  bool m_hadFile = false;  // a file was read before: a new one is a restart
};

}  // namespace traindeck
