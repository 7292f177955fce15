// The facts `traindeck-train validate --machine` writes and the app reads (config/machine_facts.h):
// what one writes the other reads back, "not known" stays not known, and garbage is never taken
// for a machine without GPUs.
#include <gtest/gtest.h>

#include "config/machine_facts.h"

namespace traindeck {
namespace {

TEST(MachineFacts, WhatIsWrittenReadsBack) {
  for (const HostDevices& host : {HostDevices{.cudaDevices = 0, .bf16 = false, .colabRuntime = false},
                                  HostDevices{.cudaDevices = 8, .bf16 = true, .colabRuntime = false},
                                  HostDevices{.cudaDevices = 1, .bf16 = false, .colabRuntime = true}}) {
    const std::string json = machineFactsJson(host);
    EXPECT_EQ(json.back(), '\n');
    const MachineFactsReadResult read = parseMachineFacts(json);
    ASSERT_TRUE(read.ok()) << read.error;
    ASSERT_TRUE(read.host.has_value()) << json;
    EXPECT_EQ(read.host->cudaDevices, host.cudaDevices);
    EXPECT_EQ(read.host->bf16, host.bf16);
    EXPECT_EQ(read.host->colabRuntime, host.colabRuntime);
  }
  EXPECT_EQ(machineFactsJson(HostDevices{.cudaDevices = 2, .bf16 = true, .colabRuntime = false}),
            "{\"cuda_devices\":2,\"bf16\":true,\"colab_runtime\":false}\n");
}

TEST(MachineFacts, NotKnownStaysNotKnown) {
  EXPECT_EQ(machineFactsJson(std::nullopt), "{\"cuda_devices\":null}\n");
  const MachineFactsReadResult read = parseMachineFacts(machineFactsJson(std::nullopt));
  EXPECT_TRUE(read.ok()) << read.error;
  EXPECT_FALSE(read.host.has_value());
  EXPECT_FALSE(parseMachineFacts("{\"something_else\":1}").host.has_value());  // unknown keys ignored
}

TEST(MachineFacts, GarbageIsAnErrorNotAMachineWithoutGpus) {
  for (const char* text : {"", "LibTorch: 1 CUDA device", "[0]", "{\"cuda_devices\":-1}", "{\"cuda_devices\":\"2\"}",
                           "{\"cuda_devices\":1.5}"}) {
    const MachineFactsReadResult read = parseMachineFacts(text);
    EXPECT_FALSE(read.ok()) << text;
    EXPECT_FALSE(read.host.has_value()) << text;
  }
}

}  // namespace
}  // namespace traindeck
