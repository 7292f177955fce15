// Whether this machine has room for one more run beside those going on here: the planner's
// memory per rank for each (CPU ranks share the machine's memory), and for CPU runs the ranks
// against the cores. A sentence saying what would not fit, or empty. Several runs at once are
// fine as long as this says nothing.
#pragma once

#include <QList>
#include <QString>

#include "config/devices.h"
#include "config/run_config.h"

namespace traindeck {

QString machineRoomProblem(const QList<RunConfig>& running, const RunConfig& next, const DeviceSpec& machine,
                           int cores);

}  // namespace traindeck
