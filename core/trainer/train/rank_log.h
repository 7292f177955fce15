// A rank's log: timestamped lines appended to logs/rank-<r>.log and, optionally, stderr
// (clearing a progress line first so the two never mix).
#pragma once

#include <cstdio>
#include <string>

namespace traindeck {

class RankLog {
 public:
  RankLog(const std::string& path, bool echo);
  ~RankLog();
  RankLog(const RankLog&) = delete;
  RankLog& operator=(const RankLog&) = delete;

  void info(const std::string& message) { line("info", message); }
  void warn(const std::string& message) { line("warn", message); }
  void error(const std::string& message) { line("error", message); }
  // Rewrites the terminal's progress line (stderr only; not logged).
  void progress(const std::string& text);
  void endProgress();

 private:
  void line(const char* level, const std::string& message);
  std::FILE* m_file = nullptr;
  bool m_echo;
  bool m_progressShown = false;
};

}  // namespace traindeck
