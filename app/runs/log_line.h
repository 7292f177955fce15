// One line of a rank's log (logs/rank-<r>.log), or of the job's output, as the log views show it. The trainer writes
// "2026-11-30T08:34:49Z info: text"; anything else (a library's own output) is Plain.
#pragma once

#include <QString>
#include <string_view>

namespace traindeck {

enum class LogLevel { Plain, Info, Warn, Error };

// Lines of the scheduler's own output for the run (a Slurm job's slurm-<id>.out in the run
// folder) carry this "rank" and the ones after it (one per file, in name order): not a rank's.
inline constexpr int kJobOutputRank = 1 << 20;
inline bool isJobOutput(int rank) {
  return rank >= kJobOutputRank;
}

struct LogLine {
  int rank = 0;
  LogLevel level = LogLevel::Plain;
  QString text;  // the whole line as written, without its newline
};

// The level of a line in our format, else Plain.
LogLevel logLevelOf(std::string_view line);

}  // namespace traindeck
