// /proc/self/stat fields 14 and 15 are user and system time in clock ticks; /proc/self/statm's
// second field is resident pages.
#include "system_stats.h"

#include <sys/resource.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>
#include <thread>

namespace traindeck {

namespace {
double cpuSeconds() {
  std::ifstream in("/proc/self/stat");
  std::string text;
  std::getline(in, text);
  const auto close = text.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream fields(text.substr(close + 2));
  std::string field;
  double user = 0, system = 0;
  for (int i = 3; fields >> field; ++i) {
    if (i == 14) user = std::stod(field);
    if (i == 15) {
      system = std::stod(field);
      break;
    }
  }
  return (user + system) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}
}  // namespace

SystemStats::SystemStats() : m_lastCpuSeconds(cpuSeconds()), m_lastTime(std::chrono::steady_clock::now()) {}

SystemSample SystemStats::sample() {
  SystemSample s;
  const double cpu = cpuSeconds();
  const auto now = std::chrono::steady_clock::now();
  const double wall = std::chrono::duration<double>(now - m_lastTime).count();
  const double cores = std::max(1u, std::thread::hardware_concurrency());
  if (wall > 0) s.util = std::min(1.0, (cpu - m_lastCpuSeconds) / (wall * cores));
  m_lastCpuSeconds = cpu;
  m_lastTime = now;
  std::ifstream statm("/proc/self/statm");
  std::int64_t size = 0, resident = 0;
  statm >> size >> resident;
  s.rss = resident * ::sysconf(_SC_PAGESIZE);
  s.memTotal = static_cast<std::int64_t>(::sysconf(_SC_PHYS_PAGES)) * ::sysconf(_SC_PAGESIZE);
  return s;
}

std::int64_t SystemStats::peakRssBytes() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  return static_cast<std::int64_t>(usage.ru_maxrss) * 1024;
}

}  // namespace traindeck
