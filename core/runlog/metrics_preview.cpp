// One pread per sample: a window from the sampled offset, the line that starts after its first
// newline. Offsets only grow, so no line is taken twice and the records stay in file order.
#include "runlog/metrics_preview.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string_view>

#include "runlog/metrics_jsonl_parser.h"

namespace traindeck {

namespace {

constexpr std::size_t kPreviewWindow = 4096;

// Up to `size` bytes at `at` (fewer at the end of the file).
std::string_view readWindow(int fd, char* buffer, std::size_t size, off_t at) {
  for (;;) {
    const ssize_t n = ::pread(fd, buffer, size, at);
    if (n < 0 && errno == EINTR) continue;
    return n <= 0 ? std::string_view() : std::string_view(buffer, static_cast<std::size_t>(n));
  }
}

}  // namespace

MetricsBatch metricsPreview(const std::string& path, std::size_t samples) {
  MetricsBatch batch;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return batch;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || st.st_size <= 0) {
    ::close(fd);
    return batch;
  }
  const auto size = static_cast<std::size_t>(st.st_size);
  // Where the last complete line starts: no sample reads it or past it.
  char buffer[kPreviewWindow];
  std::size_t lastLine = size;
  {
    const std::size_t at = size > kPreviewWindow ? size - kPreviewWindow : 0;
    std::string_view tail = readWindow(fd, buffer, kPreviewWindow, static_cast<off_t>(at));
    const std::size_t end = tail.rfind('\n');  // a partial last line is left out, as the parser would
    if (end != std::string_view::npos) {
      const std::size_t before = end == 0 ? std::string_view::npos : tail.rfind('\n', end - 1);
      if (before != std::string_view::npos || at == 0)
        lastLine = at + (before == std::string_view::npos ? 0 : before + 1);
    }
  }
  std::size_t next = 0;  // the first byte no sample has taken yet
  for (std::size_t k = 0; k < samples; ++k) {
    const std::size_t offset = std::max(next, size / samples * k);
    if (offset >= lastLine) break;
    const std::string_view window = readWindow(fd, buffer, kPreviewWindow, static_cast<off_t>(offset));
    // A line starts at the offset only when it is where the last one ended (or the file's start).
    std::size_t start = 0;
    if (offset != next) {
      const std::size_t nl = window.find('\n');
      if (nl == std::string_view::npos) continue;
      start = nl + 1;
    }
    const std::size_t end = window.find('\n', start);
    if (end == std::string_view::npos || offset + start >= lastLine) continue;
    MetricsJsonlParser::parseLine(window.substr(start, end - start), batch);
    next = offset + end + 1;
  }
  if (lastLine < size && next <= lastLine) {
    const std::string_view window = readWindow(fd, buffer, kPreviewWindow, static_cast<off_t>(lastLine));
    const std::size_t end = window.find('\n');
    if (end != std::string_view::npos) MetricsJsonlParser::parseLine(window.substr(0, end), batch);
  }
  ::close(fd);
  return batch;
}

}  // namespace traindeck
