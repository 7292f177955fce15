// Everything that differs between the LibTorch versions we build against (Debian's 1.13 CPU
// build, and 2.x with CUDA and NCCL from the torch Python package) lives here.
#pragma once

#include <torch/torch.h>
#include <torch/version.h>

#if defined(TRAINDECK_WITH_CUDA)
#include <ATen/cuda/CUDAContext.h>
#endif

namespace traindeck::compat {

inline constexpr int kTorchMajor = TORCH_VERSION_MAJOR;
inline constexpr int kTorchMinor = TORCH_VERSION_MINOR;

inline std::string torchVersion() { return TORCH_VERSION; }

// bf16 matmuls need compute capability 8.0 (Ampere) or newer.
inline bool cudaDeviceSupportsBf16(int device) {
#if defined(TRAINDECK_WITH_CUDA)
  return at::cuda::getDeviceProperties(device)->major >= 8;
#else
  (void)device;
  return false;
#endif
}

}  // namespace traindeck::compat
