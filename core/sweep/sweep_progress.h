// How far a sweep may go: where a trial's next run segment stops (the step of its next rung),
// and what of the budget is used. Pure functions; the runner applies them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "config/run_config.h"
#include "sweep_spec.h"
#include "sweep_state.h"

namespace traindeck {

// The step at which a trial of `config` is measured for rung `rung` (the first step whose
// progress reaches the rung), or nullopt when it runs to the end instead: no early stopping, no
// such rung, or a rung at or past the job's last step.
std::optional<std::int64_t> rungStopStep(const EarlyStoppingSpec& spec, const RunConfig& config, int rung);

// A step of a trial of `config` in the spec's unit (tokens or steps).
std::int64_t progressAtStep(ProgressUnit unit, const RunConfig& config, std::int64_t step);

struct BudgetUse {
  std::int64_t trialsStarted = 0;  // trials with a run, whatever their state now
  std::int64_t tokens = 0;         // trained over all trials
  double seconds = 0;              // the sweep's elapsed time
};
BudgetUse budgetUse(const SweepState& state);

// Whether a trial may start for the first time (budget.trials, .tokens and .wall_time allow).
bool mayStartTrial(const BudgetSpec& budget, const BudgetUse& use);
// Whether a started trial may run another segment (budget.tokens and .wall_time allow).
bool mayContinueTrial(const BudgetSpec& budget, const BudgetUse& use);
// Whether the wall time is spent (running trials then stop at a checkpoint).
bool wallTimeSpent(const BudgetSpec& budget, const BudgetUse& use);
// What limits the sweep now, in words ("40 of 40 trials started"), or empty: nothing does.
std::string budgetLimitWords(const BudgetSpec& budget, const BudgetUse& use);

}  // namespace traindeck
