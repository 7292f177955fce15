// A small table of accelerators people train on (and this machine's CPU), with the memory
// and peak throughput that the planner needs. Figures are vendors' dense peaks.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "run_config.h"

namespace traindeck {

struct DeviceSpec {
  std::string name;         // "H100"
  std::string description;  // "NVIDIA H100 SXM, 80 GB HBM3"
  // What CUDA calls it when that does not contain `name` ("RTX PRO 6000" for Colab's G4); empty
  // where the name's first part ("A100" of "A100-40GB") is in CUDA's name.
  std::string cudaName;
  std::int64_t memoryBytes = 0;
  double peakBf16 = 0;  // FLOP/s; 0: not supported
  double peakFp16 = 0;
  double peakFp32 = 0;
  bool isCpu = false;
  bool isCuda = false;

  double peakFor(Precision precision) const;
};

// The accelerators we know the figures of: T4, L4, A100-40GB, A100-80GB, H100, H200, G4, TPU-v5e,
// TPU-v6e.
std::vector<DeviceSpec> knownDevices();
// Case-insensitive; a unique-enough prefix works ("h100", "a100" finds A100-40GB); "CPU" is this machine.
std::optional<DeviceSpec> findDevice(const std::string& name);
// The GPU a job's name says it was made for, by a whole word of it: "gpt2-124m-colab-t4" is a T4,
// "gpt2-1.5b-kaggle-t4x2-zero3" too (a count after the name: "t4x2"), "…-a100" an A100-40GB. A
// name that names none (or a CPU) gives nothing.
std::optional<DeviceSpec> deviceNamedIn(const std::string& jobName);
// This machine's CPU: its physical memory, and its dense fp32 peak from its vector level and
// clock (cpu_features.h: 134 GFLOP/s per core for AVX-512 at 2.1 GHz).
DeviceSpec thisMachineCpu();
// "T4, L4, ..., CPU"
std::string deviceChoices();
// Whether CUDA's (or nvidia-smi's) name for a GPU ("NVIDIA RTX PRO 6000 Blackwell Server Edition")
// is this entry's: its words, whole and in order, in the name (an L40S is not an L4). The one
// rule for the trainer's peak figures and a probed host's GPUs.
bool cudaNameMatches(const DeviceSpec& device, const std::string& reported);

}  // namespace traindeck
