#include "sweep_runner.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <algorithm>

#include "config/config_io.h"
#include "job_controller.h"
#include "launcher/slot_share.h"
#include "remote_record.h"
#include "run_names.h"
#include "runlog/checkpoint_names.h"
#include "runlog/run_directory.h"
#include "runlog/run_paths.h"
#include "slurm_array.h"
#include "slurm_batch.h"
#include "sweep/apply_trial.h"
#include "sweep/early_stopping.h"
#include "sweep/sweep_progress.h"
#include "sweep/sweep_state_file.h"
#include "sweep/trial_metrics.h"
#include "sweep/trial_plan.h"

namespace traindeck {

namespace {

constexpr int kClockMs = 1000;
constexpr int kMaxProblemsSaid = 8;
constexpr int kRunJsonWaitSeconds = 60;  // a run folder without run.json this old never began

QString problemsText(const Diagnostics& problems, const std::string& source) {
  QStringList lines;
  for (const Diagnostic& problem : problems)
    if (problem.severity == Severity::Error && lines.size() < kMaxProblemsSaid)
      lines << QString::fromStdString(problem.format(source));
  return lines.join('\n');
}

QString metricWords(const std::optional<double>& metric) {
  return metric ? QString::number(*metric, 'g', 5) : QStringLiteral("not measured");
}

// Whether a trial's run had trained when it was last seen: its folder missing then means deleted,
// not a run named by a runner that went away before it launched.
bool madeProgress(const TrialRecord& trial) {
  return !trial.rungs.empty() || trial.tokens > 0;
}

// A run submitted to Slurm (its mirror's remote.json names the job).
bool isSlurmJob(const QString& runDir) {
  RemoteRecord record;
  QString error;
  return readRemoteRecord(runDir, &record, &error) && !record.slurmJobId.isEmpty();
}

// A complete checkpoint to resume from (one cut short is none).
bool canResume(const QString& runDir) {
  return !runDir.isEmpty() && !completeCheckpoints(RunPaths{runDir.toStdString()}.checkpoints()).empty();
}

bool isRunning(const TrialRecord& trial) {
  return trial.state == TrialState::Running || trial.state == TrialState::Promoted;
}

}  // namespace

SweepRunner::SweepRunner(JobController& jobs, QObject* parent) : QObject(parent), m_jobs(jobs) {
  m_clock.setInterval(kClockMs);
  connect(&m_clock, &QTimer::timeout, this, &SweepRunner::tick);
}

SweepRunner::~SweepRunner() {
  if (m_lock && !m_done) save();  // the time spent so far
}

QString SweepRunner::begin(const QString& sweepFile, const QString& sweepDir, std::vector<SweepPlace> places) {
  const QString why = takeUp(sweepFile, sweepDir, std::move(places));
  if (!why.isEmpty() && !isSweepFolder(QFile::encodeName(m_folder.dir).toStdString())) {
    QFile::remove(m_folder.lockPath());
    QDir().rmdir(m_folder.dir);  // a new folder, refused before anything was kept in it
  }
  return why;
}

QString SweepRunner::takeUp(const QString& sweepFile, const QString& sweepDir, std::vector<SweepPlace> places) {
  m_folder = SweepFolder{QDir(sweepDir).absolutePath()};
  auto lock = std::make_unique<QLockFile>(m_folder.lockPath());
  lock->setStaleLockTime(0);  // held while its process lives, whatever the time
  if (!lock->tryLock(0)) {
    qint64 pid = 0;
    QString host, app;
    lock->getLockInfo(&pid, &host, &app);
    return tr("another TrainDeck (process %1 on %2) is running this sweep; it follows the trials, and this one "
              "only shows them")
        .arg(pid)
        .arg(host);
  }
  const LoadedSweepSpec loaded = loadSweepSpecFile(sweepFile.toStdString());
  if (hasErrors(loaded.problems)) return problemsText(loaded.problems, loaded.source);
  m_spec = loaded.spec;
  if (!isSweepMetric(m_spec.metric.name)) {
    QStringList names;
    for (const std::string& name : sweepMetricNames()) names << QString::fromStdString(name);
    return tr("%1: the metric %2 is not one a run records; use one of %3")
        .arg(sweepFile, QString::fromStdString(m_spec.metric.name), names.join(", "));
  }
  const LoadedConfig base = loadConfigFile(m_spec.baseJobPath);
  if (m_spec.metric.name == "val_loss" && !hasErrors(base.problems) && base.config.eval.every <= 0)
    return tr("%1 ranks trials by val_loss, but the job %2 never evaluates (eval.every: 0): set eval.every, or "
              "rank by loss")
        .arg(sweepFile, QString::fromStdString(m_spec.baseJobPath));
  const std::vector<TrialParams> plan = planTrials(m_spec);
  if (const Diagnostics problems = checkTrials(m_spec, plan, ValidationContext{}); hasErrors(problems))
    return problemsText(problems, m_spec.baseJobPath);
  const SweepStateRead read = readSweepState(m_folder.statePath().toStdString());
  if (!read.ok()) return QString::fromStdString(read.error);
  m_baseName = base.config.name;
  m_baseTargetKind = base.config.target.kind;
  m_state = read.state;
  m_state.sweepFile = sweepFile.toStdString();
  mergePlan(m_state, plan);
  // None given: where it ran last (sweep.json), else the job's own target, one slot.
  if (places.empty())
    for (const PlaceRecord& record : m_state.places) places.push_back(placeOf(record));
  if (places.empty()) places.push_back({tr("the job's target"), std::nullopt, 1});
  m_state.places.clear();
  for (const SweepPlace& place : places) m_state.places.push_back(placeRecord(place));
  for (const SweepPlace& place : places)
    for (int i = 0; i < std::max(1, place.slotCount); ++i) m_slots.push_back({place, i, {}});
  m_pack = decidePack();
  m_lock = std::move(lock);
  connect(&m_jobs, &JobController::jobFinished, this, &SweepRunner::onJobFinished);
  connect(&m_jobs, &JobController::jobFailedToStart, this, &SweepRunner::onJobFailedToStart);
  m_sinceTick.start();
  m_clock.start();
  adoptRunning();
  save();
  schedule();
  return {};
}

// Trials sweep.json says are running: followed again when their run goes on, settled when it
// ended while no runner was there. A run made a moment before the last runner went away may
// not have written its run.json yet: it is looked at again each second (tick()).
void SweepRunner::adoptRunning() {
  for (TrialRecord& trial : m_state.trials) {
    if (!isRunning(trial) || trial.runFolder.empty() || trial.awaitsDecision()) continue;
    Segment segment{trial.params.id, std::nullopt, trial.lastRung() + 1, m_slots.size(), 0};
    if (const auto config = trialConfig(trial))
      segment.stopStep = rungStopStep(m_spec.earlyStopping, *config, segment.rung);
    for (std::size_t s = 0; s < m_slots.size(); ++s)
      if (m_slots[s].trialId.empty()) {
        segment.slot = segment.placeOf = s;
        m_slots[s].trialId = trial.params.id;
        break;
      }
    // None free (a job array's tasks outnumber its place's slots): a Slurm job's place is the
    // first Slurm place.
    if (segment.slot == m_slots.size() && isSlurmJob(runDirOf(trial)))
      for (std::size_t s = 0; s < m_slots.size(); ++s)
        if (slotIsSlurm(s)) {
          segment.placeOf = s;
          break;
        }
    segment.adopting = true;
    m_live[QDir::cleanPath(runDirOf(trial))] = segment;
  }
  adoptWaiting();
  decide();
}

void SweepRunner::adoptWaiting() {
  std::vector<QString> ended;
  for (auto& [dir, segment] : m_live) {
    if (!segment.adopting) continue;
    TrialRecord* trial = m_state.find(segment.trialId);
    if (trial && !QFileInfo::exists(dir) && madeProgress(*trial)) {
      markDeleted(*trial);
      ended.push_back(dir);
      continue;
    }
    // A run here writes run.json as it starts, a remote start its mirror's remote.json first.
    if (!QFileInfo::exists(QDir(dir).filePath(run_file::kRunJson)) &&
        !QFileInfo::exists(QDir(dir).filePath(run_file::kRemoteRecord))) {
      const QFileInfo folder(dir);
      const QDateTime made = folder.birthTime().isValid() ? folder.birthTime() : folder.lastModified();
      if (trial && folder.exists() && made.secsTo(QDateTime::currentDateTime()) < kRunJsonWaitSeconds)
        continue;            // still starting, perhaps
      ended.push_back(dir);  // never began: it is started again
      continue;
    }
    if (m_jobs.attach(dir).isEmpty() && m_jobs.jobFor(dir) && m_jobs.jobFor(dir)->isActive()) {
      segment.adopting = false;
      if (trial) say(*trial, tr("followed again"));
      continue;
    }
    if (trial) settle(*trial, segment);
    ended.push_back(dir);
  }
  for (const QString& dir : ended) {
    if (m_live[dir].slot < m_slots.size()) m_slots[m_live[dir].slot].trialId.clear();
    m_live.erase(dir);
  }
}

bool SweepRunner::nothingLeftToStart() const {
  if (!mayStartTrial(m_spec.budget, budgetUse(m_state))) return true;
  return std::none_of(m_state.trials.begin(), m_state.trials.end(),
                      [](const TrialRecord& t) { return t.state == TrialState::Queued && t.runFolder.empty(); });
}

std::optional<RunConfig> SweepRunner::trialConfig(const TrialRecord& trial) const {
  const QString dir = runDirOf(trial);
  if (!dir.isEmpty() && QFileInfo::exists(QDir(dir).filePath(run_file::kConfig))) {
    const LoadedConfig loaded = loadConfigFile(RunPaths{dir.toStdString()}.config());
    if (!hasErrors(loaded.problems)) return loaded.config;
  }
  const TrialJob job = applyTrial(m_spec, trial.params, ValidationContext{});
  if (hasErrors(job.problems)) return std::nullopt;
  return job.loaded.config;
}

bool SweepRunner::slotIsHere(std::size_t slot) const {
  const SweepPlace& place = m_slots[slot].place;
  return (place.target ? place.target->kind : m_baseTargetKind) == TargetKind::Local;
}

bool SweepRunner::slotIsSlurm(std::size_t slot) const {
  const SweepPlace& place = m_slots[slot].place;
  return (place.target ? place.target->kind : m_baseTargetKind) == TargetKind::Slurm;
}

int SweepRunner::liveAt(std::size_t slot) const {
  const QString& place = m_slots[slot].place.name;
  return static_cast<int>(std::count_if(m_live.begin(), m_live.end(), [&](const auto& entry) {
    return entry.second.placeOf < m_slots.size() && m_slots[entry.second.placeOf].place.name == place;
  }));
}

// A run goes on where its checkpoint can: a run of this machine resumes here, so only at a slot
// of this machine; a remote run's mirror goes to any host (continueOn), so only at a slot of a
// host. (A slot of the wrong kind would run the trial elsewhere than the slot it holds, and its
// place would take more trials at once than it has slots.) A new run, or one with no complete
// checkpoint to resume from, starts at any slot.
bool SweepRunner::goesOnAt(const TrialRecord& trial, std::size_t slot) const {
  const QString dir = runDirOf(trial);
  if (!canResume(dir)) return true;
  const bool remoteRun = QFileInfo::exists(QDir(dir).filePath(run_file::kRemoteRecord));
  return remoteRun != slotIsHere(slot);
}

void SweepRunner::schedule() {
  if (m_done) return;
  decide();
  startArrays();
  for (std::size_t s = 0; s < m_slots.size() && !m_stopping; ++s) {
    if (!m_slots[s].trialId.empty()) continue;
    // A Slurm place's job array may hold more of its trials than it has slots: none more then.
    // (Its jobs hold `pack` trials each, as Slurm took its last array.)
    const int pack = m_array ? m_array->pack() : 1;
    if (slotIsSlurm(s) && liveAt(s) >= std::max(1, m_slots[s].place.slotCount) * pack) continue;
    bool fresh = false;
    TrialRecord* trial = nextToRun(s, fresh);
    if (!trial) continue;                      // nothing for this slot; another may take what is left
    if (!startSegment(*trial, s, fresh)) --s;  // the slot is free still: the next trial may start
  }
  save();
  finishIfIdle();
}

// A sweep's one place, a Slurm cluster, with none of its trials going on takes every new trial
// the budget allows at once, as one job array that runs `slots` of them at a time (Slurm's
// throttle): one submission, and the cluster goes on through them while no runner follows. New
// trials only, two or more: a trial that goes on from a rung, a retry or a promotion goes alone
// at a free slot while fewer than `slots` of the place's trials are going on. (Beside other
// places, new trials go slot by slot, so that every place gets its share.)
bool SweepRunner::oneSlurmPlace() const {
  return !m_slots.empty() && slotIsSlurm(0) && std::all_of(m_slots.begin(), m_slots.end(), [&](const Slot& slot) {
    return slot.place.name == m_slots.front().place.name;
  });
}

void SweepRunner::startArrays() {
  if (!oneSlurmPlace() || m_stopping || liveAt(0) > 0) return;
  const auto isNew = [](const TrialRecord& t) { return t.state == TrialState::Queued && t.runFolder.empty(); };
  if (std::count_if(m_state.trials.begin(), m_state.trials.end(), isNew) < 2 ||
      !mayStartTrial(m_spec.budget, budgetUse(m_state)))
    return;
  auto array =
      std::make_shared<SlurmArray>(QString::fromStdString(m_baseName) + " sweep", m_slots[0].place.slotCount, m_pack);
  m_array = array;
  for (TrialRecord& trial : m_state.trials)
    if (isNew(trial) && mayStartTrial(m_spec.budget, budgetUse(m_state))) startSegment(trial, 0, /*fresh=*/true, array);
  array->seal();
}

// Trials to one allocation, as asked, where the sweep's one place is a Slurm cluster and what a
// trial asks for can be divided so (one node each, cores, GPUs per node, memory): else one each,
// and said.
int SweepRunner::decidePack() {
  const auto asked = std::max_element(m_slots.begin(), m_slots.end(),
                                      [](const Slot& a, const Slot& b) { return a.place.pack < b.place.pack; });
  if (asked == m_slots.end() || asked->place.pack <= 1) return 1;
  const int pack = asked->place.pack;
  if (!oneSlurmPlace()) {
    emit trialChanged({}, tr("Trials are not packed %1 to a job: packing is for a sweep whose one place is a Slurm "
                             "cluster (the job's target)")
                              .arg(pack));
    return 1;
  }
  const std::optional<RunConfig> config = m_state.trials.empty() ? std::nullopt : trialConfig(m_state.trials.front());
  if (!config) return 1;
  const QString refused =
      slurmPackRefusal(slurmPlaceOf(config->target.slurm), static_cast<int>(config->strategy.nnodes), pack);
  if (refused.isEmpty()) return pack;
  emit trialChanged({}, tr("Trials are not packed %1 to a job: %2").arg(pack).arg(refused));
  return 1;
}

TrialRecord* SweepRunner::nextToRun(std::size_t slot, bool& fresh) {
  const auto isLive = [&](const TrialRecord& t) {
    return std::any_of(m_live.begin(), m_live.end(),
                       [&](const auto& entry) { return entry.second.trialId == t.params.id; });
  };
  const auto first = [&](auto&& wanted) -> TrialRecord* {
    for (TrialRecord& t : m_state.trials)
      if (!isLive(t) && wanted(t) && goesOnAt(t, slot)) return &t;
    return nullptr;
  };
  fresh = false;
  // Asked by the user: past the budget too. One that cannot go on at this slot waits for another.
  std::erase_if(m_userPromotions, [&](const std::string& id) {
    const TrialRecord* asked = m_state.find(id);
    return !asked || asked->state != TrialState::Pruned;
  });
  for (auto it = m_userPromotions.begin(); it != m_userPromotions.end(); ++it) {
    TrialRecord* asked = m_state.find(*it);
    if (isLive(*asked) || !goesOnAt(*asked, slot)) continue;
    m_userPromotions.erase(it);
    promoteTrial(*asked);
    return asked;
  }
  const BudgetUse use = budgetUse(m_state);
  if (!mayContinueTrial(m_spec.budget, use)) return nullptr;
  if (TrialRecord* t = first([](const TrialRecord& r) { return isRunning(r) && !r.awaitsDecision(); })) return t;
  if (TrialRecord* t = first([](const TrialRecord& r) { return r.state == TrialState::Crashed; })) return t;
  if (TrialRecord* t =
          first([](const TrialRecord& r) { return r.state == TrialState::Queued && !r.runFolder.empty(); }))
    return t;
  for (const std::string& id : m_promotable)
    if (TrialRecord* t = m_state.find(id); t && t->state == TrialState::Pruned && !isLive(*t) && goesOnAt(*t, slot)) {
      promoteTrial(*t);
      say(*t, tr("promoted: it resumes from its checkpoint at rung %1").arg(t->lastRung()));
      return t;
    }
  if (!mayStartTrial(m_spec.budget, use)) return nullptr;
  fresh = true;
  return first([](const TrialRecord& r) { return r.state == TrialState::Queued && r.runFolder.empty(); });
}

bool SweepRunner::startSegment(TrialRecord& trial, std::size_t slot, bool fresh, std::shared_ptr<SlurmArray> array) {
  const std::optional<RunConfig> config = trialConfig(trial);
  if (!config) {
    trial.state = TrialState::Failed;
    trial.note = "its job does not validate any more (was the base job edited?)";
    say(trial, tr("failed: %1").arg(QString::fromStdString(trial.note)));
    return false;
  }
  Segment segment{trial.params.id, std::nullopt, trial.lastRung() + 1, array ? m_slots.size() : slot, slot};
  segment.stopStep = rungStopStep(m_spec.earlyStopping, *config, segment.rung);
  QStringList args;
  if (segment.stopStep) args << "--stop-at" << QString::number(*segment.stopStep);
  const SweepPlace& place = m_slots[slot].place;
  TargetConfig target = place.target.value_or(config->target);
  if (place.target && place.target->remote_dir == TargetConfig{}.remote_dir)
    target.remote_dir = config->target.remote_dir;  // the job's work folder, unless the place names one
  // One of several trials on one machine: the trainer there takes its part of it. (A Slurm job
  // has its allocation to itself.)
  if (place.slotCount > 1 && target.kind != TargetKind::Slurm)
    args << "--slot" << QString::fromStdString(slotText({m_slots[slot].index, place.slotCount}));
  const QString oldDir = runDirOf(trial);
  if (!fresh && !oldDir.isEmpty() && !QFileInfo::exists(oldDir) && madeProgress(trial)) {
    markDeleted(trial);
    return false;
  }
  const bool hasCheckpoint = canResume(oldDir);
  JobController::Started started;
  if (!fresh && hasCheckpoint) {
    std::optional<TargetConfig> on;
    if (place.target || QFileInfo::exists(QDir(oldDir).filePath(run_file::kRemoteRecord)))
      on = place.target.value_or(JobController::targetOf(oldDir));
    started = m_jobs.continueRun(oldDir, on, args);
  } else {
    // First run, or a retry with nothing to resume from: a new run of the trial's job.
    RunConfig job = *config;
    job.target = target;
    job.name = m_baseName + kRunNameSeparator + trial.params.name;
    QStringList sets;
    for (const std::string& o : trialOverrides(trial.params)) sets << "--set" << QString::fromStdString(o);
    sets << nameOverrideArgs(job.name);
    // Recorded before it launches: a runner killed a moment later leaves the run's folder named.
    const auto record = [&](const QString& dir) {
      trial.runFolder = m_folder.recorded(dir).toStdString();
      if (trial.state == TrialState::Queued || trial.state == TrialState::Crashed) trial.state = TrialState::Running;
      save();
    };
    started = m_jobs.start(job, QString::fromStdString(m_spec.baseJobPath), {}, sets + args, record, array);
  }
  if (started.runDir.isEmpty()) {
    if (fresh || !hasCheckpoint)
      trial.runFolder = oldDir.isEmpty() ? std::string() : m_folder.recorded(oldDir).toStdString();
    trial.note = started.error.toStdString();
    recordCrash(trial);
    say(trial, tr("could not start: %1").arg(started.error));
    return false;
  }
  trial.runFolder = m_folder.recorded(started.runDir).toStdString();
  if (trial.state == TrialState::Queued || trial.state == TrialState::Crashed) trial.state = TrialState::Running;
  m_live[QDir::cleanPath(started.runDir)] = segment;
  if (!array) m_slots[slot].trialId = trial.params.id;
  save();  // at once: a runner that dies now must find the trial's run
  const QString towards =
      segment.stopStep ? tr("to rung %1 (step %2)").arg(segment.rung).arg(*segment.stopStep) : tr("to the end");
  if (array && array->pack() > 1)
    say(trial, tr("started on %1 in a Slurm job array, %2 trials to a job (%3 jobs at a time), %4")
                   .arg(place.name)
                   .arg(array->pack())
                   .arg(array->throttle())
                   .arg(towards));
  else if (array)
    say(trial, tr("started on %1 in a Slurm job array (%2 of its trials at a time), %3")
                   .arg(place.name)
                   .arg(array->throttle())
                   .arg(towards));
  else
    say(trial, (fresh ? tr("started on %1, %2") : tr("continues on %1, %2")).arg(place.name, towards));
  return true;
}

void SweepRunner::markDeleted(TrialRecord& trial) {
  trial.state = TrialState::Deleted;
  trial.note = "its run folder was deleted; it runs again only if asked";
  say(trial, tr("its run folder was deleted: not run again"));
}

void SweepRunner::onJobFinished(const QString& runDir, int) {
  const auto it = m_live.find(QDir::cleanPath(runDir));
  if (it == m_live.end()) return;
  const Segment segment = it->second;
  m_live.erase(it);
  if (segment.slot < m_slots.size()) m_slots[segment.slot].trialId.clear();
  if (TrialRecord* trial = m_state.find(segment.trialId)) settle(*trial, segment);
  decide();
  save();
  schedule();
}

void SweepRunner::onJobFailedToStart(const QString& runDir, const QString& reason) {
  const auto it = m_live.find(QDir::cleanPath(runDir));
  if (it == m_live.end()) return;
  if (TrialRecord* trial = m_state.find(it->second.trialId)) trial->note = reason.toStdString();
  onJobFinished(runDir, 1);
}

void SweepRunner::settle(TrialRecord& trial, const Segment& segment) {
  const QString dir = runDirOf(trial);
  const RunInfoReadResult read = readRunInfo(RunPaths{dir.toStdString()});
  const TrialMeasure measure = measureRun(dir.toStdString(), m_spec.metric.name);
  if (measure.tokens > 0) trial.tokens = measure.tokens;
  const RunStatus status = read.ok() ? read.info.status : RunStatus::Failed;
  if (m_stopping && !madeProgress(trial) && status != RunStatus::Finished && status != RunStatus::Stopped) {
    // Stopped with the sweep before it trained at all (a Slurm job array's task cancelled while
    // it waited in the queue): a new trial again when the sweep runs again; no crash is counted.
    trial.state = TrialState::Queued;
    trial.runFolder.clear();
    trial.note.clear();
    say(trial, tr("stopped before it started; it starts when the sweep runs again"));
    return;
  }
  if (status == RunStatus::Finished) {
    trial.metric = measure.metric;
    if (segment.rung >= 0 && segment.rung < static_cast<int>(m_spec.earlyStopping.rungs.size()) && measure.metric &&
        m_spec.earlyStopping.method != EarlyStoppingMethod::None)
      if (const auto config = trialConfig(trial))
        recordRungResult(
            trial, {segment.rung, progressAtStep(m_spec.earlyStopping.unit, *config, measure.step), *measure.metric});
    trial.state = TrialState::Finished;
    trial.note.clear();
    say(trial, tr("finished: %1 %2").arg(QString::fromStdString(m_spec.metric.name), metricWords(trial.metric)));
    return;
  }
  if (status == RunStatus::Stopped && segment.stopStep && read.info.step >= *segment.stopStep) {
    reachedRung(trial, segment, read.info.step);
    return;
  }
  if (status == RunStatus::Stopped) {
    if (m_stopping) {
      trial.state = TrialState::Queued;  // keeps its run: it continues when the sweep runs again
      say(trial, tr("stopped at step %1; it continues when the sweep runs again").arg(read.info.step));
    } else {
      trial.state = TrialState::Pruned;
      trial.note = "stopped by you at step " + std::to_string(read.info.step) + "; Promote continues it";
      say(trial, tr("stopped by you at step %1: left as pruned (Promote continues it)").arg(read.info.step));
    }
    return;
  }
  if (status == RunStatus::Killed && read.info.endCause == EndCause::Asked) {
    trial.state = TrialState::Failed;
    trial.note = "killed by you";
    say(trial, tr("killed by you: not run again"));
    return;
  }
  const std::string why = !read.ok()                     ? read.error
                          : read.info.exitReason.empty() ? toString(status)
                                                         : read.info.exitReason;
  if (trial.note.empty() || read.ok()) trial.note = why;
  recordCrash(trial);
  say(trial,
      trial.state == TrialState::Crashed
          ? tr("crashed (%1): it runs once more, from its newest checkpoint").arg(QString::fromStdString(trial.note))
          : tr("failed again (%1): left alone").arg(QString::fromStdString(trial.note)));
}

void SweepRunner::reachedRung(TrialRecord& trial, const Segment& segment, std::int64_t step) {
  const TrialMeasure measure = measureRun(runDirOf(trial).toStdString(), m_spec.metric.name, step);
  const std::optional<RunConfig> config = trialConfig(trial);
  if (!measure.metric || measure.metricStep != step || !config) {
    trial.state = TrialState::Failed;
    trial.note = m_spec.metric.name + " was not measured at step " + std::to_string(step) + " (rung " +
                 std::to_string(segment.rung) + ")";
    say(trial, tr("failed: %1").arg(QString::fromStdString(trial.note)));
    return;
  }
  const std::int64_t at = progressAtStep(m_spec.earlyStopping.unit, *config, step);
  recordRungResult(trial, {segment.rung, at, *measure.metric});
  trial.metric = measure.metric;
  say(trial, tr("at rung %1 (%2 %3): %4 %5")
                 .arg(segment.rung)
                 .arg(at)
                 .arg(progressUnitName(m_spec.earlyStopping.unit), QString::fromStdString(m_spec.metric.name),
                      metricWords(measure.metric)));
}

void SweepRunner::decide() {
  const EarlyStoppingDecisions d =
      decideEarlyStopping(m_spec.earlyStopping, m_spec.metric.goal, m_state.trials, nothingLeftToStart());
  for (const std::string& id : d.goOn)
    if (TrialRecord* t = m_state.find(id)) {
      clearLastRung(*t);
      if (t->lastRung() >= 0) say(*t, tr("goes on past rung %1").arg(t->lastRung()));
    }
  for (const std::string& id : d.prune)
    if (TrialRecord* t = m_state.find(id)) {
      t->state = TrialState::Pruned;
      const RungResult* r = t->resultAt(t->lastRung());
      t->note = "pruned at rung " + std::to_string(t->lastRung()) + " (" + std::to_string(r ? r->at : 0) + " " +
                progressUnitName(m_spec.earlyStopping.unit) + ")";
      say(*t, tr("%1; its checkpoint is kept").arg(QString::fromStdString(t->note)));
    }
  m_promotable = d.promotable;
}

QString SweepRunner::promote(const QString& trialId) {
  TrialRecord* trial = m_state.find(trialId.toStdString());
  if (!trial) return tr("the sweep has no trial %1").arg(trialId);
  if (trial->state != TrialState::Pruned)
    return tr("%1 is %2, not pruned").arg(QString::fromStdString(trial->params.name), trialStateName(trial->state));
  m_userPromotions.push_back(trial->params.id);
  say(*trial, tr("promoted by you"));
  wakeUp();
  return {};
}

QString SweepRunner::rerun(const QString& trialIdOrName) {
  const std::string wanted = trialIdOrName.toStdString();
  TrialRecord* trial = m_state.find(wanted);
  if (!trial) {
    const auto named = std::find_if(m_state.trials.begin(), m_state.trials.end(),
                                    [&](const TrialRecord& t) { return t.params.name == wanted; });
    if (named != m_state.trials.end()) trial = &*named;
  }
  if (!trial) return tr("the sweep has no trial %1 (--sweep-status lists them)").arg(trialIdOrName);
  if (trial->state != TrialState::Deleted && trial->state != TrialState::Failed)
    return tr("%1 is %2: only a trial whose run was deleted, or that failed, runs again")
        .arg(QString::fromStdString(trial->params.name), trialStateName(trial->state));
  requeueTrial(*trial);
  trial->note.clear();
  say(*trial, tr("queued again by you: it runs from the start as a new run"));
  save();
  wakeUp();
  return {};
}

// A runner that had finished takes work again (a promotion, a trial run again).
void SweepRunner::wakeUp() {
  if (m_done) {
    m_done = false;
    m_stopping = false;
    m_stopReason.clear();
    m_sinceTick.restart();
    m_clock.start();
  }
  schedule();
}

void SweepRunner::stopAll() {
  if (m_done) return;
  m_stopping = true;
  // A start that had not reached the cluster yet ends at once, and its trial leaves m_live
  // (settle) while this goes on: the folders first, then each that is still live.
  QStringList dirs;
  for (const auto& entry : m_live) dirs << entry.first;
  for (const QString& dir : dirs)
    if (m_live.count(dir))
      if (Job* job = m_jobs.jobFor(dir)) job->stop();
  finishIfIdle();
}

void SweepRunner::tick() {
  if (std::any_of(m_live.begin(), m_live.end(), [](const auto& entry) { return entry.second.adopting; })) {
    adoptWaiting();
    decide();
    schedule();
    if (m_done) return;
  }
  m_state.elapsedSeconds += static_cast<double>(m_sinceTick.restart()) / 1000.0;
  if (!m_stopping && wallTimeSpent(m_spec.budget, budgetUse(m_state))) {
    m_stopReason =
        tr("the budget is spent: %1").arg(QString::fromStdString(budgetLimitWords(m_spec.budget, budgetUse(m_state))));
    stopAll();
  }
  if (++m_ticksSinceSave >= 10) save();  // the elapsed time, for a runner that dies
}

void SweepRunner::finishIfIdle() {
  if (m_done || !m_live.empty()) return;
  m_state.elapsedSeconds += static_cast<double>(m_sinceTick.restart()) / 1000.0;
  m_done = true;
  m_clock.stop();
  save();
  QString why = m_stopReason;
  if (why.isEmpty() && m_stopping) why = tr("stopped as asked; running the sweep again continues it");
  if (why.isEmpty())
    if (const std::string limit = budgetLimitWords(m_spec.budget, budgetUse(m_state)); !limit.empty())
      why = tr("the budget is spent: %1").arg(QString::fromStdString(limit));
  if (why.isEmpty()) why = tr("every trial has ended");
  emit finished(why);
}

void SweepRunner::save() {
  if (!m_lock) return;
  m_ticksSinceSave = 0;
  if (const std::string error = writeSweepState(m_state, m_folder.statePath().toStdString()); !error.empty())
    emit trialChanged({}, tr("sweep.json could not be written: %1").arg(QString::fromStdString(error)));
  emit stateSaved();
}

void SweepRunner::say(const TrialRecord& trial, const QString& words) {
  emit trialChanged(QString::fromStdString(trial.params.id), QString::fromStdString(trial.params.name) + ": " + words);
}

}  // namespace traindeck
