// The path is stat'ed on every read and compared with the open descriptor, so a rename over
// the file (a new inode) is seen even though the old descriptor still reads fine. Whether a
// replacement continues the old file is decided by reading its two edges once.
#include "file_tail.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "runlog/huge_pages.h"

namespace traindeck {

namespace {

bool readExactly(int fd, std::string& out, std::size_t size, off_t at) {
  out.resize(size);
  std::size_t got = 0;
  while (got < size) {
    const ssize_t n = ::pread(fd, out.data() + got, size - got, at + static_cast<off_t>(got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    got += static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

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
    if (!m_hadFile) {
      m_hadFile = true;
      m_offset = st.st_size >= m_startOffset ? static_cast<off_t>(m_startOffset) : 0;
      forgetWhatWasRead(m_offset == 0);
    } else if (!openedFileStartsWithWhatWasRead(st.st_size)) {
      chunk.restart = true;
      m_offset = 0;
      forgetWhatWasRead(true);
    }
  } else if (st.st_size < m_offset) {
    chunk.restart = true;
    m_offset = 0;
    forgetWhatWasRead(true);
  }
  if (st.st_size <= m_offset) return chunk;
  const auto available = static_cast<std::size_t>(st.st_size - m_offset);
  const std::size_t want = std::min(available, maxBytes);
  // A long history is read in chunks of tens of MiB: fresh memory, advised as huge pages
  // before it is written (runlog/huge_pages.h).
  chunk.bytes.reserve(want);
  adviseHugePages(chunk.bytes.data(), chunk.bytes.capacity());
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
  remember(chunk.bytes);
  chunk.more = got < available;
  return chunk;
}

void FileTail::forgetWhatWasRead(bool known) {
  m_prefixKnown = known;
  m_first.clear();
  m_last.clear();
}

void FileTail::remember(const std::string& bytes) {
  if (m_first.size() < kEdgeBytes) m_first.append(bytes, 0, std::min(bytes.size(), kEdgeBytes - m_first.size()));
  if (bytes.size() >= kEdgeBytes) {
    m_last.assign(bytes, bytes.size() - kEdgeBytes, kEdgeBytes);
  } else {
    m_last.append(bytes);
    if (m_last.size() > kEdgeBytes) m_last.erase(0, m_last.size() - kEdgeBytes);
  }
}

bool FileTail::openedFileStartsWithWhatWasRead(off_t size) {
  if (!m_prefixKnown || m_offset == 0 || size < m_offset) return false;
  std::string first, last;
  return readExactly(m_fd, first, m_first.size(), 0) && first == m_first &&
         readExactly(m_fd, last, m_last.size(), m_offset - static_cast<off_t>(m_last.size())) && last == m_last;
}

}  // namespace traindeck
