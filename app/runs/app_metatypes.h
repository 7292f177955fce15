// The value types that cross threads in queued signals, declared to Qt's meta-type system.
// registerAppMetaTypes() is idempotent; every follower calls it in its constructor.
#pragma once

#include <QMetaType>
#include <QVector>
#include <memory>

#include "log_line.h"
#include "runlog/metrics_batch.h"

namespace traindeck {
// A batch as a follower hands it over: shared, never copied by the queue; immutable to every
// receiver but the one it is handed over to (MetricsFollower::metricsAvailable).
using SharedMetricsBatch = std::shared_ptr<const MetricsBatch>;
}  // namespace traindeck

Q_DECLARE_METATYPE(traindeck::MetricsBatch)
Q_DECLARE_METATYPE(traindeck::SharedMetricsBatch)
Q_DECLARE_METATYPE(traindeck::LogLine)

namespace traindeck {
void registerAppMetaTypes();
}  // namespace traindeck
