// The learning rate at each optimizer step: linear warmup from 0 to lr, then cosine or linear
// decay to min_lr at the last step, or constant.
#pragma once

#include <cstdint>

#include "config/run_config.h"

namespace traindeck {

class LrSchedule {
 public:
  // `totalSteps`: the step count the run will end at (from max_steps, or max_tokens).
  LrSchedule(const OptimizerConfig& optimizer, const ScheduleConfig& schedule, std::int64_t totalSteps);
  double at(std::int64_t step) const;  // step counts from 0

 private:
  double m_lr, m_minLr;
  std::int64_t m_warmup, m_total;
  Decay m_decay;
};

}  // namespace traindeck
