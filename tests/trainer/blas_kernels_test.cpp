// The OpenBLAS kernel check: which vector level a kernel set means (a CPU's: tests/core), when the
// trainer asks for wider kernels, what it says when it cannot, and traindeck-train doing so for
// real on this machine.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <regex>

#include "command_output.h"
#include "trainer/blas_kernels.h"
#include "trainer/runtime_info.h"

namespace traindeck {
namespace {

constexpr const char* kAvx512Flags =
    "fpu sse sse2 ssse3 fma avx avx2 avx512f avx512dq avx512cd avx512bw avx512vl amx_bf16";
constexpr const char* kAvx2Flags = "fpu sse sse2 ssse3 fma avx avx2";
constexpr const char* kSseFlags = "fpu sse sse2 ssse3 sse4_2 avx";

TEST(BlasKernels, KnowsWhichKernelSetsUseWhichLevel) {
  EXPECT_EQ(openblasCoreLevel("SkylakeX"), SimdLevel::Avx512);
  EXPECT_EQ(openblasCoreLevel("cooperlake"), SimdLevel::Avx512);
  EXPECT_EQ(openblasCoreLevel("Haswell"), SimdLevel::Avx2);
  EXPECT_EQ(openblasCoreLevel("Zen"), SimdLevel::Avx2);
  EXPECT_EQ(openblasCoreLevel("Prescott"), SimdLevel::Unknown);
  EXPECT_EQ(openblasCoreLevel("Sandybridge"), SimdLevel::Unknown);
}

TEST(BlasKernels, AsksForWiderKernelsOnlyWhereTheyFitAndNobodyChose) {
  EXPECT_EQ(betterOpenblasCore("Prescott", kAvx512Flags, ""), "SkylakeX");
  EXPECT_EQ(betterOpenblasCore("Haswell", kAvx512Flags, ""), "SkylakeX");
  EXPECT_EQ(betterOpenblasCore("Prescott", kAvx2Flags, ""), "Haswell");
  EXPECT_EQ(betterOpenblasCore("SkylakeX", kAvx512Flags, ""), std::nullopt);
  EXPECT_EQ(betterOpenblasCore("Haswell", kAvx2Flags, ""), std::nullopt);
  EXPECT_EQ(betterOpenblasCore("Prescott", kSseFlags, ""), std::nullopt) << "nothing wider to ask for";
  EXPECT_EQ(betterOpenblasCore("Prescott", kAvx512Flags, "Prescott"), std::nullopt) << "the user's choice stands";
  EXPECT_EQ(betterOpenblasCore("", kAvx512Flags, ""), std::nullopt) << "no OpenBLAS loaded";
}

TEST(BlasKernels, TheRuntimeLineSaysWhatWasChosenAndWarnsWhereTheKernelsAreNarrow) {
  RuntimeInfo info;
  info.blasKind = "OpenBLAS";
  info.cpuSimd = SimdLevel::Avx512;
  info.blasCore = "SkylakeX";
  info.blasCoreDetected = "Prescott";
  info.blasCoreType = "SkylakeX";
  EXPECT_NE(describeRuntime(info).find("with SkylakeX kernels (OpenBLAS took this AVX-512 CPU for Prescott; "
                                       "traindeck set OPENBLAS_CORETYPE=SkylakeX)"),
            std::string::npos)
      << describeRuntime(info);
  EXPECT_EQ(blasWarning(info), "");

  info.blasCore = info.blasCoreType = "Prescott";
  info.blasCoreDetected.clear();
  EXPECT_NE(describeRuntime(info).find("with Prescott kernels (OPENBLAS_CORETYPE=Prescott)"), std::string::npos);
  EXPECT_NE(blasWarning(info).find("runs its Prescott kernels on a CPU with AVX-512"), std::string::npos);
  EXPECT_NE(
      blasWarning(info).find("OPENBLAS_CORETYPE=Prescott asks for them: unset it, or set OPENBLAS_CORETYPE=SkylakeX"),
      std::string::npos)
      << blasWarning(info);

  // Asked for SkylakeX, an OpenBLAS without those kernels kept its own.
  info.blasCoreType = "SkylakeX";
  info.blasCoreDetected = "Prescott";
  EXPECT_NE(blasWarning(info).find("it ignored OPENBLAS_CORETYPE=SkylakeX"), std::string::npos) << blasWarning(info);

  // An OpenBLAS built for one CPU cannot switch at all.
  info.blasCoreType.clear();
  info.blasCoreDetected.clear();
  EXPECT_NE(blasWarning(info).find("cannot switch (it was built without DYNAMIC_ARCH)"), std::string::npos)
      << blasWarning(info);

  info.blasCore = "Haswell";  // wide enough for an AVX2 CPU
  info.cpuSimd = SimdLevel::Avx2;
  EXPECT_EQ(blasWarning(info), "");
}

// stdout and stderr of a shell command line.
std::string outputOf(const std::string& commandLine) {
  return test_support::commandOutput(commandLine + " 2>&1").text;
}

TEST(BlasKernels, TraindeckTrainRunsKernelsAsWideAsThisCpu) {
  const std::string unset = "env -u OPENBLAS_CORETYPE -u TRAINDECK_OPENBLAS_DETECTED ";
  const std::string version = outputOf(unset + "'" TRAINDECK_TRAIN_BIN "' --version");
  std::smatch core;
  if (!std::regex_search(version, core, std::regex("with (\\w+) kernels"))) GTEST_SKIP() << "not OpenBLAS: " << version;
  if (!openblasCanSwitchKernels()) GTEST_SKIP() << "this OpenBLAS was built for one CPU (no DYNAMIC_ARCH)";
  const SimdLevel cpu = cpuSimdLevel(thisCpuFlags());
  EXPECT_GE(openblasCoreLevel(core[1].str()), cpu) << version;
  EXPECT_EQ(version.find("warning"), std::string::npos) << version;

  // Asked for narrow kernels, it keeps them and says what that costs.
  const std::string narrow = outputOf(unset + "OPENBLAS_CORETYPE=Prescott '" TRAINDECK_TRAIN_BIN "' --version");
  EXPECT_NE(narrow.find("with Prescott kernels (OPENBLAS_CORETYPE=Prescott)"), std::string::npos) << narrow;
  if (cpu != SimdLevel::Unknown) {
    EXPECT_NE(narrow.find("warning: OpenBLAS runs its Prescott kernels"), std::string::npos) << narrow;
  }
}

TEST(BlasKernels, TheseTestsRunOnTheKernelsTraindeckTrainWouldChoose) {
  const std::string loaded = loadedOpenblasCore();
  if (loaded.empty()) GTEST_SKIP() << "LibTorch does not call OpenBLAS here";
  const char* user = std::getenv("TRAINDECK_OPENBLAS_DETECTED") ? nullptr : std::getenv("OPENBLAS_CORETYPE");
  if (user) GTEST_SKIP() << "OPENBLAS_CORETYPE=" << user << " was set for this run";
  if (!openblasCanSwitchKernels()) GTEST_SKIP() << "this OpenBLAS was built for one CPU (no DYNAMIC_ARCH)";
  EXPECT_GE(openblasCoreLevel(loaded), cpuSimdLevel(thisCpuFlags())) << loaded;
}

}  // namespace
}  // namespace traindeck
