// Line-buffered file, so `tail -f` and the app's follower see each line when it is written.
#include "rank_log.h"

#include <chrono>

#include "runlog/run_directory.h"

namespace traindeck {

RankLog::RankLog(const std::string& path, bool echo) : m_echo(echo) {
  m_file = std::fopen(path.c_str(), "a");
  if (m_file) std::setvbuf(m_file, nullptr, _IOLBF, 0);
}

RankLog::~RankLog() {
  endProgress();
  if (m_file) std::fclose(m_file);
}

void RankLog::line(const char* level, const std::string& message) {
  const std::string text = isoTimeUtc(std::chrono::system_clock::now()) + " " + level + ": " + message + "\n";
  if (m_file) std::fputs(text.c_str(), m_file);
  if (m_echo) {
    if (m_progressShown) std::fputs("\r\033[K", stderr);
    std::fputs(text.c_str(), stderr);
    m_progressShown = false;
  }
}

void RankLog::progress(const std::string& text) {
  std::fprintf(stderr, "\r\033[K%s", text.c_str());
  std::fflush(stderr);
  m_progressShown = true;
}

void RankLog::endProgress() {
  if (!m_progressShown) return;
  std::fputs("\n", stderr);
  m_progressShown = false;
}

}  // namespace traindeck
