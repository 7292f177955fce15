// What the trainer runs on: LibTorch version, CUDA devices, BLAS library and threads. Torch
// stays behind this header so that callers compile without it.
#pragma once

#include <string>

namespace traindeck {

struct RuntimeInfo {
  std::string torchVersion;
  int cudaDevices = 0;
  bool cudaBf16 = false;     // every CUDA device can compute in bf16
  std::string blasLibrary;   // resolved path of the BLAS shared library LibTorch calls
  std::string blasKind;      // "OpenBLAS", "MKL", "BLIS", "reference", or "unknown"
  int threads = 1;           // intra-op threads
};

RuntimeInfo probeRuntime();

// Classifies a BLAS library by its resolved path.
std::string blasKindOf(const std::string& resolvedPath);

// "LibTorch 1.13.1, CPU only, OpenBLAS (/usr/lib/...), 2 threads"
std::string describeRuntime(const RuntimeInfo& info);

// Empty, or a warning to show at start: the reference BLAS makes training ~25x slower.
std::string blasWarning(const RuntimeInfo& info);

}  // namespace traindeck
