// Follows a growing text file from a byte offset and hands out its new complete lines; a
// partial last line waits for its newline. Used for a rank's log and for metrics.jsonl. The
// project's one file tail and one line splitter (core/runlog) underneath.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runlog/file_tail.h"
#include "runlog/line_splitter.h"

namespace traindeck {

// Bytes one readNewLines() call reads at most, so that a huge backlog cannot stall the caller.
inline constexpr std::int64_t kLineTailMaxRead = 4 << 20;
// A line longer than this is handed out cut to it.
inline constexpr std::size_t kLineTailMaxLine = 1 << 20;

class LineTail {
 public:
  // `offset`: where to start reading; a file that does not exist yet is opened when it appears.
  explicit LineTail(std::string path, std::int64_t offset = 0) : m_tail(std::move(path), offset) {}

  // The complete lines written since the last call, without their '\n'. A file that shrank
  // (truncated or replaced) is read again from its start.
  std::vector<std::string> readNewLines();
  // The held partial line, which is then dropped; for the last read after the writer is gone.
  std::string takePartialLine() { return m_lines.takePartial(); }

 private:
  FileTail m_tail;
  LineSplitter m_lines{kLineTailMaxLine};
};

}  // namespace traindeck
