// The job is written out whole (every key, defaults included: saveConfigText), so the Setup page
// shows exactly what the trial trained, whatever the base job left to defaults.
#include "trial_job.h"

#include <QFileInfo>
#include <QObject>

#include "config/config_io.h"
#include "sweep/apply_trial.h"

namespace traindeck {

TrialJobText trialJobText(const SweepView& view, int trial) {
  TrialJobText out;
  if (trial < 0 || trial >= static_cast<int>(view.trials.size())) {
    out.error = QObject::tr("No such trial");
    return out;
  }
  if (!view.spec) {
    out.error = QObject::tr("The sweep file cannot be read, so the trial's job is not known: %1").arg(view.specProblem);
    return out;
  }
  const TrialJob job = applyTrial(*view.spec, view.trials[static_cast<std::size_t>(trial)].record.params, {});
  for (const Diagnostic& problem : job.loaded.problems)
    if (problem.severity == Severity::Error) {
      out.error = QString::fromStdString(problem.format(job.loaded.source));
      return out;
    }
  out.yaml = QString::fromStdString(saveConfigText(job.loaded.config));
  out.baseDir = QFileInfo(QString::fromStdString(view.spec->baseJobPath)).absolutePath();
  return out;
}

}  // namespace traindeck
