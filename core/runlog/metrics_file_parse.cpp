// parseMetricsFile: the file's whole lines cut into one stretch per thread at newlines; each
// thread preads its stretch 1 MiB at a time into its own buffer and parses it while it is still
// in cache, into its own batch; the batches are joined in file order.
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <thread>

#include "runlog/metrics_jsonl_parser.h"

namespace traindeck {

namespace {

constexpr std::size_t kBlockBytes = 1 << 20;
constexpr std::size_t kSearchBytes = 64 << 10;
// A guess of rows from bytes, on the high side (our train lines are ~170 bytes): too much room
// is address space only, too little grows nine columns by doubling.
constexpr std::int64_t kFewestBytesPerLine = 64;

// Reads [offset, offset + size) into `into`; false at an error or the file's end.
bool readExactly(int fd, std::int64_t offset, std::size_t size, std::string& into) {
  into.resize(size);
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n =
        ::pread(fd, into.data() + done, size - done, static_cast<off_t>(offset + static_cast<std::int64_t>(done)));
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

// The offset just after the first newline at or after `from` and before `end`; `end` if none.
std::optional<std::int64_t> afterNewlineFrom(int fd, std::int64_t from, std::int64_t end) {
  std::string window;
  for (std::int64_t at = from; at < end; at += static_cast<std::int64_t>(kSearchBytes)) {
    const auto size = static_cast<std::size_t>(std::min<std::int64_t>(end - at, kSearchBytes));
    if (!readExactly(fd, at, size, window)) return std::nullopt;
    const void* nl = std::memchr(window.data(), '\n', size);
    if (nl) return at + (static_cast<const char*>(nl) - window.data()) + 1;
  }
  return end;
}

// The offset just after the last newline before `end`; 0 if none.
std::optional<std::int64_t> afterLastNewline(int fd, std::int64_t end) {
  std::string window;
  for (std::int64_t to = end; to > 0; to -= static_cast<std::int64_t>(kSearchBytes)) {
    const std::int64_t from = std::max<std::int64_t>(0, to - static_cast<std::int64_t>(kSearchBytes));
    if (!readExactly(fd, from, static_cast<std::size_t>(to - from), window)) return std::nullopt;
    const std::size_t nl = std::string_view(window).rfind('\n');
    if (nl != std::string_view::npos) return from + static_cast<std::int64_t>(nl) + 1;
  }
  return 0;
}

// The lines of [begin, end), which starts a line and ends after a newline, into `batch`.
bool parseStretch(int fd, std::int64_t begin, std::int64_t end, MetricsBatch& batch) {
  reserveRows(batch.train, static_cast<std::size_t>((end - begin) / kFewestBytesPerLine + 1));
  LineSplitter lines(MetricsJsonlParser::kMaxLineBytes);
  std::string block;
  for (std::int64_t at = begin; at < end; at += static_cast<std::int64_t>(kBlockBytes)) {
    const auto size = static_cast<std::size_t>(std::min<std::int64_t>(end - at, kBlockBytes));
    if (!readExactly(fd, at, size, block)) return false;
    lines.feed(block, [&](std::string_view line, bool cut) {
      if (cut)
        ++batch.garbageLines;  // an overlong line is dropped, counted once
      else
        MetricsJsonlParser::parseLine(line, batch);
    });
  }
  return true;
}

}  // namespace

std::optional<MetricsFileRecords> parseMetricsFile(int fd) {
  const off_t size = ::lseek(fd, 0, SEEK_END);
  if (size < 0) return std::nullopt;
  const std::optional<std::int64_t> recordBytes = afterLastNewline(fd, size);
  if (!recordBytes) return std::nullopt;
  const unsigned threads = std::min(8u, std::max(1u, std::thread::hardware_concurrency()));
  const std::int64_t stretches =
      *recordBytes >= static_cast<std::int64_t>(MetricsJsonlParser::kParallelBytes) ? threads : 1;
  std::vector<std::int64_t> cuts{0};
  for (std::int64_t i = 1; i < stretches; ++i) {
    const std::optional<std::int64_t> cut =
        afterNewlineFrom(fd, std::max(cuts.back(), *recordBytes * i / stretches - 1), *recordBytes);
    if (!cut) return std::nullopt;
    cuts.push_back(*cut);
  }
  cuts.push_back(*recordBytes);

  std::vector<MetricsBatch> pieces(cuts.size() - 1);
  std::vector<char> ok(pieces.size(), 0);
  const auto parse = [&](std::size_t i) { ok[i] = parseStretch(fd, cuts[i], cuts[i + 1], pieces[i]); };
  std::vector<std::thread> workers;
  for (std::size_t i = 1; i < pieces.size(); ++i) workers.emplace_back(parse, i);
  parse(0);
  for (std::thread& w : workers) w.join();
  if (std::count(ok.begin(), ok.end(), 0) > 0) return std::nullopt;  // cut short under us
  return MetricsFileRecords{joinBatches(std::move(pieces)), *recordBytes};
}

}  // namespace traindeck
