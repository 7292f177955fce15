#include "probed_devices.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "config/cpu_features.h"
#include "config/devices.h"

namespace traindeck {

namespace {

// The catalogue's GPU for a reported name: the entries it names (cudaNameMatches: "A100" of
// "A100-40GB" in "NVIDIA A100-SXM4-40GB"), the one closest in memory. None: not in the catalogue.
std::optional<DeviceSpec> catalogueGpu(const QString& reported, qint64 memoryMiB) {
  const std::string name = reported.toStdString();
  std::optional<DeviceSpec> best;
  for (const DeviceSpec& d : knownDevices()) {
    if (!cudaNameMatches(d, name)) continue;
    const auto gap = [memoryMiB](const DeviceSpec& s) { return std::llabs(s.memoryBytes / (1024 * 1024) - memoryMiB); };
    if (!best || gap(d) < gap(*best)) best = d;
  }
  return best;
}

// The host's CPU as the planner sees one: its cores, clock and vector level, and its memory.
DeviceSpec hostCpu(const HostProbe& probe) {
  DeviceSpec d;
  const SimdLevel simd = cpuSimdLevel(probe.cpuFlags.toStdString());
  d.name = "CPU";
  d.description = QStringLiteral("%1's CPU, %2 cores, %3")
                      .arg(probe.hostname.isEmpty() ? QStringLiteral("the host") : probe.hostname)
                      .arg(probe.cpus)
                      .arg(QString::fromLatin1(simdLevelName(simd)))
                      .toStdString();
  d.memoryBytes = probe.memoryKiB * 1024;
  d.peakFp32 = fp32PeakPerCore(simd, probe.cpuMhz) * std::max(1, probe.cpus);
  d.isCpu = true;
  return d;
}

}  // namespace

Machine hostMachine(const HostProbe& probe, const QString& name) {
  return Machine{name, hostCpu(probe), probe.cpus, static_cast<int>(probe.gpus.size())};
}

ProbedDevices probedDevices(const HostProbe& probe) {
  ProbedDevices out;
  out.label = probe.summary();
  out.colab = probe.colab;
  if (probe.gpus.isEmpty()) {
    out.device = hostCpu(probe);
    out.count = 1;
    return out;
  }
  // The smallest GPU bounds what fits on every rank.
  const auto smallest = std::min_element(probe.gpus.begin(), probe.gpus.end(),
                                         [](const auto& a, const auto& b) { return a.memoryMiB < b.memoryMiB; });
  out.count = static_cast<int>(probe.gpus.size());
  if (std::optional<DeviceSpec> known = catalogueGpu(smallest->name, smallest->memoryMiB)) {
    out.device = *known;
  } else {
    out.known = false;
    out.device.name = smallest->name.toStdString();
    out.device.isCuda = true;
  }
  out.device.description = QStringLiteral("%1, %2 GiB as the host reports it")
                               .arg(smallest->name)
                               .arg(std::round(smallest->memoryMiB / 102.4) / 10.0)
                               .toStdString();
  out.device.memoryBytes = smallest->memoryMiB * 1024 * 1024;
  return out;
}

HostDevices ProbedDevices::forValidation() const {
  // The catalogue's bf16 peak says whether the GPU computes in bf16 (the T4 does not); an
  // unknown GPU is taken to (every GPU since the A100 does).
  return HostDevices{device.isCpu ? 0 : count, !device.isCpu && (!known || device.peakBf16 > 0), colab};
}

}  // namespace traindeck
