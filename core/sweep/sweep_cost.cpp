// Rungs count tokens or steps; a trial's steps at a rung are the rung over its tokens per step,
// rounded up (the step that reaches it), never past its last step.
#include "sweep_cost.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include "config/planner.h"
#include "config/run_steps.h"

namespace traindeck {

namespace {

// The steps of `run` up to progress `at` (in the rungs' unit).
double stepsAt(const TrialRun& run, ProgressUnit unit, double at) {
  const double perStep =
      unit == ProgressUnit::Tokens ? static_cast<double>(std::max<std::int64_t>(1, run.tokensPerStep)) : 1.0;
  return std::min(static_cast<double>(run.steps), std::ceil(at / perStep));
}

SweepWork workOf(const TrialRun& run, double steps) {
  SweepWork work;
  work.seconds = steps * run.stepSeconds;
  work.deviceSeconds = work.seconds * static_cast<double>(run.devices);
  work.tokens = steps * static_cast<double>(run.tokensPerStep);
  return work;
}

void addWork(SweepWork& into, const SweepWork& work) {
  into.seconds += work.seconds;
  into.deviceSeconds += work.deviceSeconds;
  into.tokens += work.tokens;
}

// Longest first, each on the slot that is free soonest.
double wallOnSlots(std::vector<double> seconds, int slotCount) {
  std::sort(seconds.begin(), seconds.end(), std::greater<>());
  std::vector<double> freeAt(static_cast<std::size_t>(std::max(1, slotCount)), 0.0);
  for (double s : seconds) *std::min_element(freeAt.begin(), freeAt.end()) += s;
  return *std::max_element(freeAt.begin(), freeAt.end());
}

// The share of the trials that run each stretch between rungs: 1 to the first, then 1/rf of
// those before (at least one trial), the last share to the end.
std::vector<double> ashaShares(std::size_t trials, std::size_t rungs, double reductionFactor) {
  std::vector<double> shares{1.0};
  double left = static_cast<double>(trials);
  for (std::size_t i = 0; i < rungs; ++i) {
    left = std::max(1.0, std::floor(left / reductionFactor));
    shares.push_back(left / static_cast<double>(trials));
  }
  return shares;
}

SweepWork ashaExpected(const EarlyStoppingSpec& stopping, const std::vector<TrialRun>& runs, int slotCount) {
  const std::vector<double> shares = ashaShares(runs.size(), stopping.rungs.size(), stopping.reductionFactor);
  SweepWork expected;
  double averageTrial = 0;
  for (const TrialRun& run : runs) {
    double steps = 0, before = 0;
    for (std::size_t i = 0; i < shares.size(); ++i) {
      const double end = i < stopping.rungs.size() ? stepsAt(run, stopping.unit, static_cast<double>(stopping.rungs[i]))
                                                   : static_cast<double>(run.steps);
      steps += shares[i] * std::max(0.0, end - before);
      before = std::max(before, end);
    }
    addWork(expected, workOf(run, steps));
    averageTrial += static_cast<double>(run.steps) * run.stepSeconds / static_cast<double>(runs.size());
  }
  expected.wallSeconds = std::max(expected.seconds / std::max(1, slotCount), averageTrial);
  return expected;
}

}  // namespace

SweepTrialCount countTrials(const SweepSpec& spec, std::int64_t planned) {
  SweepTrialCount count;
  count.seeds = std::max<std::int64_t>(1, static_cast<std::int64_t>(spec.repeats.seeds.size()));
  count.planned = planned;
  count.configurations = planned / count.seeds;
  count.trials = spec.budget.trials ? std::min(planned, *spec.budget.trials) : planned;
  return count;
}

TrialRun trialRun(const RunConfig& job, const DeviceSpec& device) {
  const Plan plan = makePlan(job, device);
  return {totalSteps(job), plan.tokensPerStep, plan.stepSeconds, plan.worldSize};
}

SweepWork withinBudget(const BudgetSpec& budget, const SweepWork& work, bool timed, std::string& stops) {
  stops.clear();
  double share = 1;
  if (budget.tokens && work.tokens > static_cast<double>(*budget.tokens)) {
    share = static_cast<double>(*budget.tokens) / work.tokens;
    stops = "tokens";
  }
  if (timed && budget.wallTimeSeconds && work.wallSeconds * share > *budget.wallTimeSeconds) {
    share = *budget.wallTimeSeconds / work.wallSeconds;
    stops = "wall_time";
  }
  return {work.seconds * share, work.deviceSeconds * share, work.tokens * share, work.wallSeconds * share};
}

SweepCost sweepCost(const SweepSpec& spec, const std::vector<TrialRun>& runs, int slotCount) {
  SweepCost cost;
  std::vector<double> trialSeconds;
  for (const TrialRun& run : runs) {
    cost.timed = cost.timed && run.stepSeconds > 0;
    addWork(cost.atMost, workOf(run, static_cast<double>(run.steps)));
    trialSeconds.push_back(static_cast<double>(run.steps) * run.stepSeconds);
  }
  cost.atMost.wallSeconds = wallOnSlots(trialSeconds, slotCount);
  const EarlyStoppingSpec& stopping = spec.earlyStopping;
  if (stopping.method == EarlyStoppingMethod::Asha && !runs.empty())
    cost.expected = ashaExpected(stopping, runs, slotCount);
  cost.budgeted = withinBudget(spec.budget, cost.expected.value_or(cost.atMost), cost.timed, cost.budgetStops);
  return cost;
}

}  // namespace traindeck
