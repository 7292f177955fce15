// Fitting only grows with the micro-batch (activations are the one term that depends on it),
// so the boundary is found by doubling to a micro-batch that does not fit and bisecting.
#include "kind_fits.h"

namespace traindeck {

std::vector<StrategyKind> kindsForWorldSize(std::int64_t worldSize) {
  if (worldSize <= 1) return {StrategyKind::Single};
  return {StrategyKind::Ddp, StrategyKind::Zero1, StrategyKind::Zero2, StrategyKind::Zero3};
}

std::int64_t largestFittingMicroBatch(const RunConfig& config, const DeviceSpec& device, const PlanOptions& options) {
  RunConfig probe = config;
  const auto fitsAt = [&](std::int64_t microBatch) {
    probe.strategy.micro_batch = microBatch;
    return makePlan(probe, device, options).fits;
  };
  if (!fitsAt(1)) return 0;
  constexpr std::int64_t kLimit = std::int64_t{1} << 40;  // past any memory: a sequence takes bytes
  std::int64_t fits = 1, doesNot = 2;
  while (fitsAt(doesNot)) {
    fits = doesNot;
    if (doesNot >= kLimit) return fits;
    doesNot *= 2;
  }
  while (doesNot - fits > 1) {
    const std::int64_t middle = fits + (doesNot - fits) / 2;
    (fitsAt(middle) ? fits : doesNot) = middle;
  }
  return fits;
}

std::vector<KindFit> planEachKind(const RunConfig& config, const DeviceSpec& device, const PlanOptions& options) {
  std::vector<KindFit> out;
  for (const StrategyKind kind : kindsForWorldSize(config.strategy.worldSize())) {
    RunConfig asKind = config;
    asKind.strategy.kind = kind;
    const Plan plan = makePlan(asKind, device, options);
    out.push_back({.kind = kind,
                   .perRankBytes = plan.memory.total(),
                   .memoryAvailable = plan.memoryAvailable,
                   .fits = plan.fits,
                   .largestMicroBatch = largestFittingMicroBatch(asKind, device, options)});
  }
  return out;
}

}  // namespace traindeck
