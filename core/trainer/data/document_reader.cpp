// DocumentReader: one buffer, scanned line by line with memchr; emitted text is copied out and
// the buffer compacted only when more of the file is read, so many small documents cost no
// quadratic moves.
#include "trainer/data/document_reader.h"

#include <cerrno>
#include <cstring>

#include "trainer/data/data_error.h"

namespace traindeck {
namespace {

constexpr std::size_t kReadBlockBytes = 1 << 20;

bool isContinuationByte(char c) {
  return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

}  // namespace

DocumentReader::DocumentReader(const std::filesystem::path& path, std::optional<std::string> separator,
                               std::size_t chunkBytes)
    : m_path(path), m_separator(std::move(separator)), m_chunkBytes(chunkBytes < 16 ? 16 : chunkBytes) {
  m_file = std::fopen(path.c_str(), "rb");
  if (!m_file) throw DataError("cannot read " + path.string() + ": " + std::strerror(errno));
}

DocumentReader::~DocumentReader() {
  if (m_file) std::fclose(m_file);
}

bool DocumentReader::next(std::string& text, bool& endsDocument) {
  if (m_done) return false;
  for (;;) {
    while (const void* found = std::memchr(m_buffer.data() + m_scan, '\n', m_buffer.size() - m_scan)) {
      const std::size_t newline = static_cast<std::size_t>(static_cast<const char*>(found) - m_buffer.data());
      const bool separator = !m_midLine && isSeparator(m_scan, newline);
      m_midLine = false;
      if (separator) {
        const bool emit = m_scan > m_start || m_documentOpen;
        take(m_scan, newline + 1, text);
        if (emit) {
          endsDocument = true;
          m_documentOpen = false;
          return true;
        }
        continue;
      }
      m_scan = newline + 1;
      if (m_scan - m_start >= m_chunkBytes) {
        take(m_scan, m_scan, text);
        endsDocument = false;
        m_documentOpen = true;
        return true;
      }
    }
    // m_buffer[m_scan, end) is the start of a line whose newline has not been read yet.
    const std::size_t held = m_buffer.size() - m_start;
    if (held >= m_chunkBytes && m_scan > m_start) {  // whole lines make a chunk
      take(m_scan, m_scan, text);
      endsDocument = false;
      m_documentOpen = true;
      return true;
    }
    if (held > m_chunkBytes || (held == m_chunkBytes && m_eof)) {
      // One line longer than a chunk: cut it, but not inside a UTF-8 character (the byte after
      // the cut has been read, so it can be checked).
      std::size_t cut = m_start + m_chunkBytes;
      for (int back = 0; back < 3 && cut < m_buffer.size() && isContinuationByte(m_buffer[cut]); ++back) --cut;
      take(cut, cut, text);
      m_midLine = true;
      endsDocument = false;
      m_documentOpen = true;
      return true;
    }
    if (m_eof) {
      const std::size_t end = m_buffer.size();
      const bool separator = end > m_scan && !m_midLine && isSeparator(m_scan, end);
      const std::size_t documentEnd = separator ? m_scan : end;
      const bool emit = documentEnd > m_start || m_documentOpen;
      take(documentEnd, end, text);
      m_done = true;
      m_documentOpen = false;
      endsDocument = true;
      return emit;
    }
    fill();
  }
}

bool DocumentReader::isSeparator(std::size_t lineBegin, std::size_t lineEnd) const {
  if (!m_separator) return false;
  if (lineEnd > lineBegin && m_buffer[lineEnd - 1] == '\r') --lineEnd;
  return lineEnd - lineBegin == m_separator->size() &&
         m_buffer.compare(lineBegin, m_separator->size(), *m_separator) == 0;
}

void DocumentReader::take(std::size_t end, std::size_t resume, std::string& text) {
  text.assign(m_buffer, m_start, end - m_start);
  m_consumed += resume - m_start;
  m_start = resume;
  if (m_scan < resume) m_scan = resume;
}

bool DocumentReader::fill() {
  if (m_start > 0) {
    m_buffer.erase(0, m_start);
    m_scan -= m_start;
    m_start = 0;
  }
  const std::size_t old = m_buffer.size();
  m_buffer.resize(old + kReadBlockBytes);
  const std::size_t got = std::fread(m_buffer.data() + old, 1, kReadBlockBytes, m_file);
  m_buffer.resize(old + got);
  if (got == 0) {
    if (std::ferror(m_file)) throw DataError("cannot read " + m_path.string() + ": " + std::strerror(errno));
    m_eof = true;
  }
  return got > 0;
}

}  // namespace traindeck
