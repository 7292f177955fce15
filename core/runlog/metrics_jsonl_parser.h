// Turns metrics.jsonl bytes, fed in any chunks, into MetricsBatch columns. Plain C++, no Qt:
// the follower runs it in its worker thread, the run list on file tails, tests on fixtures.
// Reader rules (docs/design.md): a partial last line is held back until its newline arrives;
// a line that is not a JSON object, or a known kind without its step, counts as garbage;
// unknown kinds and fields are ignored. Absent or null floats read as NaN.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runlog/line_splitter.h"
#include "runlog/metrics_batch.h"

namespace traindeck {

// Appends `piece`'s records after `into`'s, as if they had been parsed in one go.
void appendBatch(MetricsBatch& into, MetricsBatch&& piece);
// The pieces of one stretch of lines, parsed apart, joined in order (grown once, not per piece).
MetricsBatch joinBatches(std::vector<MetricsBatch>&& pieces);

// A whole metrics.jsonl at once, for the first opening of a long history: the lines of the open
// file `fd` up to its last newline, parsed on several threads that each read their own stretch
// in blocks that stay in the CPU's cache (no buffer of the file's size, no copy of it). A read
// of 170 MB and a parse of it overlap instead of following each other. What follows the last
// newline (a line being written) is left to a tail that goes on from `recordBytes`.
struct MetricsFileRecords {
  MetricsBatch batch;
  std::int64_t recordBytes = 0;  // [0, recordBytes) was parsed: whole lines
};
// nullopt when the file cannot be read.
std::optional<MetricsFileRecords> parseMetricsFile(int fd);

class MetricsJsonlParser {
 public:
  // A line longer than this is dropped (and counted once as garbage) instead of being held.
  static constexpr std::size_t kMaxLineBytes = 1 << 20;

  // Parses every line that `bytes` completes; the records come back in file order per kind.
  MetricsBatch feed(std::string_view bytes);
  // Parses into an existing batch (appending), for callers that gather several reads.
  void feedInto(std::string_view bytes, MetricsBatch& batch);
  // Forgets a held-back partial line (the file was replaced).
  void reset() { m_lines.reset(); }
  std::size_t pendingBytes() const { return m_lines.pendingBytes(); }

  // One complete line (without its newline) into `batch`.
  static void parseLine(std::string_view line, MetricsBatch& batch);

  // A read at least this big is parsed by several threads, in pieces that end at newlines (a
  // long run's history opened at once), and the pieces' records joined in file order.
  static constexpr std::size_t kParallelBytes = 8 << 20;

 private:
  LineSplitter m_lines{kMaxLineBytes};
};

}  // namespace traindeck
