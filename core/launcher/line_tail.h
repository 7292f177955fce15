// Follows a growing text file from a byte offset and hands out its new complete lines; a
// partial last line waits for its newline. Used for a rank's log and for metrics.jsonl.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace traindeck {

class LineTail {
 public:
  // `offset`: where to start reading; a file that does not exist yet is opened when it appears.
  explicit LineTail(std::string path, std::int64_t offset = 0);
  ~LineTail();
  LineTail(const LineTail&) = delete;
  LineTail& operator=(const LineTail&) = delete;

  // The complete lines written since the last call, without their '\n'. A file that shrank
  // (truncated or replaced) is read again from its start.
  std::vector<std::string> readNewLines();
  // The held partial line, which is then dropped; for the last read after the writer is gone.
  std::string takePartialLine();

 private:
  std::string m_path;
  int m_fd = -1;
  std::int64_t m_offset = 0;  // bytes of the file consumed into lines or m_partial
  std::string m_partial;
};

// Bytes one readNewLines() call reads at most, so that a huge backlog cannot stall the caller.
inline constexpr std::int64_t kLineTailMaxRead = 4 << 20;
// A "line" longer than this is handed out in pieces rather than held without bound.
inline constexpr std::size_t kLineTailMaxLine = 1 << 20;

}  // namespace traindeck
