// The sweep set up beside the job: its sweep.yaml text (the truth) and file, every problem at its
// line (the file's own and its trials' as jobs), and what it comes to: how many trials and what
// they cost on the device the job is planned for. It follows the job document: another job file
// brings that job's sweep (<stem>.sweep.yaml beside it) while this one has no edits. No widgets.
#pragma once

#include <QObject>
#include <QString>
#include <optional>
#include <vector>

#include "config/diagnostic.h"
#include "sweep/sweep_cost.h"
#include "sweep/sweep_spec.h"
#include "sweep/trial_params.h"

namespace traindeck {

class JobDocument;

// What the Sweep tab says about the trials; `why` instead of a cost where none can be made.
struct SweepSummary {
  bool readable = false;  // the file has no errors of its own: spec and count hold
  SweepSpec spec;
  SweepTrialCount count;
  std::int64_t planned = 0;    // trials applied and planned: the first ones, at most kMaxPlannedTrials
  std::vector<TrialRun> runs;  // theirs
  std::optional<SweepCost> cost;
  QString device;  // what each trial was planned on
  bool onCpu = false;
  bool onSlurm = false;  // the job's target is a Slurm cluster: its trials may be packed into jobs
  QString why;  // no cost: why not
  QString jobNote;  // the job shown has edits its file does not: the trials read the file
};

class SweepDocument : public QObject {
  Q_OBJECT
 public:
  // Trials past this many are not applied one by one: the cost takes them as like the first ones.
  static constexpr std::int64_t kMaxPlannedTrials = 200;

  explicit SweepDocument(JobDocument* job, QObject* parent = nullptr);

  const QString& text() const { return m_text; }
  // The file it was opened from or saved to; empty while it is not saved.
  const QString& filePath() const { return m_filePath; }
  // The text differs from the file (or, never saved, from the sweep it started as).
  bool isModified() const { return m_text != m_savedText; }
  bool isSaved() const { return !m_filePath.isEmpty() && !isModified(); }

  void setText(const QString& text);  // as typed
  // A new sweep for the job: its sweep file when there is one, else an example that varies it.
  void newSweep();
  // Empty, or why not.
  QString open(const QString& path);
  QString saveTo(const QString& path);
  // <job stem>.sweep.yaml beside the job's file (empty for a job not saved).
  static QString sweepFileFor(const QString& jobFile);
  // Where Save proposes: its own file, else the job's sweep file, else in the job's folder.
  QString defaultSaveFile() const;

  // Trials run at once (the runner's local slots): the wall time divides among them.
  int localSlots() const { return m_slots; }
  void setLocalSlots(int count);

  const Diagnostics& problems() const { return m_problems; }
  const SweepSummary& summary() const { return m_summary; }
  // Saved as shown, and neither the file nor a trial has an error: the runner can start it.
  bool isRunnable() const { return isSaved() && !hasErrors(m_problems); }

 signals:
  void changed();

 private:
  void followJob();
  void load(const QString& text, const QString& filePath);
  void update();
  bool checkTrials(const std::vector<TrialParams>& trials);
  void planTrials(const std::vector<TrialParams>& trials);
  QString baseDir() const;
  QString jobStateKey() const;

  JobDocument* m_job;
  QString m_text;
  QString m_savedText;
  QString m_filePath;
  QString m_jobFile;  // the job file it was set up for
  QString m_jobKey;   // what the cost was last made from on the job's side
  int m_slots = 1;
  Diagnostics m_problems;
  SweepSummary m_summary;
  std::vector<TrialRun> m_runs;  // the trials' runs the cost is made from
};

}  // namespace traindeck
