// BLAS is found among the shared objects of this process (dl_iterate_phdr): LibTorch links
// libblas.so.3, and Debian's alternatives decide which implementation stands behind it.
#include "runtime_info.h"

#include <link.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string_view>
#include <thread>
#include <vector>

#include "torch_pch.h"

namespace traindeck {

namespace {

int collectLibrary(dl_phdr_info* info, size_t, void* data) {
  auto* names = static_cast<std::vector<std::string>*>(data);
  if (info->dlpi_name && *info->dlpi_name) names->emplace_back(info->dlpi_name);
  return 0;
}

std::string findBlasLibrary() {
  std::vector<std::string> libraries;
  dl_iterate_phdr(collectLibrary, &libraries);
  for (const std::string& library : libraries) {
    const std::string name = std::filesystem::path(library).filename().string();
    if (name.find("blas") != std::string::npos || name.find("mkl_rt") != std::string::npos ||
        name.find("blis") != std::string::npos) {
      std::error_code ec;
      const auto resolved = std::filesystem::canonical(library, ec);
      return ec ? library : resolved.string();
    }
  }
  return {};
}

}  // namespace

std::string blasKindOf(const std::string& path) {
  const auto has = [&](std::string_view part) { return path.find(part) != std::string::npos; };
  if (path.empty()) return "unknown";
  if (has("openblas")) return "OpenBLAS";
  if (has("mkl")) return "MKL";
  if (has("blis")) return "BLIS";
  if (has("atlas")) return "ATLAS";
  if (has("/blas/libblas")) return "reference";
  return "unknown";
}

RuntimeInfo probeRuntime() {
  RuntimeInfo info;
  info.torchVersion = compat::torchVersion();
  info.cudaDevices = torch::cuda::is_available() ? static_cast<int>(torch::cuda::device_count()) : 0;
  info.cudaBf16 = info.cudaDevices > 0;
  for (int d = 0; d < info.cudaDevices; ++d) info.cudaBf16 = info.cudaBf16 && compat::cudaDeviceSupportsBf16(d);
  info.blasLibrary = findBlasLibrary();
  info.blasKind = blasKindOf(info.blasLibrary);
  if (info.blasKind == "OpenBLAS") info.blasCore = loadedOpenblasCore();
  if (const char* detected = std::getenv(kOpenblasDetectedVariable)) info.blasCoreDetected = detected;
  if (const char* coreType = std::getenv("OPENBLAS_CORETYPE")) info.blasCoreType = coreType;
  info.cpuSimd = cpuSimdLevel(thisCpuFlags());
  info.threads = at::get_num_threads();
  return info;
}

int cpuThreadsPerRank(std::int64_t localWorldSize) {
  if (const char* omp = std::getenv("OMP_NUM_THREADS"); omp && std::atoi(omp) > 0) return std::atoi(omp);
  const auto cores = static_cast<std::int64_t>(std::max(1u, std::thread::hardware_concurrency()));
  return static_cast<int>(std::max<std::int64_t>(1, cores / std::max<std::int64_t>(1, localWorldSize)));
}

std::string describeRuntime(const RuntimeInfo& info) {
  std::string out = "LibTorch " + info.torchVersion + ", ";
  out += info.cudaDevices > 0 ? std::to_string(info.cudaDevices) + " CUDA device(s)" : "CPU only";
  out += ", BLAS: " + info.blasKind;
  if (!info.blasLibrary.empty()) out += " (" + info.blasLibrary + ")";
  if (!info.blasCore.empty()) out += " with " + info.blasCore + " kernels";
  if (!info.blasCoreDetected.empty() && !info.blasCoreType.empty())
    out += " (OpenBLAS took this " + std::string(simdLevelName(info.cpuSimd)) + " CPU for " + info.blasCoreDetected +
           "; traindeck set OPENBLAS_CORETYPE=" + info.blasCoreType + ")";
  else if (!info.blasCoreType.empty())
    out += " (OPENBLAS_CORETYPE=" + info.blasCoreType + ")";
  out += ", " + std::to_string(info.threads) + " thread" + (info.threads == 1 ? "" : "s");
  return out;
}

std::string blasWarning(const RuntimeInfo& info) {
  if (!info.blasCore.empty() && openblasCoreLevel(info.blasCore) < info.cpuSimd) {
    const std::string wanted = openblasCoreTypeFor(info.cpuSimd);
    const std::string cost = "OpenBLAS runs its " + info.blasCore + " kernels on a CPU with " +
                             simdLevelName(info.cpuSimd) + ", which makes matrix products several times slower";
    if (!info.blasCoreDetected.empty())
      return cost + "; it ignored OPENBLAS_CORETYPE=" + info.blasCoreType + " (an OpenBLAS without " + wanted +
             " kernels?): install Debian's libopenblas0-openmp, or run `make deps`";
    if (!info.blasCoreType.empty())
      return cost + "; OPENBLAS_CORETYPE=" + info.blasCoreType +
             " asks for them: unset it, or set OPENBLAS_CORETYPE=" + wanted;
    return cost +
           "; this OpenBLAS cannot switch (it was built without DYNAMIC_ARCH): install Debian's "
           "libopenblas0-openmp, or start with OPENBLAS_CORETYPE=" +
           wanted;
  }
  if (info.blasKind != "reference") return {};
  return "LibTorch is calling the reference BLAS (" + info.blasLibrary +
         "), which makes CPU training about 25x slower; install libopenblas0-openmp (or -pthread), "
         "or run `make deps`";
}

}  // namespace traindeck
