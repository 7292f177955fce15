// At most kLineTailMaxRead bytes per call; the file tail notices truncation and replacement.
#include "line_tail.h"

namespace traindeck {

std::vector<std::string> LineTail::readNewLines() {
  std::vector<std::string> lines;
  FileTail::Chunk chunk = m_tail.read(static_cast<std::size_t>(kLineTailMaxRead));
  if (chunk.restart) m_lines.reset();
  m_lines.feed(chunk.bytes, [&](std::string_view line, bool) { lines.emplace_back(line); });
  return lines;
}

}  // namespace traindeck
