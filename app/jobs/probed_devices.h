// The devices a probed host trains on, for the planner and validation: its GPUs as the
// planner's catalogue knows them (with the memory the host reported), or its CPU (cores, clock
// and vector level from /proc/cpuinfo there). A plain value, made from a HostProbe.
#pragma once

#include <QString>

#include "config/devices.h"
#include "config/validate.h"
#include "host_probe.h"
#include "machine_room.h"

namespace traindeck {

struct ProbedDevices {
  DeviceSpec device;   // each rank's; a host with mixed GPUs is planned for its smallest
  int count = 0;       // GPUs; 1 for a CPU-only host (its cores are one device)
  bool known = true;   // false: a GPU the catalogue lacks (memory only, no peak)
  bool colab = false;  // a Colab runtime (one accelerator each)
  QString label;       // "8× H100 80GB · torch 2.11+cu128 · CUDA 12.8", the probe's summary

  // For validateConfig's rules about the machine that runs the job.
  HostDevices forValidation() const;
};

ProbedDevices probedDevices(const HostProbe& probe);
// The host as machineRoomProblem weighs it: its CPU, cores and GPUs; `name` is how it is called.
Machine hostMachine(const HostProbe& probe, const QString& name);

}  // namespace traindeck
