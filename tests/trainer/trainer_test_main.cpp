// The trainer tests' main: first the OpenBLAS kernels traindeck-train itself would run
// (blas_kernels.h), so that the tests see the same products and take the same time.
#include <gtest/gtest.h>

#include "trainer/blas_kernels.h"

int main(int argc, char** argv) {
  traindeck::restartWithFasterBlasKernels(argv);
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
