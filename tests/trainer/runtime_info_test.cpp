// Which BLAS LibTorch calls, told from its resolved path, and the warning for the slow one.
#include <gtest/gtest.h>

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

TEST(RuntimeInfo, ProbesThisProcess) {
  const RuntimeInfo info = probeRuntime();
  EXPECT_FALSE(info.torchVersion.empty());
  EXPECT_GE(info.threads, 1);
  EXPECT_NE(describeRuntime(info).find("LibTorch " + info.torchVersion), std::string::npos);
}

}  // namespace
}  // namespace traindeck
