// Step s of warmup W uses lr·(s+1)/W, so the first step already learns; decay runs over the
// steps after warmup and reaches min_lr exactly at the last step.
#include "lr_schedule.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace traindeck {

LrSchedule::LrSchedule(const OptimizerConfig& optimizer, const ScheduleConfig& schedule, std::int64_t totalSteps)
    : m_lr(optimizer.lr),
      m_minLr(schedule.min_lr),
      m_warmup(schedule.warmup_steps),
      m_total(std::max<std::int64_t>(1, totalSteps)),
      m_decay(schedule.decay) {}

double LrSchedule::at(std::int64_t step) const {
  if (step < m_warmup) return m_lr * static_cast<double>(step + 1) / static_cast<double>(m_warmup);
  if (m_decay == Decay::Constant) return m_lr;
  const std::int64_t decaySteps = std::max<std::int64_t>(1, m_total - 1 - m_warmup);
  const double progress = std::clamp(static_cast<double>(step - m_warmup) / static_cast<double>(decaySteps), 0.0, 1.0);
  if (m_decay == Decay::Linear) return m_lr - progress * (m_lr - m_minLr);
  return m_minLr + 0.5 * (1.0 + std::cos(std::numbers::pi * progress)) * (m_lr - m_minLr);
}

}  // namespace traindeck
