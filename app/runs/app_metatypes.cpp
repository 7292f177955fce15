// Registration by name, so that queued connections can copy the values.
#include "app_metatypes.h"

#include "import_follower.h"

namespace traindeck {

void registerAppMetaTypes() {
  qRegisterMetaType<traindeck::MetricsBatch>("traindeck::MetricsBatch");
  qRegisterMetaType<traindeck::SharedMetricsBatch>("traindeck::SharedMetricsBatch");
  qRegisterMetaType<traindeck::LogLine>("traindeck::LogLine");
  qRegisterMetaType<QVector<traindeck::LogLine>>("QVector<traindeck::LogLine>");
  qRegisterMetaType<traindeck::ImportedRead>("traindeck::ImportedRead");
}

}  // namespace traindeck
