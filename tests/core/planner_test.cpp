// The planner against figures computed by hand: GPT-2's published parameter counts, each
// memory kind for a small job, zero1's 1/N optimizer share, zero3's shards and gathered units,
// the largest micro-batch, which kinds fit, and the Kaggle T4x2 preset.
#include <gtest/gtest.h>

#include <map>

#include "config/config_io.h"
#include "config/enum_names.h"
#include "config/kind_fits.h"
#include "config/model_presets.h"
#include "config/preset_files.h"
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

// zero3 keeps 1/N of weights, gradients and moments, plus two gathered units of the largest
// (here the embeddings with the final norm: V·C + Pos·C + 2C = 800 + 128 + 16 = 944 against a
// block's 872), and recomputes each block as activation checkpointing does.
TEST(Planner, Zero3ShardsEverythingAndHoldsTwoGatheredUnits) {
  RunConfig c = smallJob();
  c.strategy.kind = StrategyKind::Zero3;
  c.strategy.nproc_per_node = 4;
  EXPECT_EQ(largestUnitParameters(c.model), 944);
  const Plan plan = makePlan(c, bigDevice());
  EXPECT_EQ(plan.memory.weights, 4 * 2688 / 4 + 2 * 4 * 944);
  EXPECT_EQ(plan.memory.gradients, 4 * 2688 / 4);
  EXPECT_EQ(plan.memory.optimizer, 8 * 2688 / 4);
  c.strategy.kind = StrategyKind::Ddp;
  c.strategy.activation_checkpointing = true;
  EXPECT_EQ(plan.activationBytesPerSequence, makePlan(c, bigDevice()).activationBytesPerSequence);
  c.strategy.kind = StrategyKind::Zero3;
  c.strategy.precision = Precision::Bf16;
  DeviceSpec device = bigDevice();
  device.peakBf16 = 4e12;
  EXPECT_EQ(makePlan(c, device).memory.mixedPrecision, 2 * 2 * 944);
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

// Each kind keeps less per rank than the one before it on a big model at 4 ranks, and the
// overhead holds what each has in flight: a gradient bucket, zero2's reduce-scatter staging,
// zero3's one unit of gradients (its two gathered units are in its weights).
TEST(Planner, KindsShardMoreInTurnAndCountWhatTheyHaveInFlight) {
  RunConfig c;
  applyModelPreset(*findModelPreset("gpt2-xl"), c.model);
  c.strategy.nproc_per_node = 4;
  c.strategy.micro_batch = 1;
  const DeviceSpec device = *findDevice("H100");
  std::map<StrategyKind, Plan> plans;
  for (const StrategyKind kind : kindsForWorldSize(4)) {
    c.strategy.kind = kind;
    plans[kind] = makePlan(c, device);
  }
  EXPECT_LT(plans[StrategyKind::Zero3].memory.total(), plans[StrategyKind::Zero2].memory.total());
  EXPECT_LT(plans[StrategyKind::Zero2].memory.total(), plans[StrategyKind::Zero1].memory.total());
  EXPECT_LT(plans[StrategyKind::Zero1].memory.total(), plans[StrategyKind::Ddp].memory.total());
  const std::int64_t P = parameterCount(c.model), unit = largestUnitParameters(c.model);
  const std::int64_t bucket = static_cast<std::int64_t>(c.strategy.bucket_mb * (1 << 20));
  const std::int64_t runtime = plans[StrategyKind::Ddp].memory.overhead - bucket;
  EXPECT_EQ(plans[StrategyKind::Zero1].memory.overhead, runtime + bucket);
  EXPECT_EQ(plans[StrategyKind::Zero2].memory.overhead, runtime + bucket + 2 * P / 4);
  EXPECT_EQ(plans[StrategyKind::Zero3].memory.overhead, runtime + 4 * unit);
  EXPECT_EQ(plans[StrategyKind::Zero3].memory.weights, 4 * P / 4 + 2 * 4 * unit);
  // A CPU rank's resident peak also holds the weights' first copy: 4P more than on a GPU.
  c.strategy.kind = StrategyKind::Ddp;
  DeviceSpec cpu = thisMachineCpu();
  cpu.memoryBytes = device.memoryBytes;
  EXPECT_EQ(makePlan(c, cpu).memory.overhead - (172ll << 20) - bucket, 4 * P);
}

TEST(Planner, KindsForTheWorldSize) {
  EXPECT_EQ(kindsForWorldSize(1), std::vector<StrategyKind>{StrategyKind::Single});
  EXPECT_EQ(kindsForWorldSize(2), (std::vector<StrategyKind>{StrategyKind::Ddp, StrategyKind::Zero1,
                                                             StrategyKind::Zero2, StrategyKind::Zero3}));
}

// The searched largest micro-batch is the planner's own boundary, for every kind: it fits at
// m and not at m + 1; and each kind's row is that kind's plan at the config's micro-batch.
TEST(Planner, LargestFittingMicroBatchIsWhereThePlannerStopsFitting) {
  RunConfig c;
  applyModelPreset(*findModelPreset("gpt2-large"), c.model);
  c.strategy.nproc_per_node = 2;
  c.strategy.micro_batch = 4;
  c.strategy.precision = Precision::Fp16;
  const DeviceSpec t4 = *findDevice("T4");
  const std::vector<KindFit> fits = planEachKind(c, t4);
  ASSERT_EQ(fits.size(), 4u);
  for (const KindFit& fit : fits) {
    RunConfig probe = c;
    probe.strategy.kind = fit.kind;
    const Plan atConfig = makePlan(probe, t4);
    EXPECT_EQ(fit.perRankBytes, atConfig.memory.total());
    EXPECT_EQ(fit.fits, atConfig.fits);
    EXPECT_EQ(fit.largestMicroBatch, largestFittingMicroBatch(probe, t4));
    EXPECT_EQ(fit.largestMicroBatch, atConfig.largestMicroBatch);  // the closed form agrees
    if (fit.largestMicroBatch == 0) {
      probe.strategy.micro_batch = 1;
      EXPECT_FALSE(makePlan(probe, t4).fits);
      continue;
    }
    probe.strategy.micro_batch = fit.largestMicroBatch;
    EXPECT_TRUE(makePlan(probe, t4).fits) << toString(fit.kind);
    probe.strategy.micro_batch = fit.largestMicroBatch + 1;
    EXPECT_FALSE(makePlan(probe, t4).fits) << toString(fit.kind);
  }
  EXPECT_EQ(fits.front().largestMicroBatch, 0);  // ddp: 16 bytes a parameter are too many for a T4
  EXPECT_GT(fits.back().largestMicroBatch, 0);   // zero3 fits
}

// The bundled GPT-2 XL job for Kaggle's two T4s fits as zero3 and would not as ddp.
TEST(Planner, KaggleT4PairPresetFitsUnderZero3AndNotUnderDdp) {
  const std::vector<std::string> dirs = {std::string(TRAINDECK_SOURCE_DIR) + "/resources/presets"};
  const LoadedConfig loaded = loadConfigFile(*resolveConfigPath("gpt2-1.5b-kaggle-t4x2-zero3", dirs));
  ASSERT_TRUE(loaded.problems.empty()) << loaded.problems.front().format("preset");
  RunConfig c = loaded.config;
  EXPECT_EQ(c.strategy.kind, StrategyKind::Zero3);
  EXPECT_EQ(c.strategy.precision, Precision::Fp16);
  EXPECT_TRUE(c.strategy.activation_checkpointing);
  EXPECT_EQ(c.strategy.worldSize(), 2);
  EXPECT_EQ(parameterCount(c.model), 1'557'611'200);
  const DeviceSpec t4 = *findDevice("T4");
  EXPECT_GE(t4.memoryBytes, 15ll << 30);  // 16 GB
  EXPECT_TRUE(makePlan(c, t4).fits);
  c.strategy.kind = StrategyKind::Ddp;
  EXPECT_FALSE(makePlan(c, t4).fits);
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

// The GPU a job's name says it was made for: whole words only, a count after it allowed.
TEST(Devices, TheGpuAJobsNameSays) {
  EXPECT_EQ(deviceNamedIn("gpt2-124m-colab-t4")->name, "T4");
  EXPECT_EQ(deviceNamedIn("gpt2-1.5b-kaggle-t4x2-zero3")->name, "T4");
  EXPECT_EQ(deviceNamedIn("GPT2 on H200")->name, "H200");
  EXPECT_EQ(deviceNamedIn("gpt2-124m-colab-a100")->name, findDevice("a100")->name);
  EXPECT_FALSE(deviceNamedIn("gpt2-124m-8gpu-ddp").has_value());
  EXPECT_FALSE(deviceNamedIn("demo-cpu").has_value());
  EXPECT_FALSE(deviceNamedIn("l40s-test").has_value());  // not an L4
  EXPECT_FALSE(deviceNamedIn("t4xl").has_value());
  EXPECT_FALSE(deviceNamedIn("").has_value());
}

}  // namespace
}  // namespace traindeck
