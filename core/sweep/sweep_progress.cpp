#include "sweep_progress.h"

#include <algorithm>

#include "config/run_steps.h"
#include "duration_text.h"

namespace traindeck {

std::optional<std::int64_t> rungStopStep(const EarlyStoppingSpec& spec, const RunConfig& config, int rung) {
  if (spec.method == EarlyStoppingMethod::None || rung < 0 || rung >= static_cast<int>(spec.rungs.size()))
    return std::nullopt;
  const std::int64_t perStep = spec.unit == ProgressUnit::Tokens ? std::max<std::int64_t>(1, tokensPerStep(config)) : 1;
  const std::int64_t target = spec.rungs[static_cast<std::size_t>(rung)];
  const std::int64_t step = std::max<std::int64_t>(1, (target + perStep - 1) / perStep);
  if (step >= totalSteps(config)) return std::nullopt;
  return step;
}

std::int64_t progressAtStep(ProgressUnit unit, const RunConfig& config, std::int64_t step) {
  return unit == ProgressUnit::Tokens ? step * tokensPerStep(config) : step;
}

BudgetUse budgetUse(const SweepState& state) {
  BudgetUse use;
  use.seconds = state.elapsedSeconds;
  for (const TrialRecord& trial : state.trials) {
    if (!trial.runFolder.empty()) ++use.trialsStarted;
    use.tokens += trial.tokens;
  }
  return use;
}

bool wallTimeSpent(const BudgetSpec& budget, const BudgetUse& use) {
  return budget.wallTimeSeconds && use.seconds >= *budget.wallTimeSeconds;
}

bool mayContinueTrial(const BudgetSpec& budget, const BudgetUse& use) {
  return !(budget.tokens && use.tokens >= *budget.tokens) && !wallTimeSpent(budget, use);
}

bool mayStartTrial(const BudgetSpec& budget, const BudgetUse& use) {
  return !(budget.trials && use.trialsStarted >= *budget.trials) && mayContinueTrial(budget, use);
}

std::string budgetLimitWords(const BudgetSpec& budget, const BudgetUse& use) {
  if (wallTimeSpent(budget, use))
    return "its wall time is spent (" + durationText(use.seconds) + " of " + durationText(*budget.wallTimeSeconds) +
           ")";
  if (budget.tokens && use.tokens >= *budget.tokens)
    return "its tokens are spent (" + std::to_string(use.tokens) + " of " + std::to_string(*budget.tokens) + ")";
  if (budget.trials && use.trialsStarted >= *budget.trials)
    return std::to_string(use.trialsStarted) + " of " + std::to_string(*budget.trials) + " trials started";
  return {};
}

}  // namespace traindeck
