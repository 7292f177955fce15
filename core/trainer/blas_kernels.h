// OpenBLAS chooses its kernels from the CPU model when it loads. Debian 12's 0.3.21 does not know
// newer Xeons (Sapphire and Emerald Rapids among them) and falls back to its Prescott (SSE3)
// kernels: matrix products 4-5x slower than the CPU's AVX-512 allows. OPENBLAS_CORETYPE,
// read only at load, overrides the choice; the trainer restarts itself with it set.
// Torch-free: dlsym and /proc/cpuinfo only.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace traindeck {

enum class SimdLevel { Unknown, Avx2, Avx512 };

// The widest vector level both the CPU and the kernel set use, from /proc/cpuinfo's flags line.
SimdLevel cpuSimdLevel(std::string_view cpuFlags);
SimdLevel openblasCoreLevel(std::string_view coreName);  // "SkylakeX" -> Avx512, "Prescott" -> Unknown

// The OpenBLAS core type to ask for on a CPU with these flags, when the loaded kernels are
// narrower than the CPU: nullopt when they already fit, when the user set OPENBLAS_CORETYPE
// themselves (userCoreType non-empty), or when no OpenBLAS is loaded (loadedCore empty).
std::optional<std::string> betterOpenblasCore(std::string_view loadedCore, std::string_view cpuFlags,
                                              std::string_view userCoreType);

std::string loadedOpenblasCore();  // openblas_get_corename() of this process, or "" without OpenBLAS
std::string thisCpuFlags();        // the first "flags" line of /proc/cpuinfo, or ""

// The variable restartWithFasterBlasKernels leaves for the restarted process: the core OpenBLAS
// had picked by itself.
inline constexpr const char* kOpenblasDetectedVariable = "TRAINDECK_OPENBLAS_DETECTED";

// Where the loaded OpenBLAS runs narrower kernels than this CPU has, sets OPENBLAS_CORETYPE (and
// TRAINDECK_OPENBLAS_DETECTED, the core OpenBLAS had picked, for the log) and execs this program
// again with the same arguments; the pid stays. Returns only when nothing is to be done or the
// exec failed.
void restartWithFasterBlasKernels(char** argv);

const char* simdLevelName(SimdLevel level);        // "AVX-512", "AVX2", "SSE"
const char* openblasCoreTypeFor(SimdLevel level);  // "SkylakeX", "Haswell", or nullptr

}  // namespace traindeck
