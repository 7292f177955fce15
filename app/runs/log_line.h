// One line of a rank's log (logs/rank-<r>.log), as the log views show it. The trainer writes
// "2026-11-30T08:34:49Z info: text"; anything else (a library's own output) is Plain.
#pragma once

#include <QString>
#include <string_view>

namespace traindeck {

enum class LogLevel { Plain, Info, Warn, Error };

struct LogLine {
  int rank = 0;
  LogLevel level = LogLevel::Plain;
  QString text;  // the whole line as written, without its newline
};

// The level of a line in our format, else Plain.
LogLevel logLevelOf(std::string_view line);

}  // namespace traindeck
