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
#include "slurm_batch_template.h"

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
  QString lines;
  for (const QString& line : sbatch) lines += "#SBATCH " + line + "\n";
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
  const QMap<QString, QString> values{
      {"RUN_DIR", shellQuote(start.runDir)},
      {"PORT", QString::number(start.masterPort)},
      {"RESUME", start.resume ? QStringLiteral("--resume") : shellQuote(QString())},
      {"MAX_REQUEUES", QString::number(std::max(0, start.maxRequeues))},
      {"REQUEUED_EXIT", QString::number(kExitRequeued)},
      {"TRAIN_COMMAND", shellJoin(run)},
  };
  return fillSlurmBatchTemplate(QString::fromUtf8(kSlurmBatchTemplate), lines, values);
}

QStringList sbatchOptionsOf(const QString& script, bool forArray) {
  QStringList options;
  for (const QString& line : script.split('\n')) {
    if (!line.startsWith(QLatin1String("#SBATCH "))) continue;
    const QString option = line.mid(8).trimmed();
    if (forArray && (option.startsWith(QLatin1String("--output=")) || option.startsWith(QLatin1String("--job-name="))))
      continue;
    options << option;
  }
  return options;
}

QString slurmArrayScript(const QString& firstMemberScript, const SlurmArrayStart& start, QString* error) {
  if (start.memberScripts.isEmpty() || start.throttle < 1) {
    *error = batchTr("a job array needs one run or more and a throttle of 1 or more");
    return {};
  }
  if (start.arrayDir.contains('"') || !oneLine(start.arrayDir)) {
    *error = batchTr("the job array's folder cannot be said on an #SBATCH line: %1").arg(start.arrayDir);
    return {};
  }
  QString jobName = start.jobName;
  jobName.replace(QRegularExpression("[^A-Za-z0-9._-]"), "_");
  QString text = QStringLiteral(
      "#!/bin/bash\n# A TrainDeck job array: task k runs the batch script of run k, kept in its run folder.\n");
  const QStringList options =
      QStringList{
          "--job-name=" + jobName,
          "--array=0-" + QString::number(start.memberScripts.size() - 1) + '%' + QString::number(start.throttle),
          "--output=\"" + QString(start.arrayDir).replace('%', "%%") + "/%a/slurm-%j.out\""} +
      sbatchOptionsOf(firstMemberScript, /*forArray=*/true);
  for (const QString& option : options) text += "#SBATCH " + option + "\n";
  text += "set -u\ncase \"${SLURM_ARRAY_TASK_ID:-}\" in\n";
  for (int k = 0; k < start.memberScripts.size(); ++k)
    text += QStringLiteral("  %1) exec /bin/bash %2 ;;\n").arg(k).arg(shellQuote(start.memberScripts[k]));
  text += "  *) echo \"traindeck: no run for array task ${SLURM_ARRAY_TASK_ID:-none}\" >&2; exit 1 ;;\nesac\n";
  return text;
}

namespace {

// Each @NAME@ of `values` in `text` replaced in one pass, left to right: a value is never read
// again, so an "@PORT@" inside a path stays text; '@'s of the script's own stay as they are.
QString fillPlaceholders(const QString& text, const QMap<QString, QString>& values) {
  static const QRegularExpression kPlaceholder(QStringLiteral("@([A-Z_]+)@"));
  QString out;
  qsizetype from = 0;
  for (auto it = kPlaceholder.globalMatch(text); it.hasNext();) {
    const QRegularExpressionMatch m = it.next();
    if (!values.contains(m.captured(1))) continue;
    out += text.mid(from, m.capturedStart() - from) + values.value(m.captured(1));
    from = m.capturedEnd();
  }
  return out + text.mid(from);
}

}  // namespace

QString fillSlurmBatchTemplate(const QString& templ, const QString& sbatchLines, const QMap<QString, QString>& values) {
  static const QString kMarker = QStringLiteral("#TRAINDECK_SBATCH_LINES\n");
  const qsizetype at = templ.indexOf(kMarker);
  if (at < 0) return fillPlaceholders(templ, values);
  return fillPlaceholders(templ.left(at), values) + sbatchLines +
         fillPlaceholders(templ.mid(at + kMarker.size()), values);
}

}  // namespace traindeck
