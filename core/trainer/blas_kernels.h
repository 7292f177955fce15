// OpenBLAS picks its kernels by CPU model at load; Debian 12's 0.3.21 takes newer Xeons for a
// Prescott (SSE3 kernels, products 4-5x slower than AVX-512's). OPENBLAS_CORETYPE, read at load,
// overrides that: the trainer sets it for its ranks, or restarts itself with it. No Torch.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "config/cpu_features.h"

namespace traindeck {

// The vector level a kernel set uses.
SimdLevel openblasCoreLevel(std::string_view coreName);  // "SkylakeX" -> Avx512, "Prescott" -> Unknown

// The OpenBLAS core type to ask for on a CPU with these flags, when the loaded kernels are
// narrower than the CPU: nullopt when they already fit, when the user set OPENBLAS_CORETYPE
// themselves (userCoreType non-empty), or when no OpenBLAS is loaded (loadedCore empty).
std::optional<std::string> betterOpenblasCore(std::string_view loadedCore, std::string_view cpuFlags,
                                              std::string_view userCoreType);

std::string loadedOpenblasCore();  // openblas_get_corename() of this process, or "" without OpenBLAS
bool openblasCanSwitchKernels();   // built with DYNAMIC_ARCH, so OPENBLAS_CORETYPE is honoured

// The variable set beside OPENBLAS_CORETYPE for processes started after the choice: the core
// OpenBLAS had picked by itself, for the runtime log.
inline constexpr const char* kOpenblasDetectedVariable = "TRAINDECK_OPENBLAS_DETECTED";

// Where the loaded OpenBLAS runs narrower kernels than this CPU has and can switch, sets
// OPENBLAS_CORETYPE (and kOpenblasDetectedVariable) for the processes this one starts, and
// returns the core type asked for.
std::optional<std::string> chooseFasterBlasKernels();

// The same, and then execs this program again with the same arguments, so that this process
// runs the wider kernels too (the pid stays). Returns only when nothing is to be done, or when
// the exec cannot or did not happen (the runtime line then warns).
void restartWithFasterBlasKernels(char** argv);

const char* openblasCoreTypeFor(SimdLevel level);  // "SkylakeX", "Haswell", or nullptr

}  // namespace traindeck
