// The app's sweeps: one SweepRunner per sweep folder it runs, made when the user starts a sweep
// (the Setup page's Sweep tab) and, at the app's start, for every sweep that was running when
// the app went away (a trial still running in its sweep.json), so that closing the app never
// loses one. A sweep another TrainDeck runs (`traindeck --sweep` in a terminal) is left to it.
// Lives in the GUI thread beside the JobController, which runs the trials.
#pragma once

#include <QObject>
#include <QString>
#include <map>
#include <memory>
#include <vector>

#include "sweep_places.h"

namespace traindeck {

class JobController;
class SweepRunner;

class SweepRunners : public QObject {
  Q_OBJECT
 public:
  explicit SweepRunners(JobController& jobs, QObject* parent = nullptr);
  ~SweepRunners() override;

  // Runs `sweepFile` (absolute) in its sweep folder under the runs root on `places` (the job's
  // own target: a place without a target). The sweep folder, or empty with *error (its problems).
  QString start(const QString& sweepFile, std::vector<SweepPlace> places, QString* error);
  // Takes up every sweep under the runs root that was running when the last runner went away;
  // returns how many.
  int resumeInterrupted();
  // The runner of this sweep folder, or nullptr when this app does not run it.
  SweepRunner* runnerFor(const QString& sweepDir) const;
  // Empty, or why not (this app does not run the sweep; the trial is not pruned).
  QString promote(const QString& sweepDir, const QString& trialId);
  // Runs a deleted or failed trial again from the start. Empty, or why not.
  QString rerun(const QString& sweepDir, const QString& trialId);
  // Stops the sweep's running trials at a checkpoint; nothing more starts.
  void stop(const QString& sweepDir);

 signals:
  void trialChanged(const QString& sweepDir, const QString& line);
  void sweepFinished(const QString& sweepDir, const QString& why);

 private:
  QString run(const QString& sweepFile, const QString& sweepDir, std::vector<SweepPlace> places);
  // This app's runner of the sweep, taken up (where the sweep ran last) when none runs it.
  SweepRunner* takeUp(const QString& sweepDir, QString* why);

  JobController& m_jobs;
  std::map<QString, std::unique_ptr<SweepRunner>> m_runners;  // by sweep folder
};

}  // namespace traindeck
