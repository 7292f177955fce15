#include "log_store.h"

#include <algorithm>

namespace traindeck {

void LogStore::append(const QVector<LogLine>& lines) {
  for (const LogLine& line : lines) m_lines.push_back({m_next++, line});
  while (m_lines.size() > m_maxLines) {
    m_lines.pop_front();
    ++m_dropped;
  }
}

void LogStore::restartRank(int rank) {
  std::erase_if(m_lines, [rank](const Entry& e) { return e.line.rank == rank; });
  ++m_generation;
}

void LogStore::clear() {
  m_lines.clear();
  m_dropped = 0;
  ++m_generation;
}

std::size_t LogStore::indexFrom(std::uint64_t sequence) const {
  const auto it = std::lower_bound(m_lines.begin(), m_lines.end(), sequence,
                                   [](const Entry& e, std::uint64_t s) { return e.sequence < s; });
  return static_cast<std::size_t>(it - m_lines.begin());
}

}  // namespace traindeck
