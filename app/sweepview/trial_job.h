// A trial as a job the Setup page can open: the sweep's base job with the trial's settings
// (core/sweep's applyTrial, exactly what the runner trains), as YAML, and the folder its
// relative paths mean. For "Start a full run from this trial…".
#pragma once

#include <QString>

#include "sweep_view.h"

namespace traindeck {

struct TrialJobText {
  QString yaml;
  QString baseDir;  // the base job's folder
  QString error;    // empty when yaml is the job
};

TrialJobText trialJobText(const SweepView& view, int trial);

}  // namespace traindeck
