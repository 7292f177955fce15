// How an export carries the job's strategy.kind to the place it runs: each framework either does
// what the kind says (PyTorch: ZeroRedundancyOptimizer for zero1, FSDP2's fully_shard for zero2
// and zero3) or the export is refused, with the reason, before anything is written. A sharded
// job never silently becomes a replicated one, which may not fit where the sharded one does.
#pragma once

#include <string>

#include "config/run_config.h"
#include "export/export_targets.h"

namespace traindeck {

struct CarriedStrategy {
  std::string refusal;  // why it cannot be exported so, and what to choose; empty when it can
  std::string how;      // one sentence on how the export trains under the kind (empty when refused)
  // Whether our tests run the framework's code for this kind (the PyTorch export's FSDP2 path
  // needs torch 2.4, newer than the tests' torch).
  bool testedHere = true;
};

// `devices`: the ranks the export runs with there (the place's, or the config's on a VM).
CarriedStrategy carriedStrategy(StrategyKind kind, const FrameworkInfo& framework, const PlaceInfo& place, int devices);
// The ranks an export of `config` runs with on `place`.
int exportDevices(const RunConfig& config, const PlaceInfo& place);
// Why `config` cannot be exported for `framework` on `place` (the framework's devices, then the
// strategy), or empty: what makeExport throws and the export dialog says before writing.
std::string exportRefusal(const RunConfig& config, const FrameworkInfo& framework, const PlaceInfo& place);

}  // namespace traindeck
