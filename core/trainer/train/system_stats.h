// This process's CPU utilization (over the interval since the last sample) and resident
// memory, from /proc, for the `system` records of metrics.jsonl.
#pragma once

#include <chrono>
#include <cstdint>

namespace traindeck {

struct SystemSample {
  double util = 0;       // 0..1 of the machine's cores
  std::int64_t rss = 0;  // bytes
  std::int64_t memTotal = 0;
};

class SystemStats {
 public:
  SystemStats();
  SystemSample sample();
  static std::int64_t peakRssBytes();

 private:
  double m_lastCpuSeconds = 0;
  std::chrono::steady_clock::time_point m_lastTime;
};

}  // namespace traindeck
