// A sweep's slot on one machine: N trials at once there, each gets its own part of the machine,
// decided where the machine is known (the trainer's `run --slot I/N`, on this machine, an SSH
// host or a Colab runtime alike). With CUDA devices, a trial gets its share of them (at least
// one; shared round-robin when there are more slots than devices), as CUDA_VISIBLE_DEVICES in
// the terms of the devices already visible; without, its share of the cores, divided among its
// ranks (at least 1 thread), as OMP_NUM_THREADS.
#pragma once

#include <optional>
#include <string>

#include "rank_environment.h"

namespace traindeck {

struct TrialSlot {
  int index = 0;  // 0-based
  int count = 1;
};

// The cores this process may run on (its affinity: a Slurm step's or a container's share, not the
// machine's), at least 1.
int usableCores();

// "I/N" (0 <= I < N), or nullopt.
std::optional<TrialSlot> parseSlot(const std::string& text);
std::string slotText(const TrialSlot& slot);

// The variables a rank of the trial in `slot` gets. `visibleDevices`: CUDA_VISIBLE_DEVICES as it
// is (nullptr: unset), so that a slot of an already-restricted machine stays inside it.
EnvList slotEnvironment(const TrialSlot& slot, int cores, int gpus, int ranks, const char* visibleDevices);

}  // namespace traindeck
