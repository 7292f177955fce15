// Runs a sweep: plans its trials, keeps its places' slots busy, and runs each trial rung by
// rung. A trial's run stops at a checkpoint right after each rung (`--stop-at`, where the
// trainer evaluates first); its metric there decides (core/sweep's early stopping) whether it
// goes on (the same run folder resumes with --resume, exactly), stops there (pruned, its
// checkpoint kept), or, later, is promoted and resumes. A run that fails is retried once from
// its newest checkpoint. Every change is written to sweep.json at once (one writer: the runner,
// holding runner.lock), so a closed app, a lost link or a reboot leaves a state that the next
// runner (the app at its next start, `traindeck --sweep`, `--attach`) carries on from: trials
// still running are followed again, ended ones settled, none started twice. Lives in the GUI
// (or the CLI's) thread; the JobController runs the trials as it runs any job. A sweep whose one
// place is a Slurm cluster submits its new trials as one job array, `slots` of them at a time
// (SlurmArray); what goes on from a rung goes alone.
#pragma once

#include <QElapsedTimer>
#include <QLockFile>
#include <QObject>
#include <QString>
#include <QTimer>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "sweep/sweep_spec.h"
#include "sweep/sweep_state.h"
#include "sweep_folder.h"
#include "sweep_places.h"

namespace traindeck {

class JobController;
class SlurmArray;

class SweepRunner : public QObject {
  Q_OBJECT
 public:
  explicit SweepRunner(JobController& jobs, QObject* parent = nullptr);
  ~SweepRunner() override;  // trials still running go on; the next runner follows them

  // Takes up the sweep in `sweepDir` for `sweepFile` (sweep.json is made when missing) and
  // starts what it can on `places` (none: those sweep.json names, where it ran last; else the
  // job's own target, one slot). The places are kept in sweep.json. Empty, or why not:
  // the sweep file has errors, a trial's job does not validate, sweep.json does not read,
  // another runner holds the sweep.
  QString begin(const QString& sweepFile, const QString& sweepDir, std::vector<SweepPlace> places = {});
  // Stops every running trial at a checkpoint (each goes on when the sweep runs again) and
  // starts nothing more; finished() follows once they have ended.
  void stopAll();
  // The user's promotion of a pruned trial: it resumes from its checkpoint when a slot is free
  // (even past the budget). Empty, or why not.
  QString promote(const QString& trialId);
  // The user's "run it again" for a trial whose run was deleted or that failed: it starts
  // afresh (a new run; the old run folder, if any, stays as it is) when a slot is free, within
  // the budget. The trial by its id or its name. Empty, or why not.
  QString rerun(const QString& trialIdOrName);

  const SweepState& state() const { return m_state; }
  const SweepSpec& spec() const { return m_spec; }
  // Trials at once, over every place.
  int slotCount() const { return static_cast<int>(m_slots.size()); }
  QString sweepDir() const { return m_folder.dir; }
  // The run folder of a trial (absolute), or empty.
  QString runDirOf(const TrialRecord& trial) const { return m_folder.runDir(QString::fromStdString(trial.runFolder)); }
  bool isDone() const { return m_done; }

 signals:
  // A trial changed state; `line` says it for a person ("lr=3e-4 s1: pruned at rung 1 (30000 tokens): val_loss 2.87").
  void trialChanged(const QString& trialId, const QString& line);
  void stateSaved();
  // Nothing is running and nothing more will start: every trial ended, the budget is spent, or
  // stopAll() was asked. `why` says which.
  void finished(const QString& why);

 private:
  struct Slot {
    SweepPlace place;
    int index = 0;        // within its place
    std::string trialId;  // empty: free
  };
  struct Segment {  // a trial's run going on now
    std::string trialId;
    std::optional<std::int64_t> stopStep;  // the rung's step; none: to the end
    int rung = -1;                         // the rung it runs towards (-1: none)
    std::size_t slot = 0;                  // the slot it holds; m_slots.size(): none (a job array's task)
    std::size_t placeOf = 0;               // a slot of its place
    bool adopting = false;                 // made by an earlier runner: not followed yet
  };

  QString takeUp(const QString& sweepFile, const QString& sweepDir, std::vector<SweepPlace> places);
  void adoptRunning();
  void adoptWaiting();
  void schedule();
  void startArrays();
  bool oneSlurmPlace() const;
  int decidePack();
  TrialRecord* nextToRun(std::size_t slot, bool& fresh);
  bool slotIsHere(std::size_t slot) const;
  bool slotIsSlurm(std::size_t slot) const;
  // The trials going on at the place of `slot` (a job array's waiting tasks too).
  int liveAt(std::size_t slot) const;
  bool goesOnAt(const TrialRecord& trial, std::size_t slot) const;
  // With `array`, the trial goes as a task of that Slurm job array, at the place of `slot`
  // without holding it.
  bool startSegment(TrialRecord& trial, std::size_t slot, bool fresh, std::shared_ptr<SlurmArray> array = {});
  void onJobFinished(const QString& runDir, int exitCode);
  void onJobFailedToStart(const QString& runDir, const QString& reason);
  void settle(TrialRecord& trial, const Segment& segment);
  void reachedRung(TrialRecord& trial, const Segment& segment, std::int64_t step);
  void decide();
  void markDeleted(TrialRecord& trial);
  void tick();
  void save();
  void say(const TrialRecord& trial, const QString& words);
  bool nothingLeftToStart() const;
  std::optional<RunConfig> trialConfig(const TrialRecord& trial) const;
  void finishIfIdle();
  void wakeUp();

  JobController& m_jobs;
  SweepSpec m_spec;
  SweepFolder m_folder;
  SweepState m_state;
  std::unique_ptr<QLockFile> m_lock;
  std::vector<Slot> m_slots;
  std::map<QString, Segment> m_live;          // by absolute run folder
  std::vector<std::string> m_promotable;      // by early stopping, best first
  std::vector<std::string> m_userPromotions;  // asked by the user, in order
  std::string m_baseName;                     // the base job's name: trials' runs are "<it> · <trial>"
  TargetKind m_baseTargetKind = TargetKind::Local;  // where the base job runs: the places without a target
  QString m_stopReason;                       // why it stopped on its own (the wall time)
  int m_ticksSinceSave = 0;
  bool m_stopping = false;
  int m_pack = 1;  // trials to one Slurm job (a place's `pack`, where it can be: decidePack)
  std::shared_ptr<SlurmArray> m_array;  // the last job array it made
  bool m_done = false;
  QTimer m_clock;  // adds elapsed time, checks the wall-time budget
  QElapsedTimer m_sinceTick;
};

}  // namespace traindeck
