// /proc/cpuinfo read once per call; the parsing is kept apart from the reading for tests.
#include "cpu_features.h"

#include <cstdlib>
#include <fstream>
#include <initializer_list>
#include <set>
#include <sstream>

namespace traindeck {

namespace {

// The value after the colon of the first /proc/cpuinfo line starting with `key`.
std::string cpuinfoValue(const std::string& key) {
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind(key, 0) != 0) continue;
    const auto colon = line.find(':');
    return colon == std::string::npos ? "" : line.substr(colon + 1);
  }
  return "";
}

}  // namespace

SimdLevel cpuSimdLevel(std::string_view cpuFlags) {
  std::set<std::string> flags;
  std::istringstream words{std::string(cpuFlags)};
  for (std::string word; words >> word;) flags.insert(word);
  const auto hasAll = [&](std::initializer_list<const char*> names) {
    for (const char* name : names)
      if (!flags.count(name)) return false;
    return true;
  };
  if (hasAll({"avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl", "avx2", "fma"})) return SimdLevel::Avx512;
  if (hasAll({"avx2", "fma"})) return SimdLevel::Avx2;
  return SimdLevel::Unknown;
}

const char* simdLevelName(SimdLevel level) {
  switch (level) {
    case SimdLevel::Avx512:
      return "AVX-512";
    case SimdLevel::Avx2:
      return "AVX2";
    case SimdLevel::Unknown:
      break;
  }
  return "SSE";
}

double fp32PeakPerCore(SimdLevel level, double mhz) {
  const double floats = level == SimdLevel::Avx512 ? 16 : level == SimdLevel::Avx2 ? 8 : 4;
  const double flopsPerCycle = 2 /*FMA units*/ * floats * 2 /*multiply and add*/;
  return flopsPerCycle * (mhz > 0 ? mhz : 2000) * 1e6;
}

std::string thisCpuFlags() {
  return cpuinfoValue("flags");
}

double thisCpuMhz() {
  return std::atof(cpuinfoValue("cpu MHz").c_str());
}

}  // namespace traindeck
