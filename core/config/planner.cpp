// Memory model (bytes per rank). With P parameters, B micro-batch, T block, C width, L layers,
// H heads, V vocabulary and a = 2 (bf16/fp16) or 4 (fp32) bytes per activation:
//   weights 4P, gradients 4P (4P/N under zero2), AdamW moments 8P (8P/N under zero1 and zero2),
//   autocast copies 2P;
//   zero3: weights 4P/N + 2 gathered units (the one computing and the one prefetched) of U, the
//   largest unit's parameters (the embeddings with the final LayerNorm, or one block), so
//   4P/N + 8U; gradients 4P/N; moments 8P/N; autocast copies of the gathered units only, 4U; and
//   activations as under activation checkpointing, which zero3's per-unit recompute subsumes;
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

std::int64_t largestUnitParameters(const ModelConfig& m) {
  const std::int64_t C = m.n_embd;
  return std::max(m.vocab_size * C + m.n_positions * C + 2 * C, 12 * C * C + 13 * C);
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
  const bool recomputes = config.strategy.activation_checkpointing || config.strategy.kind == StrategyKind::Zero3;
  const double blocks = recomputes ? L * C * a * T + block : L * block;
  const double embeddings = T * C * a + (dropout ? T * C : 0);
  const double finalNorm = 2 * T * C * a;
  const double logits = T * V * (a + 4 + 4);
  return blocks + embeddings + finalNorm + logits;
}

// What a rank holds besides its model state and activations. Calibrated against the ranks'
// measured peaks on a 2-core CPU at 2 and 4 ranks (tests/bench/train/bench_plan_accuracy,
// docs/scaling.md), first order elsewhere:
//   runtime: the process with LibTorch loaded, 172 MiB on the CPU (a tiny model's resident
//     peak), 640 MiB on a GPU (CUDA context and kernels);
//   a CPU rank's resident peak also keeps one more fp32 copy of the weights, 4P, built before
//     they move into the rank's flat buffers or shards (a GPU's allocator never sees it);
//   communication: ddp, zero1 and zero2 one gradient bucket (bucket_mb, at most 4P) in flight;
//     zero2 also stages each bucket's reduce-scatter, 2P/N measured; zero3 one unit's
//     gradients, 4U.
std::int64_t overheadBytes(const RunConfig& config, const DeviceSpec& device, std::int64_t N, std::int64_t P,
                           std::int64_t unit) {
  const StrategyKind kind = config.strategy.kind;
  const std::int64_t runtime = device.isCpu ? 172ll << 20 : 640ll << 20;
  const std::int64_t constructionCopy = device.isCpu ? 4 * P : 0;
  if (N <= 1 || kind == StrategyKind::Single) return runtime + constructionCopy;
  if (kind == StrategyKind::Zero3) return runtime + constructionCopy + 4 * unit;
  const std::int64_t bucket = std::min(static_cast<std::int64_t>(config.strategy.bucket_mb * (1 << 20)), 4 * P);
  const std::int64_t staging = kind == StrategyKind::Zero2 ? (2 * P + N - 1) / N : 0;
  return runtime + constructionCopy + bucket + staging;
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
  const std::int64_t N = plan.worldSize;
  const bool zero3 = s.kind == StrategyKind::Zero3 && N > 1;
  const bool zero2 = (s.kind == StrategyKind::Zero2 || zero3) && N > 1;
  const bool sharded = (s.kind == StrategyKind::Zero1 || zero2) && N > 1;
  const std::int64_t unit = largestUnitParameters(m);
  mem.weights = zero3 ? (4 * P + N - 1) / N + 2 * 4 * unit : 4 * P;
  // zero2 and zero3 keep only their shard of the gradients between buckets (the bucket or unit
  // being reduced is in the overhead below).
  mem.gradients = zero2 ? (4 * P + N - 1) / N : 4 * P;
  mem.optimizer = sharded ? (8 * P + N - 1) / N : 8 * P;
  mem.mixedPrecision = s.precision == Precision::Fp32 ? 0 : zero3 ? 2 * 2 * unit : 2 * P;
  mem.activations = saturate(perSequence * static_cast<double>(s.micro_batch));
  mem.overhead = overheadBytes(config, device, N, P, unit);

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
    const double recompute = s.activation_checkpointing || s.kind == StrategyKind::Zero3 ? 8.0 / 6.0 : 1.0;
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
