// The planner against figures computed by hand: GPT-2's published parameter counts, each
// memory kind for a small job, zero1's 1/N optimizer share, and the largest micro-batch.
#include <gtest/gtest.h>

#include "config/model_presets.h"
#include "config/planner.h"

namespace traindeck {
namespace {

std::int64_t presetParameters(const char* name) {
  ModelConfig m;
  applyModelPreset(*findModelPreset(name), m);
  return parameterCount(m);
}

TEST(Planner, Gpt2ParameterCountsArePublishedOnes) {
  EXPECT_EQ(presetParameters("gpt2"), 124'439'808);
  EXPECT_EQ(presetParameters("gpt2-medium"), 354'823'168);
  EXPECT_EQ(presetParameters("gpt2-large"), 774'030'080);
  EXPECT_EQ(presetParameters("gpt2-xl"), 1'557'611'200);
}

DeviceSpec bigDevice() {
  DeviceSpec d;
  d.name = "test";
  d.memoryBytes = 1ll << 40;
  d.peakFp32 = 1e12;
  d.isCuda = true;
  return d;
}

RunConfig smallJob() {
  RunConfig c;
  c.model = {"", 2, 2, 8, 16, 16, 100, 0.0, ""};
  c.strategy.micro_batch = 3;
  c.strategy.grad_accum = 2;
  return c;
}

TEST(Planner, MemoryBreakdownByHand) {
  const RunConfig c = smallJob();
  // P = V·C + Pos·C + L·(12C² + 13C) + 2C = 800 + 128 + 2·(768 + 104) + 16 = 2688
  const Plan plan = makePlan(c, bigDevice());
  EXPECT_EQ(plan.parameters, 2688);
  EXPECT_EQ(plan.memory.weights, 4 * 2688);
  EXPECT_EQ(plan.memory.gradients, 4 * 2688);
  EXPECT_EQ(plan.memory.optimizer, 8 * 2688);
  EXPECT_EQ(plan.memory.mixedPrecision, 0);
  // Per sequence, fp32 (a = 4), fused attention (CUDA device), T = 16, C = 8, H = 2, L = 2:
  // blocks L·T·(16·C·a + 4·H) = 2·16·(512 + 8) = 16640; embeddings T·C·a = 512;
  // final norm 2·T·C·a = 1024; logits T·V·(a + 8) = 16·100·12 = 19200.
  EXPECT_EQ(plan.activationBytesPerSequence, 16640 + 512 + 1024 + 19200);
  EXPECT_EQ(plan.memory.activations, 3 * plan.activationBytesPerSequence);
  EXPECT_EQ(plan.tokensPerStep, 16 * 3 * 2);
  // 6·(P − Pos·C) + 12·L·C·T = 6·2560 + 12·2·8·16
  EXPECT_DOUBLE_EQ(plan.flopsPerToken, 6.0 * 2560 + 12.0 * 2 * 8 * 16);
  EXPECT_DOUBLE_EQ(plan.stepSeconds, 96 * plan.flopsPerToken / (1e12 * 0.4));
  EXPECT_TRUE(plan.fits);
}

TEST(Planner, Zero1ShardsOptimizerStateAcrossRanks) {
  RunConfig c = smallJob();
  c.strategy.kind = StrategyKind::Zero1;
  c.strategy.nproc_per_node = 4;
  const Plan plan = makePlan(c, bigDevice());
  EXPECT_EQ(plan.memory.optimizer, 8 * 2688 / 4);
  EXPECT_EQ(plan.memory.weights, 4 * 2688);  // weights and gradients stay whole
  c.strategy.kind = StrategyKind::Ddp;
  EXPECT_EQ(makePlan(c, bigDevice()).memory.optimizer, 8 * 2688);
}

TEST(Planner, MixedPrecisionAndCheckpointingChangeWhatTheyShould) {
  RunConfig c = smallJob();
  const Plan fp32 = makePlan(c, bigDevice());
  c.strategy.precision = Precision::Bf16;
  DeviceSpec device = bigDevice();
  device.peakBf16 = 4e12;
  const Plan bf16 = makePlan(c, device);
  EXPECT_EQ(bf16.memory.mixedPrecision, 2 * 2688);
  EXPECT_LT(bf16.activationBytesPerSequence, fp32.activationBytesPerSequence);
  EXPECT_DOUBLE_EQ(bf16.stepSeconds, fp32.stepSeconds / 4);
  c.strategy.activation_checkpointing = true;
  const Plan checkpointed = makePlan(c, device);
  EXPECT_LT(checkpointed.activationBytesPerSequence, bf16.activationBytesPerSequence);
  EXPECT_DOUBLE_EQ(checkpointed.stepSeconds, bf16.stepSeconds * 8 / 6);
}

TEST(Planner, LargestMicroBatchIsTheBoundaryOfFitting) {
  RunConfig c;  // GPT-2 small
  DeviceSpec device = *findDevice("T4");
  const Plan plan = makePlan(c, device);
  ASSERT_GT(plan.largestMicroBatch, 0);
  c.strategy.micro_batch = plan.largestMicroBatch;
  EXPECT_TRUE(makePlan(c, device).fits);
  c.strategy.micro_batch = plan.largestMicroBatch + 1;
  const Plan over = makePlan(c, device);
  EXPECT_FALSE(over.fits);
  EXPECT_NE(over.notes.back().find("micro_batch " + std::to_string(plan.largestMicroBatch)), std::string::npos);
}

TEST(Planner, CpuRanksShareTheMachinesMemory) {
  RunConfig c = smallJob();
  c.strategy.kind = StrategyKind::Ddp;
  c.strategy.nproc_per_node = 2;
  const DeviceSpec cpu = thisMachineCpu();
  EXPECT_EQ(makePlan(c, cpu).memoryAvailable, cpu.memoryBytes / 2);
}

TEST(Planner, CpuRanksShareTheMachinesPeakAsTheTrainerCountsIt) {
  // Two ranks on one CPU do the work of one rank at twice the batch: the same tokens/s, not twice.
  RunConfig one = smallJob();
  one.strategy.device = DeviceKind::Cpu;
  one.strategy.nproc_per_node = 1;
  one.strategy.micro_batch = 4;
  RunConfig two = one;
  two.strategy.kind = StrategyKind::Ddp;
  two.strategy.nproc_per_node = 2;
  two.strategy.micro_batch = 2;
  const DeviceSpec cpu = thisMachineCpu();
  const Plan a = makePlan(one, cpu), b = makePlan(two, cpu);
  EXPECT_EQ(a.tokensPerStep, b.tokensPerStep);
  EXPECT_NEAR(b.tokensPerSecond, a.tokensPerSecond, 1e-9 * a.tokensPerSecond);
  // GPUs are one per rank: two of them, twice the tokens/s.
  const DeviceSpec h100 = *findDevice("H100");
  one.strategy.device = two.strategy.device = DeviceKind::Cuda;
  const double single = makePlan(one, h100).tokensPerSecond;
  EXPECT_NEAR(makePlan(two, h100).tokensPerSecond, 2 * single, 1e-9 * single);
}

TEST(Planner, DevicesWithoutThePrecisionGiveNoStepTime) {
  RunConfig c = smallJob();
  c.strategy.precision = Precision::Bf16;
  const Plan plan = makePlan(c, *findDevice("T4"));
  EXPECT_EQ(plan.stepSeconds, 0);
  EXPECT_NE(plan.notes.front().find("does not compute in bf16"), std::string::npos);
}

TEST(Planner, DeviceTableLookups) {
  EXPECT_EQ(findDevice("h200")->name, "H200");
  EXPECT_EQ(findDevice("A100")->name, "A100-40GB");
  EXPECT_FALSE(findDevice("V100").has_value());
  EXPECT_GT(findDevice("TPU-v5e")->peakBf16, 0);
  EXPECT_EQ(findDevice("tpu-v6e")->name, "TPU-v6e");
}

// Colab's G4 (RTX PRO 6000 Blackwell, 96 GB): more memory than an H100, so GPT-2 xl fits a
// larger micro-batch there, and it computes in bf16.
TEST(Planner, G4IsTheLargestColabGpu) {
  const DeviceSpec g4 = *findDevice("g4");
  EXPECT_EQ(g4.name, "G4");
  EXPECT_TRUE(g4.isCuda);
  EXPECT_GT(g4.memoryBytes, findDevice("H100")->memoryBytes);
  EXPECT_LT(g4.memoryBytes, findDevice("H200")->memoryBytes);
  EXPECT_GT(g4.peakBf16, 0);
  RunConfig c;
  applyModelPreset(*findModelPreset("gpt2-xl"), c.model);
  c.strategy.precision = Precision::Bf16;
  c.strategy.micro_batch = 1;
  EXPECT_GT(makePlan(c, g4).largestMicroBatch, makePlan(c, *findDevice("H100")).largestMicroBatch);
  // CUDA names it by the card, not "G4"; the other entries by their model's name.
  EXPECT_TRUE(cudaNameMatches(g4, "NVIDIA RTX PRO 6000 Blackwell Server Edition"));
  EXPECT_TRUE(cudaNameMatches(*findDevice("A100-80GB"), "NVIDIA A100-SXM4-80GB"));
  EXPECT_FALSE(cudaNameMatches(*findDevice("H100"), "NVIDIA RTX PRO 6000 Blackwell Server Edition"));
  EXPECT_FALSE(cudaNameMatches(*findDevice("TPU-v6e"), "TPU v6e"));
  EXPECT_TRUE(cudaNameMatches(*findDevice("L4"), "NVIDIA L4"));
  EXPECT_FALSE(cudaNameMatches(*findDevice("L4"), "NVIDIA L40S"));
  EXPECT_FALSE(cudaNameMatches(*findDevice("H100"), "NVIDIA H1000"));
  EXPECT_TRUE(cudaNameMatches(*findDevice("T4"), "Tesla T4"));
}

TEST(Planner, Formatting) {
  EXPECT_EQ(formatThousands(124439808), "124,439,808");
  EXPECT_EQ(formatThousands(-1000), "-1,000");
  EXPECT_EQ(formatThousands(999), "999");
  EXPECT_EQ(formatBytes(512), "512 B");
  EXPECT_EQ(formatBytes(3 << 20), "3.0 MiB");
}

}  // namespace
}  // namespace traindeck
