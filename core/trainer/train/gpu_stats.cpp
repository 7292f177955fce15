// NVML's C API, declared here by hand (its header is not needed to build): every call returns
// 0 on success; devices are opaque handles.
#include "gpu_stats.h"

#include <dlfcn.h>

#include <cstdlib>
#include <sstream>
#include <vector>

namespace traindeck {

// NVML's types live in Api, not in an anonymous namespace: GCC 14 crashes on a class of the
// library's holding members of anonymous-namespace types in a unity build.
struct GpuStats::Api {
  using Device = void*;
  struct Utilization {
    unsigned gpu, memory;
  };
  struct Memory {
    unsigned long long total, free, used;
  };
  int (*init)() = nullptr;
  int (*shutdown)() = nullptr;
  int (*handleByIndex)(unsigned, Device*) = nullptr;
  int (*utilization)(Device, Utilization*) = nullptr;
  int (*memory)(Device, Memory*) = nullptr;
  int (*power)(Device, unsigned*) = nullptr;
  int (*temperature)(Device, int, unsigned*) = nullptr;
};

GpuStats::GpuStats(const std::string& library) {
  m_library = ::dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!m_library) return;
  m_api = new Api;
  const auto bind = [this](auto& function, const char* name) {
    function = reinterpret_cast<std::remove_reference_t<decltype(function)>>(::dlsym(m_library, name));
    return function != nullptr;
  };
  const bool complete =
      bind(m_api->init, "nvmlInit_v2") && bind(m_api->shutdown, "nvmlShutdown") &&
      bind(m_api->handleByIndex, "nvmlDeviceGetHandleByIndex_v2") &&
      bind(m_api->utilization, "nvmlDeviceGetUtilizationRates") && bind(m_api->memory, "nvmlDeviceGetMemoryInfo") &&
      bind(m_api->power, "nvmlDeviceGetPowerUsage") && bind(m_api->temperature, "nvmlDeviceGetTemperature");
  m_initialized = complete && m_api->init() == 0;
}

GpuStats::~GpuStats() {
  if (m_initialized) m_api->shutdown();
  delete m_api;
  if (m_library) ::dlclose(m_library);
}

std::optional<GpuSample> GpuStats::sample(unsigned index) const {
  if (!m_initialized) return std::nullopt;
  Api::Device device = nullptr;
  if (m_api->handleByIndex(index, &device) != 0) return std::nullopt;
  GpuSample s;
  Api::Utilization utilization{};
  if (m_api->utilization(device, &utilization) == 0) s.util = utilization.gpu / 100.0;
  Api::Memory memory{};
  if (m_api->memory(device, &memory) == 0) {
    s.memUsed = static_cast<std::int64_t>(memory.used);
    s.memTotal = static_cast<std::int64_t>(memory.total);
  }
  unsigned milliwatts = 0, celsius = 0;
  if (m_api->power(device, &milliwatts) == 0) s.powerWatts = milliwatts / 1000.0;
  if (m_api->temperature(device, /*NVML_TEMPERATURE_GPU*/ 0, &celsius) == 0) s.temperatureC = celsius;
  return s;
}

unsigned nvmlIndexOfCudaDevice(int cudaIndex, const char* cudaVisibleDevices) {
  if (!cudaVisibleDevices || !*cudaVisibleDevices) return static_cast<unsigned>(cudaIndex);
  std::vector<std::string> listed;
  std::stringstream list(cudaVisibleDevices);
  for (std::string item; std::getline(list, item, ',');) listed.push_back(item);
  if (cudaIndex < 0 || static_cast<std::size_t>(cudaIndex) >= listed.size()) return static_cast<unsigned>(cudaIndex);
  char* end = nullptr;
  const long physical = std::strtol(listed[static_cast<std::size_t>(cudaIndex)].c_str(), &end, 10);
  // UUIDs (GPU-...) are not indexes; fall back to the CUDA index.
  return *end == '\0' && physical >= 0 ? static_cast<unsigned>(physical) : static_cast<unsigned>(cudaIndex);
}

}  // namespace traindeck
