// #SBATCH values are not shell words: sbatch reads them itself, so a value must only be one line
// without '#'-comment surprises; everything the shell sees goes through shellQuote.
#include "slurm_batch.h"

#include <QCoreApplication>
#include <QRegularExpression>
#include <algorithm>
#include <initializer_list>
#include <utility>

#include "config/slurm_partitions.h"
#include "runlog/run_exit.h"
#include "shell_quote.h"

namespace traindeck {

namespace {

QString batchTr(const char* text) {
  return QCoreApplication::translate("SlurmBatch", text);
}

bool oneLine(const QString& value) {
  return !value.contains('\n') && !value.contains('\r');
}

// "--key=value" for each value that is set, in the order given.
QStringList slurmSetOptions(std::initializer_list<std::pair<const char*, QString>> options) {
  QStringList out;
  for (const auto& [key, value] : options)
    if (!value.isEmpty()) out << QStringLiteral("--%1=%2").arg(QLatin1String(key), value);
  return out;
}

// Where a job of this place runs, for the batch script and the build job alike.
QStringList slurmWhereOptions(const SlurmPlace& place) {
  return slurmSetOptions({{"partition", place.partition},
                          {"account", place.account},
                          {"qos", place.qos},
                          {"constraint", place.constraint},
                          {"time", place.timeLimit}});
}

}  // namespace

SlurmPlace slurmPlaceOf(const SlurmConfig& slurm) {
  SlurmPlace place;
  place.partition = QString::fromStdString(slurm.partition);
  place.account = QString::fromStdString(slurm.account);
  place.qos = QString::fromStdString(slurm.qos);
  place.timeLimit = QString::fromStdString(slurm.time_limit);
  place.mem = QString::fromStdString(slurm.mem);
  place.constraint = QString::fromStdString(slurm.constraint);
  place.gpusPerNode = static_cast<int>(slurm.gpus_per_node);
  place.cpusPerTask = static_cast<int>(slurm.cpus_per_task);
  for (const std::string& line : slurm.sbatch_args) place.extraLines << QString::fromStdString(line);
  place.buildInJob = slurm.build == SlurmBuild::Job;
  // A short limit keeps most of it for training: USR2 a quarter of it before the end. Slurm checks
  // every 30 s and sends the signal that much earlier rather than late.
  if (const std::optional<int> minutes = slurmMinutes(slurm.time_limit); minutes && *minutes > 0)
    place.signalSeconds = std::min(place.signalSeconds, *minutes * 15);
  return place;
}

QStringList slurmBuildJobOptions(const SlurmPlace& place) {
  QStringList options = slurmWhereOptions(place);
  options.removeIf([](const QString& option) { return !oneLine(option); });
  return options;
}

QString slurmBatchScript(const SlurmPlace& place, const SlurmStart& start, QString* error) {
  if (start.nodes < 1 || start.masterPort < 0 || start.masterPort > 65535) {
    *error = batchTr("a Slurm job needs 1 node or more and a master port between 0 (chosen) and 65535");
    return {};
  }
  // sbatch reads these lines itself: a value in double quotes may hold spaces, and its filename
  // patterns ("%j") are escaped where the path is the job's own ("%%").
  if (start.runDir.contains('"')) {
    *error = batchTr("the run folder's path holds a double quote, which an #SBATCH line cannot carry: %1").arg(start.runDir);
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
  const auto count = [](int n) { return n > 0 ? QString::number(n) : QString(); };
  sbatch << slurmWhereOptions(place)
         << slurmSetOptions({{"mem", place.mem},
                             {"gpus-per-node", count(place.gpusPerNode)},
                             {"cpus-per-task", count(place.cpusPerTask)}});
  for (const QString& line : place.extraLines) {
    if (!line.startsWith("--")) {
      *error = batchTr("an extra sbatch option must start with --: %1").arg(line);
      return {};
    }
    sbatch << line;
  }
  for (const QString& line : sbatch)
    if (!oneLine(line)) {
      *error = batchTr("a Slurm option holds a line break: %1").arg(line.simplified());
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
                                      QString::number(start.nodes)} +
                          start.extraArgs;
  script += QStringLiteral(
                "set -u\n"
                "# The first node's address, as Slurm knows it: every node's supervisor meets there.\n"
                "first=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | head -n 1)\n"
                "MASTER=$(scontrol show node \"$first\" | sed -n 's/.*NodeAddr=\\([^ ]*\\).*/\\1/p')\n"
                "# The rendezvous port: the job's own, or one from its id (two jobs on a node differ).\n"
                "PORT=%5\n"
                "if [ \"$PORT\" -eq 0 ]; then PORT=$((20000 + SLURM_JOB_ID % 20000)); fi\n"
                "RESUME=%2\n"
                "# Requeued (a time limit, a preemption): from the newest complete checkpoint.\n"
                "if [ \"${SLURM_RESTART_COUNT:-0}\" -gt 0 ]; then RESUME=--resume; fi\n"
                "# What the trainer does at the time limit: checkpoint and requeue, or, with none left, stop.\n"
                "TRAINDECK_REQUEUES_LEFT=$((%4 - ${SLURM_RESTART_COUNT:-0}))\n"
                "if [ \"$TRAINDECK_REQUEUES_LEFT\" -lt 0 ]; then TRAINDECK_REQUEUES_LEFT=0; fi\n"
                "export MASTER PORT RESUME TRAINDECK_REQUEUES_LEFT  # srun hands the batch shell's environment to each task\n"
                "# One task per node, its node rank its SLURM_NODEID; the job's words are arguments, never code.\n"
                "code=0\n"
                "before=$(cat %6/run.json 2>/dev/null)  # this attempt's run.json differs from the last one's\n"
                "srun --ntasks-per-node=1 --kill-on-bad-exit=1 sh -c \\\n"
                "  'exec \"$@\" --node-rank \"$SLURM_NODEID\" --master-addr \"$MASTER\" --master-port \"$PORT\" ${RESUME:+\"$RESUME\"}' sh \\\n"
                "  %1 || code=$?\n"
                "# Exit %3: every rank checkpointed for the time limit; the job goes back into the queue.\n"
                "# (srun may end the other nodes' tasks once the first one exits %3 and then report their\n"
                "# signal: this attempt's run.json says it then; an earlier attempt's word does not count.)\n"
                "after=$(cat %6/run.json 2>/dev/null)\n"
                "if [ \"$code\" -ne 0 ] && [ \"$after\" != \"$before\" ] &&\n"
                "  printf '%s' \"$after\" | grep -q '\"status\": *\"requeued\"'; then code=%3; fi\n"
                "if [ \"$code\" -eq %3 ] && [ \"${SLURM_RESTART_COUNT:-0}\" -lt %4 ]; then\n"
                "  scontrol requeue \"$SLURM_JOB_ID\"\n"
                "fi\n"
                "exit \"$code\"\n")
                // One arg() call: a %N inside a path is never taken for a placeholder.
                .arg(shellJoin(run), start.resume ? QStringLiteral("--resume") : QString(),
                     QString::number(kExitRequeued), QString::number(std::max(0, start.maxRequeues)),
                     QString::number(start.masterPort), shellQuote(start.runDir));
  return script;
}

}  // namespace traindeck
