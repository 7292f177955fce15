// The path is stat'ed on every read and compared with the open descriptor, so a rename over
// the file (a new inode) is seen even though the old descriptor still reads fine.
#include "file_tail.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace traindeck {

FileTail::~FileTail() {
  close();
}

void FileTail::close() {
  if (m_fd >= 0) ::close(m_fd);
  m_fd = -1;
}

FileTail::Chunk FileTail::read(std::size_t maxBytes) {
  Chunk chunk;
  struct stat st {};
  if (::stat(m_path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
    close();  // gone for now; a file that comes back is a new one
    return chunk;
  }
  if (m_fd < 0 || st.st_ino != m_inode || st.st_dev != m_dev) {
    close();
    m_fd = ::open(m_path.c_str(), O_RDONLY | O_CLOEXEC);
    if (m_fd < 0) return chunk;
    struct stat opened {};
    if (::fstat(m_fd, &opened) != 0) {
      close();
      return chunk;
    }
    st = opened;
    m_dev = st.st_dev;
    m_inode = st.st_ino;
    chunk.restart = m_hadFile;
    m_hadFile = true;
    m_offset = 0;
  } else if (st.st_size < m_offset) {
    chunk.restart = true;
    m_offset = 0;
  }
  if (st.st_size <= m_offset) return chunk;
  const auto available = static_cast<std::size_t>(st.st_size - m_offset);
  const std::size_t want = std::min(available, maxBytes);
  chunk.bytes.resize(want);
  std::size_t got = 0;
  while (got < want) {
    const ssize_t n = ::pread(m_fd, chunk.bytes.data() + got, want - got, m_offset + static_cast<off_t>(got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  chunk.bytes.resize(got);
  m_offset += static_cast<off_t>(got);
  chunk.more = got < available;
  return chunk;
}

}  // namespace traindeck
