// OpenBLAS kernel choice: see blas_kernels.h for why the trainer second-guesses it.
#include "blas_kernels.h"

#include <dlfcn.h>
#include <strings.h>
#include <unistd.h>

#include <array>
#include <cstdlib>
#include <filesystem>

namespace traindeck {

namespace {

bool equalsIgnoringCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
}

std::string environment(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

}  // namespace

const char* openblasCoreTypeFor(SimdLevel level) {
  switch (level) {
    case SimdLevel::Avx512:
      return "SkylakeX";
    case SimdLevel::Avx2:
      return "Haswell";
    case SimdLevel::Unknown:
      break;
  }
  return nullptr;
}

SimdLevel openblasCoreLevel(std::string_view coreName) {
  static constexpr std::array kAvx512 = {"SkylakeX", "Cooperlake", "SapphireRapids"};
  static constexpr std::array kAvx2 = {"Haswell", "Zen"};
  for (const char* name : kAvx512)
    if (equalsIgnoringCase(coreName, name)) return SimdLevel::Avx512;
  for (const char* name : kAvx2)
    if (equalsIgnoringCase(coreName, name)) return SimdLevel::Avx2;
  return SimdLevel::Unknown;
}

std::optional<std::string> betterOpenblasCore(std::string_view loadedCore, std::string_view cpuFlags,
                                              std::string_view userCoreType) {
  if (loadedCore.empty() || !userCoreType.empty()) return std::nullopt;
  const SimdLevel cpu = cpuSimdLevel(cpuFlags);
  if (openblasCoreLevel(loadedCore) >= cpu) return std::nullopt;
  return std::string(openblasCoreTypeFor(cpu));
}

std::string loadedOpenblasCore() {
  using CoreName = char* (*)();
  const auto coreName = reinterpret_cast<CoreName>(dlsym(RTLD_DEFAULT, "openblas_get_corename"));
  const char* name = coreName ? coreName() : nullptr;
  return name ? name : "";
}

bool openblasCanSwitchKernels() {
  using Config = char* (*)();
  const auto config = reinterpret_cast<Config>(dlsym(RTLD_DEFAULT, "openblas_get_config"));
  const char* text = config ? config() : nullptr;
  return text && std::string_view(text).find("DYNAMIC_ARCH") != std::string_view::npos;
}

std::optional<std::string> chooseFasterBlasKernels() {
  const std::string loaded = loadedOpenblasCore();
  auto better = betterOpenblasCore(loaded, thisCpuFlags(), environment("OPENBLAS_CORETYPE"));
  if (!better || !openblasCanSwitchKernels()) return std::nullopt;
  setenv("OPENBLAS_CORETYPE", better->c_str(), 1);
  setenv(kOpenblasDetectedVariable, loaded.c_str(), 1);
  return better;
}

void restartWithFasterBlasKernels(char** argv) {
  // Exec the program itself, not /proc/self/exe, so that ps and pkill still see its name; and
  // not when this is a loader running it (ld.so PROGRAM), where the link names the loader.
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error || !argv[0] || self.filename() != std::filesystem::path(argv[0]).filename()) return;
  if (!chooseFasterBlasKernels()) return;
  execv(self.c_str(), argv);
  unsetenv("OPENBLAS_CORETYPE");  // the exec failed: carry on with the slow kernels, and say so
  unsetenv(kOpenblasDetectedVariable);
}

}  // namespace traindeck
