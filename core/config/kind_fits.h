// Which strategy kinds make a job fit: the job planned again under each kind its world size
// allows, with the per-rank memory at its micro-batch and the largest micro-batch that fits,
// found by asking the planner itself. `plan`'s "Which kinds fit" and the Setup page's table.
#pragma once

#include <cstdint>
#include <vector>

#include "planner.h"

namespace traindeck {

struct KindFit {
  StrategyKind kind = StrategyKind::Single;
  std::int64_t perRankBytes = 0;       // at the config's micro_batch
  std::int64_t memoryAvailable = 0;    // per rank
  bool fits = false;                   // at the config's micro_batch
  std::int64_t largestMicroBatch = 0;  // 0: not even micro_batch 1 fits
};

// The kinds that differ at this world size: single alone on one rank; ddp, zero1, zero2 and
// zero3 on more.
std::vector<StrategyKind> kindsForWorldSize(std::int64_t worldSize);

// The largest micro_batch at which makePlan says `config` fits on `device` (searched: doubling,
// then bisecting), or 0 when not even 1 does.
std::int64_t largestFittingMicroBatch(const RunConfig& config, const DeviceSpec& device,
                                      const PlanOptions& options = {});

// `config` planned under each of kindsForWorldSize(its world size), in that order.
std::vector<KindFit> planEachKind(const RunConfig& config, const DeviceSpec& device, const PlanOptions& options = {});

}  // namespace traindeck
