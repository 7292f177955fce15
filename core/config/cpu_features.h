// What this machine's CPU can do, from /proc/cpuinfo: its widest vector level and clock, for
// the planner's fp32 peak and the trainer's choice of OpenBLAS kernels (trainer/blas_kernels.h).
#pragma once

#include <string>
#include <string_view>

namespace traindeck {

enum class SimdLevel { Unknown, Avx2, Avx512 };

// From a cpuinfo flags line: Avx512 needs F, CD, BW, DQ and VL (what OpenBLAS's SkylakeX kernels
// execute) besides AVX2 and FMA; Avx2 needs FMA too.
SimdLevel cpuSimdLevel(std::string_view cpuFlags);
const char* simdLevelName(SimdLevel level);  // "AVX-512", "AVX2", "SSE"

// Dense fp32 peak of one core: two FMA units of the level's width (16, 8 or 4 floats, 2 FLOP
// each) per cycle at `mhz` (2000 where the clock is not known).
double fp32PeakPerCore(SimdLevel level, double mhz);

std::string thisCpuFlags();  // the first "flags" line of /proc/cpuinfo, or ""
double thisCpuMhz();         // the first "cpu MHz" of /proc/cpuinfo, or 0

}  // namespace traindeck
