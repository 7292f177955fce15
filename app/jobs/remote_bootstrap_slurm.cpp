// A Slurm cluster's rows of a remote start (RemoteBootstrap::stepsFor puts them in its table):
// the partition check right after the probe, the trainer built by a small job (target.build: job),
// and the submission of the batch script instead of a launch. The host is the cluster's login
// node; what follows the submission (queue, requeue, cancel) is SlurmJobProcess's.
#include <QDir>
#include <QSaveFile>

#include "config/slurm_partitions.h"
#include "config/validate.h"
#include "remote_bootstrap.h"
#include "slurm_array.h"

namespace traindeck {

void RemoteBootstrap::stepPartitions() {
  // What the login node's partitions say, before anything is built, uploaded or queued: a job that
  // can never run there (Slurm would keep it pending for ever) is refused with the reason.
  if (m_probe.sinfo.isEmpty()) return next();
  for (const Diagnostic& d : slurmPartitionProblems(m_launch->config, parseSinfo(m_probe.sinfo.toStdString()))) {
    if (d.severity == Severity::Error)
      return fail(tr("Not submitted: %1 (%2)").arg(QString::fromStdString(d.message), QString::fromStdString(d.hint)));
  }
  next();
}

void RemoteBootstrap::stepCompileAsJob() {
  addOutput(tr("Building the trainer as a Slurm job (target.build: job); it waits in the queue like any job."));
  helper().buildAsJob(m_record->workDir + "/src/" + m_sourcesHash, m_buildDir, m_probe.libtorchChoice(),
                      slurmBuildJobOptions(*m_launch->slurm()),
                      compiled(tr("Building the trainer as a Slurm job through %1 failed: %2")), streamOutput());
}

void RemoteBootstrap::stepSubmit() {
  uploadJobCopy([this](const QString& remoteConfig) {
    SlurmStart start;
    start.jobName = QString::fromStdString(m_launch->config.name);
    start.trainBinary = m_record->trainBinary;
    start.configPath = remoteConfig;
    start.runDir = m_record->remoteRunDir;
    start.nodes = static_cast<int>(m_launch->config.strategy.nnodes);
    start.masterPort = static_cast<int>(m_launch->config.strategy.master_port);
    start.maxRequeues = static_cast<int>(m_launch->config.target.slurm.max_requeues);
    start.resume = m_launch->extraArgs.contains(QStringLiteral("--resume"));
    start.extraArgs = m_launch->extraArgs;
    start.extraArgs.removeAll(QStringLiteral("--resume"));
    QString why;
    const QString script = slurmBatchScript(*m_launch->slurm(), start, &why);
    if (script.isEmpty()) return fail(tr("The Slurm batch script could not be written: %1").arg(why));
    // Kept here, beside the run it started, and shown as it is.
    QSaveFile kept(QDir(runDir()).filePath(QStringLiteral("slurm.sbatch")));
    const QByteArray bytes = script.toUtf8();
    if (!kept.open(QIODevice::WriteOnly) || kept.write(bytes) != bytes.size() || !kept.commit())
      return fail(tr("Could not keep the batch script in the run folder: %1").arg(kept.errorString()));
    addOutput(tr("The batch script (slurm.sbatch in the run folder):"));
    for (const QString& line : script.split('\n', Qt::SkipEmptyParts)) addOutput(QStringLiteral("  ") + line);
    m_slurmScript = m_record->remoteRunDir + "/slurm.sbatch";
    helper().mkdirs({m_record->remoteRunDir}, [this, script](const HelperStatus& made) {
      if (!arrived(made)) return;
      upload(QDir(runDir()).filePath(QStringLiteral("slurm.sbatch")), m_slurmScript, [this, script] {
        if (!m_array) return submitAlone();
        addOutput(
            tr("Waiting for the other runs of its job array (at most %1 of them at once)").arg(m_array->throttle()));
        m_array->arrive(this, m_record->remoteRunDir, m_slurmScript, script);
      });
    });
  });
}

void RemoteBootstrap::submitAlone() {
  if (!m_active) return;
  helper().submit(m_slurmScript, m_record->remoteRunDir, [this](const SubmitAnswer& a) {
    if (!arrived(a)) return;
    if (!a.submitted()) return fail(tr("Slurm did not take the job on %1: %2").arg(m_launch->target.spec, a.why()));
    takeJob(a.jobId);
  });
}

void RemoteBootstrap::submitArray(const QString& text, const QString& arrayDir, int pack, const QStringList& runDirs,
                                  std::function<void(const std::optional<SubmitAnswer>&)> done) {
  if (!m_active) return done(std::nullopt);
  QSaveFile kept(QDir(runDir()).filePath(QStringLiteral("slurm-array.sbatch")));
  const QByteArray bytes = text.toUtf8();
  if (!kept.open(QIODevice::WriteOnly) || kept.write(bytes) != bytes.size() || !kept.commit()) {
    SubmitAnswer refused;
    refused.exitStatus = 1;
    refused.error = tr("could not keep its script in %1: %2").arg(runDir(), kept.errorString());
    return done(refused);
  }
  addOutput(tr("The job array's script (slurm-array.sbatch in the run folder), for %1 runs").arg(runDirs.size()));
  const QString remote = arrayDir + "/array.sbatch";
  helper().mkdirs({arrayDir}, [this, remote, arrayDir, pack, runDirs, done](const HelperStatus& made) {
    if (!arrived(made)) return done(std::nullopt);
    upload(QDir(runDir()).filePath(QStringLiteral("slurm-array.sbatch")), remote,
           [this, remote, arrayDir, pack, runDirs, done] {
             helper().submitArray(remote, arrayDir, pack, runDirs, [this, done](const SubmitAnswer& a) {
               if (!arrived(a)) return done(std::nullopt);
               done(a);
             });
           });
  });
}

void RemoteBootstrap::takeJob(const QString& jobId, bool packed) {
  if (!m_active) return;
  m_record->slurmJobId = jobId;
  m_record->slurmPacked = packed;
  if (const QString why = m_options.saveRecord(); !why.isEmpty()) return fail(why);
  if (packed)
    addOutput(tr("Submitted to Slurm through %1 in job %2 (a task of job array %3), sharing its allocation with "
                 "other runs")
                  .arg(m_launch->target.spec, jobId, jobId.section('_', 0, 0)));
  else
    addOutput(jobId.contains('_') ? tr("Submitted to Slurm through %1 as job %2 (a task of job array %3)")
                                        .arg(m_launch->target.spec, jobId, jobId.section('_', 0, 0))
                                  : tr("Submitted to Slurm through %1 as job %2").arg(m_launch->target.spec, jobId));
  finish();
}

}  // namespace traindeck
