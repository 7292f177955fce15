// This machine's CPU as the planner and the trainer see it: the vector level from cpuinfo's
// flags, and the fp32 peak per core that level and the clock give.
#include <gtest/gtest.h>

#include <thread>

#include "config/cpu_features.h"
#include "config/devices.h"

namespace traindeck {
namespace {

TEST(CpuFeatures, ReadsTheVectorLevelFromCpuFlags) {
  EXPECT_EQ(cpuSimdLevel("fpu sse sse2 ssse3 fma avx avx2 avx512f avx512dq avx512cd avx512bw avx512vl amx_bf16"),
            SimdLevel::Avx512);
  EXPECT_EQ(cpuSimdLevel("fpu sse sse2 ssse3 fma avx avx2"), SimdLevel::Avx2);
  EXPECT_EQ(cpuSimdLevel("fpu sse sse2 ssse3 sse4_2 avx"), SimdLevel::Unknown);
  EXPECT_EQ(cpuSimdLevel("fma avx2 avx512f"), SimdLevel::Avx2) << "AVX-512 without BW/DQ/VL is not SkylakeX's";
  EXPECT_EQ(cpuSimdLevel("avx2"), SimdLevel::Unknown) << "no FMA";
  EXPECT_EQ(cpuSimdLevel("avx512f_and_more avx2x"), SimdLevel::Unknown) << "whole words only";
}

TEST(CpuFeatures, PeakIsTwoFmaUnitsOfTheVectorWidthPerCycle) {
  EXPECT_DOUBLE_EQ(fp32PeakPerCore(SimdLevel::Avx512, 2100), 64 * 2.1e9);  // 2 units x 16 floats x 2 FLOP
  EXPECT_DOUBLE_EQ(fp32PeakPerCore(SimdLevel::Avx2, 3000), 32 * 3.0e9);
  EXPECT_DOUBLE_EQ(fp32PeakPerCore(SimdLevel::Unknown, 0), 16 * 2.0e9) << "2 GHz where the clock is not known";
}

TEST(CpuFeatures, ThisMachinesCpuIsDescribedByWhatItHas) {
  const DeviceSpec cpu = thisMachineCpu();
  const SimdLevel level = cpuSimdLevel(thisCpuFlags());
  EXPECT_NE(cpu.description.find(simdLevelName(level)), std::string::npos) << cpu.description;
  const double cores = std::max(1u, std::thread::hardware_concurrency());
  EXPECT_DOUBLE_EQ(cpu.peakFp32, cores * fp32PeakPerCore(level, thisCpuMhz()));
  EXPECT_GT(cpu.memoryBytes, 0);
}

}  // namespace
}  // namespace traindeck
