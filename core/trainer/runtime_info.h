// What the trainer runs on: LibTorch version, CUDA devices, BLAS library and threads. Torch
// stays behind this header so that callers compile without it.
#pragma once

#include <cstdint>
#include <string>

#include "blas_kernels.h"

namespace traindeck {

struct RuntimeInfo {
  std::string torchVersion;
  int cudaDevices = 0;
  bool cudaBf16 = false;         // every CUDA device can compute in bf16
  std::string blasLibrary;       // resolved path of the BLAS shared library LibTorch calls
  std::string blasKind;          // "OpenBLAS", "MKL", "BLIS", "reference", or "unknown"
  std::string blasCore;          // OpenBLAS's kernel set ("SkylakeX", "Prescott"), or "" for another BLAS
  std::string blasCoreDetected;  // what OpenBLAS picked by itself, when traindeck restarted with better
  std::string blasCoreType;      // OPENBLAS_CORETYPE, when set
  SimdLevel cpuSimd = SimdLevel::Unknown;
  int threads = 1;  // intra-op threads
};

RuntimeInfo probeRuntime();

// The intra-op threads a CPU rank uses: this machine's cores shared among the node's ranks
// (LibTorch's own default can be 1 on virtual machines), unless OMP_NUM_THREADS says (torchrun
// sets it).
int cpuThreadsPerRank(std::int64_t localWorldSize);

// Classifies a BLAS library by its resolved path.
std::string blasKindOf(const std::string& resolvedPath);

// "LibTorch 1.13.1, CPU only, BLAS: OpenBLAS (/usr/lib/...) with SkylakeX kernels, 2 threads"
std::string describeRuntime(const RuntimeInfo& info);

// Empty, or a warning to show at start: the reference BLAS makes training ~25x slower, and
// OpenBLAS kernels narrower than the CPU (blas_kernels.h) several times slower.
std::string blasWarning(const RuntimeInfo& info);

}  // namespace traindeck
