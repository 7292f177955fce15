// A trial as `traindeck --sweep-status` prints it: one JSON object a line,
// {"trial", "params", "state", "rung", "metric", "run"} (docs/sweeps.md).
#pragma once

#include <string>

#include "sweep_state.h"

namespace traindeck {

// `trial` is its name, `params` its settings (and its repeat's seed), `rung` the highest rung
// measured (-1: none), `metric` the metric as last measured (null: not yet, or not a number),
// `run` its run folder as sweep.json records it ("" before it starts).
std::string trialStatusJson(const TrialRecord& trial);

}  // namespace traindeck
