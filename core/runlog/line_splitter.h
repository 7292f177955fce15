// Splits bytes that arrive in any chunks into lines, for every reader of the run directory's
// text files (metrics.jsonl, the rank logs): a partial last line is held until its newline; a
// line longer than the limit is cut to it (handed out once, marked as cut) and the rest of it,
// up to its newline, skipped. Complete lines inside one chunk are handed out as views into it,
// without a copy.
#pragma once

#include <cstddef>
#include <cstring>
#include <string>
#include <string_view>

namespace traindeck {

class LineSplitter {
 public:
  explicit LineSplitter(std::size_t maxLine) : m_maxLine(maxLine) {}

  // Calls onLine(std::string_view line, bool cut) for each line `bytes` completes, in order.
  template <class OnLine>
  void feed(std::string_view bytes, OnLine&& onLine);
  // The held partial line (cut to the limit), which is then forgotten: for a last read.
  std::string takePartial();
  // Forgets a held partial line (the file was replaced or truncated).
  void reset();
  std::size_t pendingBytes() const { return m_partial.size(); }
  // Nothing held and nothing being skipped: the next byte fed starts a line.
  bool atLineStart() const { return m_partial.empty() && !m_skipping; }

 private:
  template <class OnLine>
  void hold(std::string_view rest, OnLine& onLine);

  std::size_t m_maxLine;
  std::string m_partial;
  bool m_skipping = false;  // inside a line already handed out cut: skip to its newline
};

template <class OnLine>
void LineSplitter::feed(std::string_view bytes, OnLine&& onLine) {
  std::size_t pos = 0;
  if (m_skipping || !m_partial.empty()) {  // first, the line an earlier chunk began
    const void* nl = std::memchr(bytes.data(), '\n', bytes.size());
    if (nl == nullptr) {
      if (!m_skipping) hold(bytes, onLine);
      return;
    }
    pos = static_cast<std::size_t>(static_cast<const char*>(nl) - bytes.data()) + 1;
    if (m_skipping) {
      m_skipping = false;
    } else {
      const std::size_t room = m_maxLine - m_partial.size();
      const bool cut = pos - 1 > room;
      m_partial.append(bytes.data(), cut ? room : pos - 1);
      onLine(std::string_view(m_partial), cut);
      m_partial.clear();
    }
  }
  while (pos < bytes.size()) {
    const char* start = bytes.data() + pos;
    const void* nl = std::memchr(start, '\n', bytes.size() - pos);
    if (nl == nullptr) {
      hold(bytes.substr(pos), onLine);
      return;
    }
    const auto length = static_cast<std::size_t>(static_cast<const char*>(nl) - start);
    if (length > m_maxLine)
      onLine(std::string_view(start, m_maxLine), true);
    else
      onLine(std::string_view(start, length), false);
    pos += length + 1;
  }
}

template <class OnLine>
void LineSplitter::hold(std::string_view rest, OnLine& onLine) {
  const std::size_t room = m_maxLine - m_partial.size();
  if (rest.size() <= room) {
    m_partial.append(rest);
    return;
  }
  m_partial.append(rest.substr(0, room));  // over the limit without a newline: out it goes, cut
  onLine(std::string_view(m_partial), true);
  m_partial.clear();
  m_skipping = true;
}

inline std::string LineSplitter::takePartial() {
  std::string out = std::move(m_partial);
  m_partial.clear();
  return out;
}

inline void LineSplitter::reset() {
  m_partial.clear();
  m_skipping = false;
}

}  // namespace traindeck
