// The value types that cross threads in queued signals, declared to Qt's meta-type system.
// registerAppMetaTypes() is idempotent; every follower calls it in its constructor.
#pragma once

#include <QMetaType>
#include <QVector>

#include "log_line.h"
#include "runlog/metrics_batch.h"

Q_DECLARE_METATYPE(traindeck::MetricsBatch)
Q_DECLARE_METATYPE(traindeck::LogLine)

namespace traindeck {
void registerAppMetaTypes();
}  // namespace traindeck
