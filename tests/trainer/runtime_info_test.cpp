// Which BLAS LibTorch calls, told from its resolved path, the warning for the slow one, and the
// threads a CPU rank takes.
#include <gtest/gtest.h>

#include <cstdlib>
#include <thread>

#include "trainer/runtime_info.h"

namespace traindeck {
namespace {

TEST(RuntimeInfo, ClassifiesBlasLibrariesByPath) {
  EXPECT_EQ(blasKindOf("/usr/lib/x86_64-linux-gnu/openblas-openmp/libblas.so.3"), "OpenBLAS");
  EXPECT_EQ(blasKindOf("/usr/lib/x86_64-linux-gnu/blas/libblas.so.3.11.0"), "reference");
  EXPECT_EQ(blasKindOf("/opt/intel/lib/libmkl_rt.so.2"), "MKL");
  EXPECT_EQ(blasKindOf(""), "unknown");
}

TEST(RuntimeInfo, WarnsAboutTheReferenceBlas) {
  RuntimeInfo info;
  info.blasLibrary = "/usr/lib/x86_64-linux-gnu/blas/libblas.so.3";
  info.blasKind = blasKindOf(info.blasLibrary);
  EXPECT_NE(blasWarning(info).find("about 25x slower; install libopenblas0-openmp"), std::string::npos);
  info.blasKind = "OpenBLAS";
  EXPECT_EQ(blasWarning(info), "");
}

TEST(RuntimeInfo, RanksOfANodeShareItsCoresUnlessOmpNumThreadsSays) {
  const char* saved = std::getenv("OMP_NUM_THREADS");
  const std::string before = saved ? saved : "";
  unsetenv("OMP_NUM_THREADS");
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  EXPECT_EQ(cpuThreadsPerRank(1), cores);
  EXPECT_EQ(cpuThreadsPerRank(2), std::max(1, cores / 2));
  EXPECT_EQ(cpuThreadsPerRank(4 * cores), 1) << "never zero";
  setenv("OMP_NUM_THREADS", "3", 1);
  EXPECT_EQ(cpuThreadsPerRank(2), 3);
  setenv("OMP_NUM_THREADS", "nonsense", 1);
  EXPECT_EQ(cpuThreadsPerRank(1), cores);
  if (saved)
    setenv("OMP_NUM_THREADS", before.c_str(), 1);
  else
    unsetenv("OMP_NUM_THREADS");
}

TEST(RuntimeInfo, ProbesThisProcess) {
  const RuntimeInfo info = probeRuntime();
  EXPECT_FALSE(info.torchVersion.empty());
  EXPECT_GE(info.threads, 1);
  EXPECT_NE(describeRuntime(info).find("LibTorch " + info.torchVersion), std::string::npos);
}

}  // namespace
}  // namespace traindeck
