// The job's plan as the Setup page shows it: the planner's answer for one device, each kind's
// fit beside it, and the whole run's length; and, when it does not fit, the problem that says
// what to change. A plain value, remade whenever the job or the device changes.
#pragma once

#include <QString>
#include <cstdint>
#include <optional>
#include <vector>

#include "config/diagnostic.h"
#include "config/kind_fits.h"
#include "config/planner.h"

namespace traindeck {

struct JobPlan {
  Plan plan;
  std::vector<KindFit> kinds;  // the same job under each kind its ranks allow
  std::int64_t totalSteps = 0;
  QString hostSpec;       // planned for this host's devices, as last probed; empty: a device of the chooser
  QString hostLabel;      // the probe's summary of that host
  bool hostKnown = true;  // false: the host's GPU is not in the planner's table
};

JobPlan planJob(const RunConfig& config, const DeviceSpec& device);

// "does not fit in memory as planned: …", at strategy.micro_batch; nullopt when it fits.
std::optional<Diagnostic> fitProblem(const JobPlan& plan);

}  // namespace traindeck
