// Records of a CSV or TSV file as loggers write them on any system: "\n", "\r\n" or "\r\r\n"
// (Python's csv module writing "\r\n" through a Windows text-mode file) and a lone "\r" all end
// a record, a UTF-8 byte order mark before the header is dropped, and a quoted field may hold the
// delimiter, doubled quotes and line ends (RFC 4180). Also the check that a step read from a
// cell is one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace traindeck {

// Hands each complete record's cells and its first line's number (from 1) to `onRecord`, which
// returns false to stop; blank lines are skipped. Returns whether bytes were left after the last
// record end: a record still being written, left for the next read.
bool forEachCsvRecord(std::string_view bytes, char delimiter,
                      const std::function<bool(std::vector<std::string>& cells, std::size_t line)>& onRecord);

// A step read from a cell as a double, as a step: none unless it is finite, whole and within
// int64 (a cell of "inf", "1e300" or "1.5" is a bad row, not a step).
std::optional<std::int64_t> wholeStep(double step);

}  // namespace traindeck
