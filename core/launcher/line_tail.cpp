// Reads with pread() from the remembered offset: each byte is read once, never the whole file.
#include "line_tail.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace traindeck {

LineTail::LineTail(std::string path, std::int64_t offset) : m_path(std::move(path)), m_offset(offset) {}

LineTail::~LineTail() {
  if (m_fd >= 0) ::close(m_fd);
}

std::vector<std::string> LineTail::readNewLines() {
  std::vector<std::string> lines;
  if (m_fd < 0) {
    m_fd = ::open(m_path.c_str(), O_RDONLY | O_CLOEXEC);
    if (m_fd < 0) return lines;
  }
  struct stat st {};
  if (::fstat(m_fd, &st) != 0) return lines;
  if (st.st_size < m_offset) {  // truncated: start over
    m_offset = 0;
    m_partial.clear();
  }

  char buffer[64 * 1024];
  std::int64_t readSoFar = 0;
  while (readSoFar < kLineTailMaxRead) {
    const ssize_t n = ::pread(m_fd, buffer, sizeof buffer, m_offset);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    m_offset += n;
    readSoFar += n;
    for (ssize_t i = 0; i < n; ++i) {
      if (buffer[i] == '\n') {
        lines.push_back(std::move(m_partial));
        m_partial.clear();
      } else {
        m_partial.push_back(buffer[i]);
        if (m_partial.size() >= kLineTailMaxLine) {
          lines.push_back(std::move(m_partial));
          m_partial.clear();
        }
      }
    }
  }
  return lines;
}

std::string LineTail::takePartialLine() {
  std::string out = std::move(m_partial);
  m_partial.clear();
  return out;
}

}  // namespace traindeck
