// How long a config's run is, in optimizer steps and tokens: one rule for the trainer (its
// schedule and the tokens it counts), the planner and the Setup page's estimate of the whole run.
#pragma once

#include <cstdint>

#include "config/run_config.h"

namespace traindeck {

// Tokens one optimizer step consumes, all ranks together: block_size x micro_batch x grad_accum
// x world size. Computed in double and held at 10^18, so that no config that passes validation
// overflows.
std::int64_t tokensPerStep(const RunConfig& config);
// Steps the run ends at: max_steps, or max_tokens over the tokens per step (rounded up),
// whichever is less; 0 when neither is set.
std::int64_t totalSteps(const RunConfig& config);

}  // namespace traindeck
