// GpuStats loads NVML at run time: with no library it reports nothing and never fails; with
// one (a stand-in built by the tests) it reads every figure.
#include <gtest/gtest.h>

#include "trainer/train/gpu_stats.h"

namespace traindeck {
namespace {

TEST(GpuStats, WithoutNvmlThereAreNoFigures) {
  const GpuStats stats("libnvidia-ml-that-does-not-exist.so.1");
  EXPECT_FALSE(stats.available());
  EXPECT_FALSE(stats.sample(0).has_value());
}

TEST(GpuStats, ReadsEveryFigureThroughNvml) {
  const GpuStats stats(FAKE_NVML_LIBRARY);
  ASSERT_TRUE(stats.available());
  const auto s = stats.sample(0);
  ASSERT_TRUE(s.has_value());
  EXPECT_DOUBLE_EQ(s->util, 0.87);
  EXPECT_EQ(s->memUsed, 12ll << 30);
  EXPECT_EQ(s->memTotal, 80ll << 30);
  EXPECT_DOUBLE_EQ(s->powerWatts, 312.5);
  EXPECT_DOUBLE_EQ(s->temperatureC, 64);
  EXPECT_FALSE(stats.sample(1).has_value());  // no such device
}

TEST(GpuStats, CudaVisibleDevicesRenumbers) {
  EXPECT_EQ(nvmlIndexOfCudaDevice(1, nullptr), 1u);
  EXPECT_EQ(nvmlIndexOfCudaDevice(1, "4,6"), 6u);
  EXPECT_EQ(nvmlIndexOfCudaDevice(0, "GPU-8f1c"), 0u);
  EXPECT_EQ(nvmlIndexOfCudaDevice(3, "4,6"), 3u);
}

}  // namespace
}  // namespace traindeck
