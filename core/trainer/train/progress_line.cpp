// Plain text, fixed order, so that a person can read it and a script can grep it.
#include "progress_line.h"

#include <cmath>
#include <cstdio>

#include "config/planner.h"

namespace traindeck {

std::string formatDuration(double seconds) {
  if (!(seconds >= 0) || !std::isfinite(seconds)) return "?";
  const auto s = static_cast<std::int64_t>(std::llround(seconds));
  char buffer[32];
  if (s < 60)
    std::snprintf(buffer, sizeof buffer, "%llds", static_cast<long long>(s));
  else if (s < 3600)
    std::snprintf(buffer, sizeof buffer, "%lldm%02llds", static_cast<long long>(s / 60),
                  static_cast<long long>(s % 60));
  else
    std::snprintf(buffer, sizeof buffer, "%lldh%02lldm", static_cast<long long>(s / 3600),
                  static_cast<long long>(s / 60 % 60));
  return buffer;
}

std::string progressLine(const ProgressFigures& f) {
  const double percent = f.totalSteps > 0 ? 100.0 * static_cast<double>(f.step) / static_cast<double>(f.totalSteps) : 0;
  char buffer[160];
  std::snprintf(buffer, sizeof buffer, "step %lld/%lld %3.0f%%  loss %.4f  lr %.2e  %s tok/s  ETA %s",
                static_cast<long long>(f.step), static_cast<long long>(f.totalSteps), percent, f.loss, f.lr,
                formatThousands(std::llround(f.tokensPerSecond)).c_str(),
                formatDuration(f.secondsPerStep * static_cast<double>(f.totalSteps - f.step)).c_str());
  return buffer;
}

}  // namespace traindeck
