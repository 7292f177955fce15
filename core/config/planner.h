// The plan shown before launch: exact parameter count, memory per device by kind, tokens per
// step, FLOPs per token, a step-time estimate at an assumed utilization, and whether it fits.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "devices.h"
#include "run_config.h"

namespace traindeck {

// GPT-2 with tied embeddings: wte, wpe, per block 12·C² + 13·C, final LayerNorm.
std::int64_t parameterCount(const ModelConfig& model);
// zero3's largest unit, gathered whole while it computes: the embeddings with the final
// LayerNorm (V·C + positions·C + 2·C), or one block (12·C² + 13·C).
std::int64_t largestUnitParameters(const ModelConfig& model);

struct MemoryBreakdown {
  std::int64_t weights = 0;         // fp32 master weights (1/N of them and two gathered units under zero3)
  std::int64_t gradients = 0;       // fp32 gradients
  std::int64_t optimizer = 0;       // AdamW moments (1/N of them under zero1, zero2 and zero3)
  std::int64_t mixedPrecision = 0;  // bf16/fp16 copies of the weights made by autocast
  std::int64_t activations = 0;     // saved for backward, for one micro-batch, logits included
  std::int64_t overhead = 0;        // runtime, CUDA context, communication buckets
  std::int64_t total() const {
    return weights + gradients + optimizer + mixedPrecision + activations + overhead;
  }
};

struct PlanOptions {
  double utilization = 0.4;  // assumed fraction of the device's peak reached in practice
  // Fused attention stores no T×T score matrix. Default: on for CUDA devices (LibTorch 2.x),
  // off for the CPU.
  enum class Attention { Auto, Fused, Plain } attention = Attention::Auto;
};

struct Plan {
  DeviceSpec device;
  double utilization = 0;
  std::int64_t parameters = 0;
  std::int64_t worldSize = 1;
  std::int64_t tokensPerStep = 0;  // all ranks, all micro-batches
  double flopsPerToken = 0;        // model FLOPs, forward + backward: 6·N' + 12·L·C·T
  MemoryBreakdown memory;          // per rank
  std::int64_t memoryAvailable = 0;  // per rank: the device's memory (CPU: shared by the node's ranks)
  std::int64_t activationBytesPerSequence = 0;
  double stepSeconds = 0;     // 0 when the device has no peak for this precision
  double tokensPerSecond = 0; // all ranks
  bool fits = false;
  std::int64_t largestMicroBatch = 0;  // largest micro_batch that fits; 0 when not even 1 does
  std::vector<std::string> notes;      // assumptions and warnings, one sentence each
};

// Memory a rank may use before it counts as not fitting: 95% of what it has.
inline constexpr double kUsableMemoryFraction = 0.95;

Plan makePlan(const RunConfig& config, const DeviceSpec& device, const PlanOptions& options = {});

// "1.2 GiB", "512 MiB"
std::string formatBytes(std::int64_t bytes);
// "124,439,808"
std::string formatThousands(std::int64_t value);

}  // namespace traindeck
