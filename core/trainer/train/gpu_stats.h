// GPU utilization, memory, power and temperature through NVML, loaded with dlopen at run time:
// the trainer starts on machines without NVML (or without GPUs) and just reports none.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace traindeck {

struct GpuSample {
  double util = 0;            // 0..1, over NVML's last sample period
  std::int64_t memUsed = 0;   // bytes
  std::int64_t memTotal = 0;  // bytes
  double powerWatts = 0;
  double temperatureC = 0;
};

class GpuStats {
 public:
  explicit GpuStats(const std::string& library = "libnvidia-ml.so.1");
  ~GpuStats();
  GpuStats(const GpuStats&) = delete;
  GpuStats& operator=(const GpuStats&) = delete;

  bool available() const { return m_initialized; }
  // The figures of NVML device `index`; nullopt when NVML or the device cannot say.
  std::optional<GpuSample> sample(unsigned index) const;

 private:
  struct Api;
  void* m_library = nullptr;
  Api* m_api = nullptr;
  bool m_initialized = false;
};

// NVML's index of CUDA device `cudaIndex`: the same unless CUDA_VISIBLE_DEVICES renumbers them.
unsigned nvmlIndexOfCudaDevice(int cudaIndex, const char* cudaVisibleDevices);

}  // namespace traindeck
