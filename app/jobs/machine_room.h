// Whether a machine (this one, or a probed host) has room for one more run beside those going
// on there: for CPU runs the planner's memory per rank (CPU ranks share the machine's memory)
// and the ranks against the cores; for GPU runs the GPUs, one rank each (two runs' ranks on
// one GPU would share its memory and its time). A sentence saying what would not fit, or
// empty. Several runs at once are fine as long as this says nothing.
#pragma once

#include <QList>
#include <QString>

#include "config/devices.h"
#include "config/run_config.h"

namespace traindeck {

struct Machine {
  QString name;    // "this machine", "gpu-box (ubuntu@10.0.0.5)"
  DeviceSpec cpu;  // its CPU and memory
  int cores = 0;   // 0: not known
  int gpus = 0;    // CUDA devices
};

QString machineRoomProblem(const QList<RunConfig>& running, const RunConfig& next, const Machine& machine);

}  // namespace traindeck
