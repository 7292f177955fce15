// The text beside the Monitor page's progress bar: percent done and the time left at the
// recent pace ("42% · 3m10s left", "2% · estimating…", "78% · waiting for the link" while a
// remote run's link is down), or how the run ended.
#pragma once

#include <QString>

#include "runlog/metrics_batch.h"

namespace traindeck {

QString progressText(const TrainColumns& train, std::int64_t totalSteps, const QString& status, bool linkLost = false);
QString formatSeconds(double seconds);  // humanDuration: "45s", "3m10s", "2h05m", "4.3 years"

}  // namespace traindeck
