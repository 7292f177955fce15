// Planning is cheap (closed-form arithmetic in core/config/planner.cpp), so a plan is made on
// every change, on the thread that asks.
#include "job_plan.h"

#include "config/run_steps.h"

namespace traindeck {

JobPlan planJob(const RunConfig& config, const DeviceSpec& device) {
  JobPlan out;
  out.plan = makePlan(config, device);
  out.kinds = planEachKind(config, device);
  out.totalSteps = totalSteps(config);
  return out;
}

std::optional<Diagnostic> fitProblem(const JobPlan& plan) {
  const Plan& p = plan.plan;
  if (p.fits) return std::nullopt;
  const auto usable = static_cast<std::int64_t>(static_cast<double>(p.memoryAvailable) * kUsableMemoryFraction);
  const std::string where = plan.hostSpec.isEmpty() ? p.device.name : plan.hostSpec.toStdString();
  Diagnostic d;
  d.severity = Severity::Warning;
  d.path = "strategy.micro_batch";
  d.message = "does not fit in memory as planned: " + formatBytes(p.memory.total()) + " per rank, " +
              formatBytes(usable) + " usable on " + where;
  d.hint = p.largestMicroBatch > 0 ? "use micro_batch " + std::to_string(p.largestMicroBatch) +
                                         " or less, or a bigger device (the plan's device chooser)"
                                   : "try zero1, activation checkpointing, more ranks or a bigger device";
  return d;
}

}  // namespace traindeck
