// One pass over the bytes; a quote opens a quoted field only at a field's start (as Python's csv
// module reads), elsewhere it is text.
#include "imports/csv_records.h"

#include <cmath>

namespace traindeck {

namespace {

constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";

}  // namespace

bool forEachCsvRecord(std::string_view bytes, char delimiter,
                      const std::function<bool(std::vector<std::string>& cells, std::size_t line)>& onRecord) {
  if (bytes.starts_with(kUtf8Bom)) bytes.remove_prefix(kUtf8Bom.size());
  std::vector<std::string> cells(1);
  bool quoted = false, fieldStarted = false;
  std::size_t line = 1, recordLine = 1;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    const char c = bytes[i];
    if (quoted) {
      if (c == '"' && i + 1 < bytes.size() && bytes[i + 1] == '"') {
        cells.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        if (c == '\n') ++line;
        cells.back() += c;
      }
      continue;
    }
    if (c == '"' && !fieldStarted) {
      quoted = fieldStarted = true;
    } else if (c == delimiter) {
      cells.emplace_back();
      fieldStarted = false;
    } else if (c == '\r' || c == '\n') {
      std::size_t end = i;
      while (end < bytes.size() && bytes[end] == '\r') ++end;
      if (end == bytes.size()) return true;  // "\r" last: a "\r\n" may be on its way
      if (bytes[end] != '\n') --end;         // a lone "\r" (or "\r\r") ends the record by itself
      i = end;
      const bool blank = cells.size() == 1 && cells[0].empty() && !fieldStarted;
      if (!blank && !onRecord(cells, recordLine)) return false;
      cells.assign(1, std::string());
      fieldStarted = false;
      recordLine = ++line;
    } else {
      cells.back() += c;
      fieldStarted = true;
    }
  }
  return quoted || fieldStarted || cells.size() > 1;
}

std::optional<std::int64_t> wholeStep(double step) {
  constexpr double kTwoTo63 = 9223372036854775808.0;  // int64 holds [-2^63, 2^63)
  if (!std::isfinite(step) || step != std::floor(step) || step < -kTwoTo63 || step >= kTwoTo63) return std::nullopt;
  return static_cast<std::int64_t>(step);
}

}  // namespace traindeck
