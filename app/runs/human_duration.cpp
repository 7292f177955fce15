// Past two days hours stop meaning much: days with one decimal (whole days past ten), then years.
#include "human_duration.h"

#include <QCoreApplication>
#include <cmath>

namespace traindeck {

QString humanDuration(double seconds) {
  if (!std::isfinite(seconds)) return QCoreApplication::translate("humanDuration", "forever");
  const double clamped = std::max(0.0, seconds);
  constexpr double kDay = 86400, kYear = 365.25 * kDay;
  if (clamped >= 365 * kDay)
    return QCoreApplication::translate("humanDuration", "%1 years").arg(clamped / kYear, 0, 'f', 1);
  if (clamped >= 2 * kDay) {
    const double days = clamped / kDay;
    return QCoreApplication::translate("humanDuration", "%1 days").arg(days, 0, 'f', days >= 10 ? 0 : 1);
  }
  const long long s = std::llround(clamped);
  if (s < 60) return QStringLiteral("%1s").arg(s);
  if (s < 3600) return QStringLiteral("%1m%2s").arg(s / 60).arg(s % 60, 2, 10, QChar('0'));
  return QStringLiteral("%1h%2m").arg(s / 3600).arg((s % 3600) / 60, 2, 10, QChar('0'));
}

}  // namespace traindeck
