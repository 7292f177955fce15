// #SBATCH values are not shell words: sbatch reads them itself, so a value must only be one line
// without '#'-comment surprises; everything the shell sees goes through shellQuote.
#include "slurm_batch.h"

#include <QCoreApplication>
#include <QRegularExpression>

#include "shell_quote.h"

namespace traindeck {

namespace {

QString tr(const char* text) {
  return QCoreApplication::translate("SlurmBatch", text);
}

bool oneLine(const QString& value) {
  return !value.contains('\n') && !value.contains('\r');
}

}  // namespace

QString slurmBatchScript(const SlurmPlace& place, const SlurmStart& start, QString* error) {
  if (start.nodes < 1 || start.masterPort < 1 || start.masterPort > 65535) {
    *error = tr("a Slurm job needs 1 node or more and a master port between 1 and 65535");
    return {};
  }
  // sbatch reads these lines itself: a value in double quotes may hold spaces, and its filename
  // patterns ("%j") are escaped where the path is the job's own ("%%").
  if (start.runDir.contains('"')) {
    *error = tr("the run folder's path holds a double quote, which an #SBATCH line cannot carry: %1").arg(start.runDir);
    return {};
  }
  QString jobName = start.jobName;
  jobName.replace(QRegularExpression("[^A-Za-z0-9._-]"), "_");
  QStringList sbatch{"--job-name=" + jobName,
                     "--nodes=" + QString::number(start.nodes),
                     "--ntasks-per-node=1",
                     "--requeue",
                     "--open-mode=append",
                     "--signal=USR2@" + QString::number(place.signalSeconds),
                     "--output=\"" + QString(start.runDir).replace('%', "%%") + "/slurm-%j.out\""};
  const auto option = [&sbatch](const char* key, const QString& value) {
    if (!value.isEmpty()) sbatch << QStringLiteral("--%1=%2").arg(QLatin1String(key), value);
  };
  option("partition", place.partition);
  option("account", place.account);
  option("qos", place.qos);
  option("time", place.timeLimit);
  option("mem", place.mem);
  option("constraint", place.constraint);
  if (place.gpusPerNode > 0) option("gpus-per-node", QString::number(place.gpusPerNode));
  if (place.cpusPerTask > 0) option("cpus-per-task", QString::number(place.cpusPerTask));
  for (const QString& line : place.extraLines) {
    if (!line.startsWith("--")) {
      *error = tr("an extra sbatch option must start with --: %1").arg(line);
      return {};
    }
    sbatch << line;
  }
  for (const QString& line : sbatch)
    if (!oneLine(line)) {
      *error = tr("a Slurm option holds a line break: %1").arg(line.simplified());
      return {};
    }
  QString script = QStringLiteral("#!/bin/bash\n");
  for (const QString& line : sbatch) script += "#SBATCH " + line + "\n";
  const QStringList run = QStringList{start.trainBinary,
                                      "run",
                                      "--config",
                                      start.configPath,
                                      "--run-dir",
                                      start.runDir,
                                      "--no-progress",
                                      "--nnodes",
                                      QString::number(start.nodes),
                                      "--master-port",
                                      QString::number(start.masterPort)} +
                          start.extraArgs;
  script += QStringLiteral(
                "set -eu\n"
                "# The first node's address, as Slurm knows it: every node's supervisor meets there.\n"
                "first=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | head -n 1)\n"
                "MASTER=$(scontrol show node \"$first\" | sed -n 's/.*NodeAddr=\\([^ ]*\\).*/\\1/p')\n"
                "RESUME=\n"
                "# Requeued (a time limit, a preemption): from the newest complete checkpoint.\n"
                "if [ \"${SLURM_RESTART_COUNT:-0}\" -gt 0 ]; then RESUME=--resume; fi\n"
                "export MASTER RESUME  # srun hands the batch shell's environment to each task\n"
                "# One task per node, its node rank its SLURM_NODEID; the job's words are arguments, never code.\n"
                "srun --ntasks-per-node=1 --kill-on-bad-exit=1 sh -c \\\n"
                "  'exec \"$@\" --node-rank \"$SLURM_NODEID\" --master-addr \"$MASTER\" ${RESUME:+\"$RESUME\"}' sh \\\n"
                "  %1\n")
                .arg(shellJoin(run));
  return script;
}

}  // namespace traindeck
