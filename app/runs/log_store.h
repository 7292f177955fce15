// One run's log lines as the app keeps them: every rank's lines in arrival order, bounded (the
// oldest go first once kMaxLines are held). A rank whose log was truncated or replaced starts
// again: its lines are dropped and come anew from the file. Views read it by sequence number:
// each line keeps the number it arrived with, so a view appends what is past the last one it
// showed and rebuilds when generation() changes. Plain C++ on Qt strings, owned by one thread.
#pragma once

#include <QVector>
#include <cstddef>
#include <cstdint>
#include <deque>

#include "log_line.h"

namespace traindeck {

class LogStore {
 public:
  static constexpr std::size_t kMaxLines = 200000;

  explicit LogStore(std::size_t maxLines = kMaxLines) : m_maxLines(maxLines) {}

  void append(const QVector<LogLine>& lines);
  // Forgets `rank`'s lines: its log begins again. Views must rebuild (generation() changes).
  void restartRank(int rank);
  void clear();

  std::size_t size() const { return m_lines.size(); }
  const LogLine& at(std::size_t index) const { return m_lines[index].line; }
  // The sequence number of at(index): counts every line ever appended, in order.
  std::uint64_t sequenceAt(std::size_t index) const { return m_lines[index].sequence; }
  // The number the next line will get.
  std::uint64_t endSequence() const { return m_next; }
  // Changes whenever lines go other than from the front by the bound (a restart, a clear).
  std::uint64_t generation() const { return m_generation; }
  // Lines dropped by the bound since the last clear.
  std::uint64_t droppedLines() const { return m_dropped; }
  // The index of the first line with sequence >= `sequence` (size() when none).
  std::size_t indexFrom(std::uint64_t sequence) const;

 private:
  struct Entry {
    std::uint64_t sequence;
    LogLine line;
  };
  std::size_t m_maxLines;
  std::deque<Entry> m_lines;
  std::uint64_t m_next = 0;
  std::uint64_t m_generation = 0;
  std::uint64_t m_dropped = 0;
};

}  // namespace traindeck
