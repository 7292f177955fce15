#include "sweep_runners.h"

#include <QDir>

#include "job_controller.h"
#include "sweep/sweep_state_file.h"
#include "sweep_folder.h"
#include "sweep_runner.h"

namespace traindeck {

namespace {

// Whether sweep.json says a trial was going on: its runner went away mid-sweep.
bool wasInterrupted(const QString& sweepDir) {
  const SweepStateRead read = readSweepState(SweepFolder{sweepDir}.statePath().toStdString());
  if (!read.ok()) return false;
  for (const TrialRecord& trial : read.state.trials)
    if (trial.state == TrialState::Running || trial.state == TrialState::Promoted || trial.state == TrialState::Crashed)
      return true;
  return false;
}

}  // namespace

SweepRunners::SweepRunners(JobController& jobs, QObject* parent) : QObject(parent), m_jobs(jobs) {}

SweepRunners::~SweepRunners() = default;

QString SweepRunners::run(const QString& sweepFile, const QString& sweepDir, std::vector<SweepPlace> places) {
  if (m_runners.count(sweepDir)) return {};
  auto runner = std::make_unique<SweepRunner>(m_jobs);
  connect(runner.get(), &SweepRunner::trialChanged, this,
          [this, sweepDir](const QString&, const QString& line) { emit trialChanged(sweepDir, line); });
  connect(runner.get(), &SweepRunner::finished, this,
          [this, sweepDir](const QString& why) { emit sweepFinished(sweepDir, why); });
  if (QString why = runner->begin(sweepFile, sweepDir, std::move(places)); !why.isEmpty()) return why;
  m_runners[sweepDir] = std::move(runner);
  return {};
}

QString SweepRunners::start(const QString& sweepFile, std::vector<SweepPlace> places, QString* error) {
  const QString dir = sweepFolderFor(m_jobs.runsRoot(), sweepFile, error);
  if (dir.isEmpty()) return {};
  if (const auto it = m_runners.find(dir); it != m_runners.end() && !it->second->isDone()) return dir;
  m_runners.erase(dir);  // a runner that ended: a new one plans again
  *error = run(sweepFile, dir, std::move(places));
  return error->isEmpty() ? dir : QString();
}

int SweepRunners::resumeInterrupted() {
  int resumed = 0;
  for (const QString& dir : sweepFolders(m_jobs.runsRoot())) {
    if (m_runners.count(dir) || !wasInterrupted(dir)) continue;
    QString error;
    const QString file = sweepFileOf(dir, &error);
    if (file.isEmpty()) continue;
    if (run(file, dir, {}).isEmpty()) ++resumed;  // where it ran last
  }
  return resumed;
}

SweepRunner* SweepRunners::runnerFor(const QString& sweepDir) const {
  const auto it = m_runners.find(QDir(sweepDir).absolutePath());
  return it == m_runners.end() ? nullptr : it->second.get();
}

SweepRunner* SweepRunners::takeUp(const QString& sweepDir, QString* why) {
  if (SweepRunner* runner = runnerFor(sweepDir)) return runner;
  const QString file = sweepFileOf(sweepDir, why);
  if (file.isEmpty()) return nullptr;
  *why = run(file, QDir(sweepDir).absolutePath(), {});  // where it ran last
  return why->isEmpty() ? runnerFor(sweepDir) : nullptr;
}

QString SweepRunners::promote(const QString& sweepDir, const QString& trialId) {
  QString why;
  SweepRunner* runner = takeUp(sweepDir, &why);
  return runner ? runner->promote(trialId) : why;
}

QString SweepRunners::rerun(const QString& sweepDir, const QString& trialId) {
  QString why;
  SweepRunner* runner = takeUp(sweepDir, &why);
  return runner ? runner->rerun(trialId) : why;
}

void SweepRunners::stop(const QString& sweepDir) {
  if (SweepRunner* runner = runnerFor(sweepDir)) runner->stopAll();
}

}  // namespace traindeck
