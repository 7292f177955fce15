#include "progress_text.h"

#include <QCoreApplication>
#include <algorithm>
#include <cmath>

#include "runs/human_duration.h"
#include "runs/run_pauses.h"

namespace traindeck {

namespace {
constexpr std::size_t kPaceRecords = 50;
constexpr double kMinPaceSeconds = 5;
}  // namespace

QString formatSeconds(double seconds) {
  return humanDuration(seconds);
}

QString progressText(const TrainColumns& train, std::int64_t totalSteps, const QString& status, bool linkLost) {
  const bool live = status.isEmpty() || status == "running" || status == "starting";
  // Nothing comes while the link is down: the last pace says nothing about now.
  const QString waiting = QCoreApplication::translate("progressText", "waiting for the link");
  if (train.size() == 0) return linkLost && live ? waiting : status;
  // No total (a run.json that does not say it): no percent to give.
  if (totalSteps <= 0) return linkLost && live ? waiting : status;
  const std::int64_t step = train.step.back();
  const int percent = static_cast<int>(100 * step / totalSteps);
  if (!live) return QStringLiteral("%1% · %2").arg(percent).arg(status);
  if (linkLost) return QStringLiteral("%1% · %2").arg(percent).arg(waiting);
  if (totalSteps <= step) return QStringLiteral("%1%").arg(percent);
  // The pace of the records since the run last stood still (a resume after a stop), so neither a
  // slow start nor the stopped time skews the estimate: the last kPaceRecords of them, or more
  // where those span less than kMinPaceSeconds (a fast run logs many records a second); until
  // the stretch spans kMinPaceSeconds there is no pace to tell.
  const std::size_t n = train.size();
  const std::size_t stretch = lastStretchStart(train, EvalColumns{});
  std::size_t first = std::max(n > kPaceRecords ? n - kPaceRecords : 0, stretch);
  while (first > stretch && train.time[n - 1] - train.time[first] < kMinPaceSeconds) --first;
  const double steps = static_cast<double>(train.step[n - 1] - train.step[first]);
  const double seconds = train.time[n - 1] - train.time[first];
  if (!(steps > 0) || !(seconds >= kMinPaceSeconds) || !std::isfinite(seconds))
    return QCoreApplication::translate("progressText", "%1% · estimating…").arg(percent);
  return QCoreApplication::translate("progressText", "%1% · %2 left")
      .arg(percent)
      .arg(formatSeconds(seconds / steps * static_cast<double>(totalSteps - step)));
}

}  // namespace traindeck
