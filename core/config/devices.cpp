// Peaks are dense (no sparsity) tensor-core figures from the vendors' data sheets; fp32 is the
// plain fp32 peak (TF32 is off by default in LibTorch). Memory is what the driver reports.
#include "devices.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <thread>
#include <vector>

#include "cpu_features.h"

namespace traindeck {

namespace {
constexpr double T = 1e12;
constexpr std::int64_t MiB = 1 << 20;

DeviceSpec gpu(const char* name, const char* description, std::int64_t mib, double bf16, double fp16, double fp32) {
  DeviceSpec d;
  d.name = name;
  d.description = description;
  d.memoryBytes = mib * MiB;
  d.peakBf16 = bf16;
  d.peakFp16 = fp16;
  d.peakFp32 = fp32;
  d.isCuda = true;
  return d;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}
}  // namespace

double DeviceSpec::peakFor(Precision precision) const {
  switch (precision) {
    case Precision::Bf16:
      return peakBf16;
    case Precision::Fp16:
      return peakFp16;
    case Precision::Fp32:
      return peakFp32;
  }
  return 0;
}

DeviceSpec thisMachineCpu() {
  DeviceSpec d;
  d.name = "CPU";
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const SimdLevel simd = cpuSimdLevel(thisCpuFlags());
  const double mhz = thisCpuMhz();
  char clock[32];
  std::snprintf(clock, sizeof clock, "%.1f GHz", mhz / 1000);
  d.description = "this machine's CPU, " + std::to_string(cores) + " cores, " + simdLevelName(simd) +
                  (mhz > 0 ? std::string(" at ") + clock : std::string());
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long pageSize = ::sysconf(_SC_PAGESIZE);
  d.memoryBytes = pages > 0 && pageSize > 0 ? static_cast<std::int64_t>(pages) * pageSize : 0;
  d.peakFp32 = fp32PeakPerCore(simd, mhz) * cores;
  d.isCpu = true;
  return d;
}

std::vector<DeviceSpec> knownDevices() {
  std::vector<DeviceSpec> devices = {
      gpu("T4", "NVIDIA T4, 16 GB (Colab's free GPU); no bf16", 15360, 0, 65 * T, 8.1 * T),
      gpu("L4", "NVIDIA L4, 24 GB", 23034, 121 * T, 121 * T, 30.3 * T),
      gpu("A100-40GB", "NVIDIA A100 SXM, 40 GB", 40960, 312 * T, 312 * T, 19.5 * T),
      gpu("A100-80GB", "NVIDIA A100 SXM, 80 GB", 81920, 312 * T, 312 * T, 19.5 * T),
      gpu("H100", "NVIDIA H100 SXM, 80 GB", 81559, 989 * T, 989 * T, 67 * T),
      gpu("H200", "NVIDIA H200 SXM, 141 GB", 143771, 989 * T, 989 * T, 67 * T),
      // Colab's and Google Cloud's G4. 97,887 MiB is what nvidia-smi reports; NVIDIA publishes
      // 4,000 AI TOPS (FP4, with sparsity), so dense FP16/BF16 is an eighth of that, and "up to
      // 125 TFLOPS" of FP32.
      gpu("G4", "NVIDIA RTX PRO 6000 Blackwell Server Edition, 96 GB (Colab's G4)", 97887, 500 * T, 500 * T, 125 * T),
  };
  devices.back().cudaName = "RTX PRO 6000";
  DeviceSpec tpu;
  tpu.name = "TPU-v5e";
  tpu.description = "Google TPU v5e, one core, 16 GB HBM (planning only: LibTorch does not run on TPUs)";
  tpu.memoryBytes = 16384 * MiB;
  tpu.peakBf16 = 197 * T;
  devices.push_back(tpu);
  tpu.name = "TPU-v6e";
  tpu.description = "Google TPU v6e (Trillium), one chip, 32 GB HBM (planning only: LibTorch does not run on TPUs)";
  tpu.memoryBytes = 32768 * MiB;
  tpu.peakBf16 = 918 * T;
  devices.push_back(tpu);
  return devices;
}

// This machine's CPU is looked at only when asked for, so that finding a GPU's figures
// does not depend on the machine the lookup runs on.
std::optional<DeviceSpec> findDevice(const std::string& name) {
  const std::string wanted = lower(name);
  const std::vector<DeviceSpec> catalog = knownDevices();
  for (const DeviceSpec& d : catalog)
    if (lower(d.name) == wanted) return d;
  if (wanted == "cpu") return thisMachineCpu();
  for (const DeviceSpec& d : catalog)
    if (lower(d.name).rfind(wanted, 0) == 0) return d;
  if (!wanted.empty() && std::string("cpu").rfind(wanted, 0) == 0) return thisMachineCpu();
  return std::nullopt;
}

std::optional<DeviceSpec> deviceNamedIn(const std::string& jobName) {
  const std::vector<DeviceSpec> catalog = knownDevices();
  std::string word;
  for (const char c : jobName + ' ') {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      continue;
    }
    // "t4x2": the device, then how many.
    if (const std::size_t x = word.rfind('x'); x != std::string::npos && x > 0 && x + 1 < word.size() &&
                                               word.find_first_not_of("0123456789", x + 1) == std::string::npos)
      word.resize(x);
    for (const DeviceSpec& d : catalog) {
      const std::string name = lower(d.name);
      if (d.isCuda && !word.empty() && (name == word || name.substr(0, name.find('-')) == word)) return d;
    }
    word.clear();
  }
  return std::nullopt;
}

bool cudaNameMatches(const DeviceSpec& device, const std::string& reported) {
  if (!device.isCuda) return false;
  // Whole words in order, never a part of one: "NVIDIA L40S" is not an L4.
  const auto words = [](const std::string& name) {
    std::vector<std::string> out;
    std::string word;
    for (const char c : name + ' ') {
      if (std::isalnum(static_cast<unsigned char>(c))) {
        word += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      } else if (!word.empty()) {
        out.push_back(word);
        word.clear();
      }
    }
    return out;
  };
  const std::vector<std::string> wanted =
      words(device.cudaName.empty() ? device.name.substr(0, device.name.find('-')) : device.cudaName);
  const std::vector<std::string> have = words(reported);
  return !wanted.empty() && std::search(have.begin(), have.end(), wanted.begin(), wanted.end()) != have.end();
}

std::string deviceChoices() {
  std::string out;
  for (const DeviceSpec& d : knownDevices()) out += d.name + ", ";
  return out + "CPU";
}

}  // namespace traindeck
