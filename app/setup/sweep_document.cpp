// Trials read the base job from its file, as the runner will: the cost is of the job as saved,
// and it is made again when that file or the device the job is planned for changes. Checking
// and planning a trial is a file read and some arithmetic, so at most kMaxPlannedTrials of them
// are done on every change, on the thread that asks.
#include "sweep_document.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>
#include <QStringList>
#include <algorithm>

#include "job_document.h"
#include "job_yaml_edit.h"
#include "sweep/apply_trial.h"
#include "sweep/trial_plan.h"

namespace traindeck {

SweepDocument::SweepDocument(JobDocument* job, QObject* parent) : QObject(parent), m_job(job) {
  m_jobFile = m_job->filePath();
  connect(m_job, &JobDocument::changed, this, &SweepDocument::followJob);
  newSweep();
}

QString SweepDocument::sweepFileFor(const QString& jobFile) {
  if (jobFile.isEmpty()) return {};
  const QFileInfo job(jobFile);
  return job.absoluteDir().filePath(job.completeBaseName() + ".sweep.yaml");
}

QString SweepDocument::defaultSaveFile() const {
  if (!m_filePath.isEmpty()) return m_filePath;
  const QString own = sweepFileFor(m_job->filePath());
  return own.isEmpty() ? QDir(baseDir()).filePath("sweep.yaml") : own;
}

void SweepDocument::newSweep() {
  const QString own = sweepFileFor(m_job->filePath());
  if (!own.isEmpty() && QFileInfo::exists(own) && open(own).isEmpty()) return;
  const QString base =
      m_job->filePath().isEmpty() ? QStringLiteral("job.yaml") : QFileInfo(m_job->filePath()).fileName();
  load(tr("# Trials of the job: each is the job with these keys set (docs/sweeps.md).\n"
          "base: %1\n"
          "method: grid\n"
          "parameters:\n"
          "  optimizer.lr: [1e-4, 3e-4, 1e-3]\n"
          "metric: val_loss\n")
           .arg(yamlScalar(base)),
       {});
}

QString SweepDocument::open(const QString& path) {
  QFile in(path);
  if (QFileInfo(path).size() > static_cast<qint64>(kMaxSweepBytes)) return tr("it is larger than a sweep file can be");
  if (!in.open(QIODevice::ReadOnly)) return in.errorString();
  load(QString::fromUtf8(in.readAll()), QFileInfo(path).absoluteFilePath());
  return {};
}

QString SweepDocument::saveTo(const QString& path) {
  QSaveFile out(path);
  QString text = m_text;
  if (!text.endsWith('\n')) text += '\n';
  if (!out.open(QIODevice::WriteOnly) || out.write(text.toUtf8()) < 0 || !out.commit()) return out.errorString();
  m_text = text;
  load(text, QFileInfo(path).absoluteFilePath());  // `base:` now means a path from its folder
  return {};
}

void SweepDocument::load(const QString& text, const QString& filePath) {
  m_text = text;
  m_savedText = text;
  m_filePath = filePath;
  update();
}

void SweepDocument::setText(const QString& text) {
  if (text == m_text) return;
  m_text = text;
  update();
}

void SweepDocument::setLocalSlots(int count) {
  m_slots = std::max(1, count);
  if (m_summary.cost) m_summary.cost = sweepCost(m_summary.spec, m_runs, m_slots);
  emit changed();
}

QString SweepDocument::baseDir() const {
  return m_filePath.isEmpty() ? m_job->baseDir() : QFileInfo(m_filePath).absolutePath();
}

// The job's side of the trials: the device it is planned for, the base job's file as it is (a
// few kilobytes, read again on each change of the job; its time stamp may not move), and the
// job's own problems, which change with what the machine it runs on has.
QString SweepDocument::jobStateKey() const {
  QFile base(QString::fromStdString(m_summary.spec.baseJobPath));
  const QByteArray text = base.size() <= static_cast<qint64>(kMaxConfigBytes) && base.open(QIODevice::ReadOnly)
                              ? base.readAll()
                              : QByteArray();
  const std::optional<JobPlan>& plan = m_job->plan();
  QString problems;
  for (const Diagnostic& d : m_job->problems()) problems += QString::fromStdString(d.path + d.message);
  return QStringList{plan ? QString::fromStdString(plan->plan.device.name) + plan->hostSpec : QString(),
                     QString::number(qHash(text)), QString::number(text.size()), QString::number(qHash(problems)),
                     m_job->isModified() ? QStringLiteral("edited") : QString()}
      .join('|');
}

void SweepDocument::followJob() {
  const bool otherFile = m_job->filePath() != m_jobFile;
  m_jobFile = m_job->filePath();
  if (otherFile && !isModified())
    newSweep();  // the other job's sweep; edits here are never dropped
  else if (otherFile || jobStateKey() != m_jobKey)
    update();
}

void SweepDocument::update() {
  m_summary = {};
  m_runs.clear();
  const QString dir = baseDir();
  const QString source = m_filePath.isEmpty() ? QStringLiteral("sweep.yaml") : QFileInfo(m_filePath).fileName();
  const LoadedSweepSpec loaded = loadSweepSpecText(m_text.toStdString(), source.toStdString(), dir.toStdString());
  m_problems = loaded.problems;
  m_summary.spec = loaded.spec;
  m_summary.onSlurm = m_job->loaded() && m_job->loaded()->config.target.kind == TargetKind::Slurm;
  m_jobKey = jobStateKey();
  if (hasErrors(m_problems)) {
    m_summary.why = tr("Fix the sweep's errors to see its trials.");
    emit changed();
    return;
  }
  m_summary.readable = true;
  const QString base = QFileInfo(QString::fromStdString(m_summary.spec.baseJobPath)).absoluteFilePath();
  if (m_job->isModified() && !m_job->filePath().isEmpty() && base == QFileInfo(m_job->filePath()).absoluteFilePath())
    m_summary.jobNote =
        tr("The job has edits not saved in its file: the trials, and this cost, are of the file as "
           "saved. Save the job to include them.");
  const std::vector<TrialParams> all = traindeck::planTrials(m_summary.spec);
  m_summary.count = countTrials(m_summary.spec, static_cast<std::int64_t>(all.size()));
  if (std::optional<Diagnostic> missing = missingBaseJob(m_summary.spec, dir.toStdString())) {
    m_problems.push_back(std::move(*missing));
    m_summary.why = m_job->filePath().isEmpty()
                        ? tr("Save the job first: the trials are its file with the sweep's keys set.")
                        : tr("The base job is not a file: its trials cannot be checked or costed.");
  } else if (m_summary.count.trials == 0) {
    m_summary.why = tr("No trials.");
  } else {
    const std::int64_t first = std::min(m_summary.count.trials, kMaxPlannedTrials);
    const std::vector<TrialParams> trials(all.begin(), all.begin() + first);
    m_summary.planned = first;
    if (checkTrials(trials))
      planTrials(trials);
    else
      m_summary.why = tr("Some trials are not valid jobs (see the problems): no cost until they are.");
  }
  emit changed();
}

// A trial's problem where the user can fix it: a key the sweep sets at its line here; a key of
// the base job with that file's line in the hint (its lines are not this file's). The trials can
// be planned unless they have errors where they run anywhere: what the target lacks (no CUDA
// device here) is a problem of where they run, not of their plan, as for the job.
bool SweepDocument::checkTrials(const std::vector<TrialParams>& trials) {
  const SweepSpec& spec = m_summary.spec;
  const std::optional<LoadedConfig>& job = m_job->lastReadable();
  const ValidationContext context = job ? m_job->contextFor(job->config) : ValidationContext{};
  const QString baseName = QFileInfo(QString::fromStdString(spec.baseJobPath)).fileName();
  Diagnostics found = traindeck::checkTrials(spec, trials, context);
  const bool planable = !hasErrors(found) || !hasErrors(traindeck::checkTrials(spec, trials, ValidationContext{}));
  for (Diagnostic& d : found) {
    const auto swept = std::find_if(spec.parameters.begin(), spec.parameters.end(),
                                    [&](const ParameterSpec& p) { return p.key == d.path; });
    if (swept != spec.parameters.end() && d.line == 0) {
      d.line = swept->place.line;
      d.column = swept->place.column;
    } else if (d.line > 0) {
      const QString where = tr("%1, line %2").arg(baseName).arg(d.line);
      d.hint = d.hint.empty() ? where.toStdString() : d.hint + "; " + where.toStdString();
      d.line = 0;
      d.column = 0;
    }
    m_problems.push_back(std::move(d));
  }
  return planable;
}

// Each trial's own job planned on the job's device; trials past the planned ones are taken in
// turn as like them.
void SweepDocument::planTrials(const std::vector<TrialParams>& trials) {
  const std::optional<JobPlan>& plan = m_job->plan();
  if (!plan) {
    m_summary.why = tr("The job has no plan (see its model and strategy): no step time to cost the trials with.");
    return;
  }
  const DeviceSpec& device = plan->plan.device;
  m_summary.device = plan->hostSpec.isEmpty() ? QString::fromStdString(device.description)
                                              : tr("%1 (%2)").arg(plan->hostSpec, plan->hostLabel);
  m_summary.onCpu = device.isCpu;
  m_runs.reserve(static_cast<std::size_t>(m_summary.count.trials));
  for (const TrialParams& trial : trials)
    m_runs.push_back(trialRun(loadTrialConfig(m_summary.spec, trial).config, device));
  m_summary.runs = m_runs;
  for (std::size_t i = m_runs.size(); i < static_cast<std::size_t>(m_summary.count.trials); ++i)
    m_runs.push_back(m_runs[i % trials.size()]);
  m_summary.cost = sweepCost(m_summary.spec, m_runs, m_slots);
}

}  // namespace traindeck
