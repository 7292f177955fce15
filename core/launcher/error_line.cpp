// Reads only the tail of the log: a rank that failed after hours of training has a long log,
// and its error is at the end.
#include "error_line.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>

#include "runlog/utf8.h"

namespace traindeck {

namespace {

constexpr std::int64_t kTailBytes = 64 * 1024;
constexpr std::size_t kMaxReasonLine = 300;

bool containsError(std::string_view line) {
  constexpr std::string_view kWord = "error";
  auto it = std::search(line.begin(), line.end(), kWord.begin(), kWord.end(),
                        [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; });
  return it != line.end();
}

std::string readTail(const std::string& path, std::int64_t fromOffset) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  std::string text;
  struct stat st {};
  if (::fstat(fd, &st) == 0 && st.st_size > fromOffset) {
    const std::int64_t start = std::max(fromOffset, static_cast<std::int64_t>(st.st_size) - kTailBytes);
    text.resize(static_cast<std::size_t>(st.st_size - start));
    std::size_t got = 0;
    while (got < text.size()) {
      const ssize_t n = ::pread(fd, text.data() + got, text.size() - got, start + static_cast<std::int64_t>(got));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      got += static_cast<std::size_t>(n);
    }
    text.resize(got);
  }
  ::close(fd);
  return text;
}

}  // namespace

std::string_view withoutTimestamp(std::string_view line) {
  // yyyy-mm-ddThh:mm:ss, then anything up to the first space (fraction, "Z", offset).
  auto digit = [&](std::size_t i) { return i < line.size() && std::isdigit(static_cast<unsigned char>(line[i])); };
  const bool looksLikeTime = line.size() > 19 && digit(0) && digit(1) && digit(2) && digit(3) && line[4] == '-' &&
                             line[7] == '-' && line[10] == 'T' && line[13] == ':' && line[16] == ':';
  if (!looksLikeTime) return line;
  const std::size_t space = line.find(' ', 19);
  if (space == std::string_view::npos) return line;
  const std::size_t text = line.find_first_not_of(' ', space);
  return text == std::string_view::npos ? std::string_view() : line.substr(text);
}

std::string lastErrorLine(const std::string& logPath, std::int64_t fromOffset) {
  const std::string text = readTail(logPath, fromOffset);
  std::string_view rest(text);
  while (!rest.empty()) {
    std::size_t end = rest.size();
    while (end > 0 && (rest[end - 1] == '\n' || rest[end - 1] == '\r')) --end;
    rest = rest.substr(0, end);
    const std::size_t start = rest.rfind('\n') == std::string_view::npos ? 0 : rest.rfind('\n') + 1;
    const std::string_view line = rest.substr(start);
    if (containsError(line)) {
      std::string out(withoutTimestamp(line));
      // Cut between characters: a reason cut inside one (a Chinese path) is not UTF-8.
      if (out.size() > kMaxReasonLine) out = std::string(cutAtCharBoundary(out, kMaxReasonLine)) + "...";
      return out;
    }
    rest = rest.substr(0, start);
  }
  return {};
}

}  // namespace traindeck
