#include "progress_text.h"

#include <cmath>

namespace traindeck {

QString formatSeconds(double seconds) {
  const long s = std::lround(std::max(0.0, seconds));
  if (s < 60) return QStringLiteral("%1s").arg(s);
  if (s < 3600) return QStringLiteral("%1m%2s").arg(s / 60).arg(s % 60, 2, 10, QChar('0'));
  return QStringLiteral("%1h%2m").arg(s / 3600).arg((s % 3600) / 60, 2, 10, QChar('0'));
}

QString progressText(const TrainColumns& train, std::int64_t totalSteps, const QString& status) {
  if (train.size() == 0) return status.isEmpty() ? QString() : status;
  // No total (a run.json that does not say it): no percent to give.
  if (totalSteps <= 0) return status;
  const std::int64_t step = train.step.back();
  const int percent = static_cast<int>(100 * step / totalSteps);
  if (!status.isEmpty() && status != "running" && status != "starting")
    return QStringLiteral("%1% · %2").arg(percent).arg(status);
  // The pace of the last (up to) 50 records, so a slow start does not skew the estimate.
  const std::size_t n = train.size();
  const std::size_t first = n > 50 ? n - 50 : 0;
  const double steps = static_cast<double>(train.step[n - 1] - train.step[first]);
  const double seconds = train.time[n - 1] - train.time[first];
  if (steps <= 0 || seconds <= 0 || totalSteps <= step) return QStringLiteral("%1%").arg(percent);
  return QStringLiteral("%1% · %2 left")
      .arg(percent)
      .arg(formatSeconds(seconds / steps * static_cast<double>(totalSteps - step)));
}

}  // namespace traindeck
