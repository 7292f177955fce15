// The device a rank trains on: CUDA device `localRank` when the strategy asks for CUDA, or says
// auto and LibTorch sees a GPU; the CPU otherwise. One rule for the loop and the process setup.
#pragma once

#include <torch/torch.h>

#include "config/run_config.h"

namespace traindeck {

inline torch::Device chooseTrainingDevice(const StrategyConfig& strategy, int localRank) {
  const bool cuda =
      strategy.device == DeviceKind::Cuda || (strategy.device == DeviceKind::Auto && torch::cuda::is_available());
  return cuda ? torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(localRank)) : torch::Device(torch::kCPU);
}

}  // namespace traindeck
