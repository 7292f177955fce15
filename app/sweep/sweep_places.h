// Where a sweep's trials run: places, each with a number of slots (trials at once). A place is
// the trial's own job target (this machine, an SSH host or a Slurm cluster, as the base job
// says) or another target the sweep was told to use (`traindeck --sweep ... --on HOST`). On this
// machine the slots share its CPU threads or its GPUs: each trial gets its own part.
#pragma once

#include <QString>
#include <QStringList>
#include <optional>

#include "config/run_config.h"

namespace traindeck {

struct SweepPlace {
  QString name;                        // for messages: "this machine", "gpu-box"
  std::optional<TargetConfig> target;  // none: each trial's own target (the base job's)
  int slotCount = 1;
};

// What a trial in slot `slot` (0-based) of `slotCount` on this machine is given: with `gpus` CUDA
// devices, CUDA_VISIBLE_DEVICES (its share of them, at least one, shared round-robin when there
// are more slots than devices); without, OMP_NUM_THREADS (its share of `cores`, divided among the
// trial's `ranks`, at least 1). "KEY=VALUE" each.
QStringList localSlotEnvironment(int slot, int slotCount, int cores, int gpus, int ranks);

}  // namespace traindeck
