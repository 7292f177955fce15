#include "config/run_steps.h"

#include <algorithm>
#include <cmath>

namespace traindeck {

std::int64_t tokensPerStep(const RunConfig& config) {
  constexpr double kMax = 1.0e18;
  const StrategyConfig& s = config.strategy;
  const double tokens = static_cast<double>(config.model.block_size) * static_cast<double>(s.micro_batch) *
                        static_cast<double>(s.grad_accum) *
                        static_cast<double>(std::max<std::int64_t>(1, s.worldSize()));
  return tokens >= kMax ? static_cast<std::int64_t>(kMax) : static_cast<std::int64_t>(std::llround(tokens));
}

std::int64_t totalSteps(const RunConfig& config) {
  const ScheduleConfig& s = config.schedule;
  const std::int64_t perStep = tokensPerStep(config);
  std::int64_t steps = s.max_steps;
  if (s.max_tokens > 0 && perStep > 0) {
    const std::int64_t byTokens = s.max_tokens / perStep + (s.max_tokens % perStep != 0 ? 1 : 0);
    steps = steps > 0 ? std::min(steps, byTokens) : byTokens;
  }
  return steps;
}

}  // namespace traindeck
