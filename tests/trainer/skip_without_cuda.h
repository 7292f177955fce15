// The CUDA tests run where LibTorch has CUDA and sees a device (tests/gpu/check_cuda.sh builds and
// runs them on a GPU machine) and are skipped elsewhere, saying why.
#pragma once

#include <gtest/gtest.h>

#include "trainer/torch_compat.h"

#define TRAINDECK_SKIP_WITHOUT_CUDA()                                                   \
  if (!torch::cuda::is_available())                                                     \
  GTEST_SKIP() << "no CUDA device here (LibTorch " << traindeck::compat::torchVersion() \
               << "); tests/gpu/check_cuda.sh runs this on a GPU machine"
