// Memory model (bytes per rank). With P parameters, B micro-batch, T block, C width, L layers,
// H heads, V vocabulary and a = 2 (bf16/fp16) or 4 (fp32) bytes per activation:
//   weights 4P, gradients 4P (4P/N under zero2), AdamW moments 8P (8P/N under zero1 and zero2),
//   autocast copies 2P;
//   activations per block and token: 16·C values (LayerNorm in/out ×2, qkv 3C, attention
//   out C, MLP 4C + GELU 4C) + H·T scores when attention is not fused + dropout masks;
//   logits: a + 4 (fp32 log-probs) + 4 (their gradient) bytes per vocabulary entry per token.
//   Activation checkpointing keeps one C-wide input per block and recomputes one block.
// FLOPs per token follow PaLM's MFU convention: 6·(P − position embeddings) + 12·L·C·T.
#include "planner.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "config/run_steps.h"
#include "enum_names.h"

namespace traindeck {

std::int64_t parameterCount(const ModelConfig& m) {
  // Validated sizes keep this far inside int64: C <= 2^16, L <= 2^10, V and positions <= 2^24.
  const std::int64_t C = m.n_embd;
  const std::int64_t perBlock = 12 * C * C + 13 * C;
  return m.vocab_size * C + m.n_positions * C + m.n_layer * perBlock + 2 * C;
}

namespace {

// Sizes are computed in double and saturated: any config that passes validation has a plan,
// even an absurd one, without integer overflow.
std::int64_t saturate(double bytes) {
  constexpr double kMax = 1.0e18;  // an exabyte: past any device, and six of them still fit in int64
  return bytes >= kMax ? static_cast<std::int64_t>(kMax) : static_cast<std::int64_t>(std::llround(bytes));
}

double activationBytesPerSequence(const RunConfig& config, bool fusedAttention) {
  const ModelConfig& m = config.model;
  const double T = m.block_size, C = m.n_embd, H = m.n_head, L = m.n_layer, V = m.vocab_size;
  const double a = config.strategy.precision == Precision::Fp32 ? 4 : 2;
  const bool dropout = m.dropout > 0;

  double perBlockToken = 16 * C * a;
  if (fusedAttention)
    perBlockToken += H * 4;  // log-sum-exp per head, fp32
  else
    perBlockToken += H * T * a + (dropout ? H * T : 0);  // softmax output and its dropout mask
  if (dropout) perBlockToken += 2 * C;                   // residual dropout masks (1 byte each)

  const double block = perBlockToken * T;
  const double blocks = config.strategy.activation_checkpointing ? L * C * a * T + block : L * block;
  const double embeddings = T * C * a + (dropout ? T * C : 0);
  const double finalNorm = 2 * T * C * a;
  const double logits = T * V * (a + 4 + 4);
  return blocks + embeddings + finalNorm + logits;
}

}  // namespace

Plan makePlan(const RunConfig& config, const DeviceSpec& device, const PlanOptions& options) {
  Plan plan;
  plan.device = device;
  plan.utilization = options.utilization;
  const StrategyConfig& s = config.strategy;
  const ModelConfig& m = config.model;
  const std::int64_t P = parameterCount(m);
  plan.parameters = P;
  plan.worldSize = std::max<std::int64_t>(1, s.worldSize());
  plan.tokensPerStep = tokensPerStep(config);

  const bool fused = options.attention == PlanOptions::Attention::Auto
                         ? device.isCuda
                         : options.attention == PlanOptions::Attention::Fused;
  const double perSequence = activationBytesPerSequence(config, fused);
  plan.activationBytesPerSequence = saturate(perSequence);

  MemoryBreakdown& mem = plan.memory;
  mem.weights = 4 * P;
  const bool zero2 = s.kind == StrategyKind::Zero2 && plan.worldSize > 1;
  const bool sharded = (s.kind == StrategyKind::Zero1 || zero2) && plan.worldSize > 1;
  // zero2 keeps only its shard of the gradients between buckets (the bucket being reduced is in
  // the overhead below).
  mem.gradients = zero2 ? (4 * P + plan.worldSize - 1) / plan.worldSize : 4 * P;
  mem.optimizer = sharded ? (8 * P + plan.worldSize - 1) / plan.worldSize : 8 * P;
  mem.mixedPrecision = s.precision == Precision::Fp32 ? 0 : 2 * P;
  mem.activations = saturate(perSequence * static_cast<double>(s.micro_batch));
  const std::int64_t runtime = device.isCpu ? 256ll << 20 : 640ll << 20;
  const std::int64_t buckets = plan.worldSize > 1 ? static_cast<std::int64_t>(s.bucket_mb * (1 << 20)) : 0;
  mem.overhead = runtime + buckets;

  plan.memoryAvailable = device.memoryBytes;
  if (device.isCpu) plan.memoryAvailable = device.memoryBytes / std::max<std::int64_t>(1, s.nproc_per_node);
  const double usable = kUsableMemoryFraction * static_cast<double>(plan.memoryAvailable);
  const double fixed = static_cast<double>(mem.weights) + static_cast<double>(mem.gradients) +
                       static_cast<double>(mem.optimizer) + static_cast<double>(mem.mixedPrecision) +
                       static_cast<double>(mem.overhead);
  plan.fits = fixed + perSequence * static_cast<double>(s.micro_batch) <= usable;
  plan.largestMicroBatch = usable > fixed ? saturate(std::floor((usable - fixed) / perSequence)) : 0;

  plan.flopsPerToken = 6.0 * static_cast<double>(P - m.n_positions * m.n_embd) +
                       12.0 * static_cast<double>(m.n_layer * m.n_embd * m.block_size);
  // A node's CPU ranks share its cores, as the trainer's MFU counts them (Trainer::jobPeakFlops):
  // each rank has its share of the peak, not all of it.
  const double peak = device.peakFor(s.precision) /
                      (device.isCpu ? static_cast<double>(std::max<std::int64_t>(1, s.nproc_per_node)) : 1.0);
  if (peak > 0 && options.utilization > 0) {
    const double recompute = s.activation_checkpointing ? 8.0 / 6.0 : 1.0;
    const double tokensPerRank =
        static_cast<double>(m.block_size) * static_cast<double>(s.micro_batch) * static_cast<double>(s.grad_accum);
    plan.stepSeconds = tokensPerRank * plan.flopsPerToken * recompute / (peak * options.utilization);
    plan.tokensPerSecond = static_cast<double>(plan.tokensPerStep) / plan.stepSeconds;
    plan.notes.push_back("step time assumes " +
                         std::to_string(static_cast<int>(std::lround(options.utilization * 100))) +
                         "% of the device's peak and ignores communication");
  } else {
    plan.notes.push_back(device.name + " does not compute in " + std::string(toString(s.precision)) +
                         ", so no step time is estimated; plan another precision or device");
  }
  if (device.isCpu && s.nproc_per_node > 1)
    plan.notes.push_back("the " + std::to_string(s.nproc_per_node) + " ranks on this node share its memory and cores");
  if (!plan.fits) {
    if (plan.largestMicroBatch > 0)
      plan.notes.push_back("does not fit: micro_batch " + std::to_string(plan.largestMicroBatch) +
                           " is the largest that fits (raise grad_accum to keep the batch)");
    else if (!s.activation_checkpointing)
      plan.notes.push_back(
          "does not fit even at micro_batch 1: try activation_checkpointing, zero1, or a larger device");
    else
      plan.notes.push_back("does not fit even at micro_batch 1: try zero1 with more ranks, or a larger device");
  }
  return plan;
}

std::string formatBytes(std::int64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (std::fabs(value) >= 1024 && unit < 4) {
    value /= 1024;
    ++unit;
  }
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, unit == 0 ? "%.0f %s" : "%.1f %s", value, units[unit]);
  return buffer;
}

std::string formatThousands(std::int64_t value) {
  std::string digits = std::to_string(value < 0 ? -value : value);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return value < 0 ? "-" + out : out;
}

}  // namespace traindeck
