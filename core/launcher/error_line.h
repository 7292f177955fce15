// Finds the line of a rank's log that best explains its failure: the last one containing
// "error" (any case), without the ISO timestamp that RankLog puts in front of each line.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace traindeck {

// Looks only at bytes from `fromOffset` on (this run's part of an appended log), and of those
// only at the last 64 KiB. Empty when there is no such line or the log cannot be read.
std::string lastErrorLine(const std::string& logPath, std::int64_t fromOffset);

// "2024-05-01T12:00:00Z error: x" -> "error: x"; other lines come back unchanged.
std::string_view withoutTimestamp(std::string_view line);

}  // namespace traindeck
