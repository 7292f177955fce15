// The text beside the Monitor page's progress bar: percent done and the time left at the
// recent pace ("42% · 3m10s left"), or how the run ended.
#pragma once

#include <QString>

#include "runlog/metrics_batch.h"

namespace traindeck {

QString progressText(const TrainColumns& train, std::int64_t totalSteps, const QString& status);
QString formatSeconds(double seconds);  // "45s", "3m10s", "2h05m"

}  // namespace traindeck
