// What a sweep costs before it runs: how many trials (configurations × repeat seeds, capped by
// budget.trials) and the time they take, each trial's job planned by core/config's planner; with
// ASHA, the share its rungs are expected to let run; and the budget's token and wall-time limits
// applied. Arithmetic on planned trials only: the Setup page's Sweep tab words it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "config/devices.h"
#include "config/run_config.h"
#include "sweep_spec.h"

namespace traindeck {

struct SweepTrialCount {
  std::int64_t configurations = 0;
  std::int64_t seeds = 1;    // runs of each configuration (its repeat seeds; 1 without)
  std::int64_t planned = 0;  // configurations × seeds
  std::int64_t trials = 0;   // planned, capped by budget.trials
  bool capped() const { return trials < planned; }
};

// `planned`: how many trials planTrials gave.
SweepTrialCount countTrials(const SweepSpec& spec, std::int64_t planned);

// One trial's job as the planner sees it.
struct TrialRun {
  std::int64_t steps = 0;  // where its job ends (totalSteps)
  std::int64_t tokensPerStep = 0;
  double stepSeconds = 0;    // the planner's estimate; 0: unknown (no peak for the precision)
  std::int64_t devices = 1;  // its ranks, each holding a device
};

// The trial's job planned on `device`.
TrialRun trialRun(const RunConfig& job, const DeviceSpec& device);

// An amount of work. Seconds are the trials' run times added up, as if each ran alone on its
// devices; device-seconds count each of a trial's devices.
struct SweepWork {
  double seconds = 0;
  double deviceSeconds = 0;
  double tokens = 0;
  double wallSeconds = 0;  // on the slots, trials side by side
};

struct SweepCost {
  bool timed = true;  // every trial has a step time (else only tokens are known)
  SweepWork atMost;   // every trial to its end
  // ASHA: all trials to the first rung, 1/rf of them (at least one) on to the next, ..., the
  // last rung's share to the end, as if the trials going on were average ones. Its wall time
  // is at least one average trial's: the best runs to the end.
  std::optional<SweepWork> expected;
  // The expected work (else at most) as far as budget.tokens and budget.wall_time let it go.
  SweepWork budgeted;
  std::string budgetStops;  // "" or the budget key that stops it early: "tokens", "wall_time"
};

// `work` as far as budget.tokens and budget.wall_time let it go (scaled down evenly), and the
// budget key that stops it early ("tokens", "wall_time"; empty: none). A wall time applies
// only where the work is `timed`.
SweepWork withinBudget(const BudgetSpec& budget, const SweepWork& work, bool timed, std::string& stops);

// `runs`: the trials that run (budget.trials applied), in plan order. `slotCount`: trials at once.
// The wall time at most places the longest trials first, each on the slot free soonest.
SweepCost sweepCost(const SweepSpec& spec, const std::vector<TrialRun>& runs, int slotCount);

}  // namespace traindeck
