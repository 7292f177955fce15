// A trial as a job: the sweep's base job with the trial's settings (and repeat seed) set
// through core/config's overrides, then validated as any job is. A value the job refuses is
// a problem that names the trial.
#pragma once

#include <vector>

#include "config/config_io.h"
#include "config/validate.h"
#include "sweep_spec.h"
#include "trial_params.h"

namespace traindeck {

struct TrialJob {
  LoadedConfig loaded;   // the job; places are the base job's, and swept keys have none
  Diagnostics problems;  // loading and validation, each message starting "trial <name>: "
};

// The trial's settings as core/config overrides ("optimizer.lr=0.0003", then "seed=1"): what
// `traindeck-train run --set` takes.
std::vector<std::string> trialOverrides(const TrialParams& trial);

// The trial's job as read, not validated (enough to plan a trial checkTrials passed).
LoadedConfig loadTrialConfig(const SweepSpec& spec, const TrialParams& trial);

// Reads spec.baseJobPath again: the job may have changed since the sweep began.
TrialJob applyTrial(const SweepSpec& spec, const TrialParams& trial, const ValidationContext& context);

// Every trial applied (what validating a sweep means). A problem that several trials share is
// listed once: "every trial: ..." when all have it, else "trial <first> and N more: ...".
Diagnostics checkTrials(const SweepSpec& spec, const std::vector<TrialParams>& trials,
                        const ValidationContext& context);

}  // namespace traindeck
