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

// A pack's trials, each its own batch script (slurm-batch.sh) in the background in this one
// allocation: its output in its run folder, its slot I/N of the allocation; one the user stopped
// or killed while the pack waited, or (after a requeue) one that ended, is not started. A trial
// that checkpointed for the time limit asks for the requeue (it touches $TRAINDECK_PACKED); the
// job is requeued once every trial of the pack is done, and each resumes.
constexpr const char* kPackTrialsFunction = R"SH(packTrials() {
  flag=${TMPDIR:-/tmp}/traindeck-requeue-$SLURM_JOB_ID-$$
  rm -f "$flag"
  n=$# k=0 pids=
  for script in "$@"; do
    dir=$(dirname -- "$script")
    skip=
    if [ -e "$dir/stop-requested" ] || [ -e "$dir/kill-requested" ]; then skip=asked; fi
    if [ "${SLURM_RESTART_COUNT:-0}" -gt 0 ] && [ -f "$dir/run.json" ] &&
      ! grep -q '"status": *"\(requeued\|running\|starting\)"' "$dir/run.json"; then skip=ended; fi
    if [ -z "$skip" ]; then
      TRAINDECK_PACKED=$flag TRAINDECK_SLOT=$k/$n /bin/bash "$script" \
        >> "$dir/slurm-${SLURM_ARRAY_JOB_ID}_$SLURM_ARRAY_TASK_ID.out" 2>&1 &
      pids="$pids $!"
    fi
    k=$((k + 1))
  done
  code=0
  for pid in $pids; do wait "$pid" || code=$?; done
  if [ -e "$flag" ]; then
    rm -f "$flag"
    scontrol requeue "$SLURM_JOB_ID"
  fi
  exit "$code"
}
)SH";

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

QStringList slurmJobOptions(const SlurmPlace& place, int nodes, QString* error) {
  QStringList sbatch{"--nodes=" + QString::number(nodes), "--ntasks-per-node=1", "--requeue", "--open-mode=append",
                     "--signal=USR2@" + QString::number(place.signalSeconds)};
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
  return sbatch;
}

QStringList slurmPackedOptions(const QStringList& options, int pack, QString* error) {
  static const QRegularExpression kCount(QStringLiteral("^--(cpus-per-task|gpus-per-node)=(\\d+)$"));
  static const QRegularExpression kMem(QStringLiteral("^--mem=(\\d+)([KMGT]?)$"));
  static const QStringList kUndivided{"gres",        "gpus",   "gpus-per-task", "gpus-per-socket",
                                      "mem-per-gpu", "ntasks", "exclusive"};
  QStringList out;
  bool cpus = false;
  for (const QString& option : options) {
    if (option.startsWith(QLatin1String("--nodes=")) && option != QLatin1String("--nodes=1")) {
      *error = batchTr("only trials of one node each share an allocation; this one asks for %1").arg(option);
      return {};
    }
    const QString name = option.mid(2).section('=', 0, 0);
    if (kUndivided.contains(name) || (name == QLatin1String("ntasks-per-node") && option != "--ntasks-per-node=1")) {
      *error = batchTr("%1 is not divided among trials that share an allocation").arg(option);
      return {};
    }
    if (const QRegularExpressionMatch m = kCount.match(option); m.hasMatch()) {
      cpus = cpus || m.captured(1) == QLatin1String("cpus-per-task");
      out << QStringLiteral("--%1=%2").arg(m.captured(1)).arg(m.captured(2).toLongLong() * pack);
    } else if (const QRegularExpressionMatch mem = kMem.match(option); mem.hasMatch()) {
      out << QStringLiteral("--mem=%1%2").arg(mem.captured(1).toLongLong() * pack).arg(mem.captured(2));
    } else {
      out << option;
    }
  }
  if (!cpus) out << QStringLiteral("--cpus-per-task=%1").arg(pack);  // a core each at least
  return out;
}

QString slurmPackRefusal(const SlurmPlace& place, int nodes, int pack) {
  QString error;
  const QStringList options = slurmJobOptions(place, nodes, &error);
  if (error.isEmpty()) slurmPackedOptions(options, pack, &error);
  return error;
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
  QString refused;
  const QStringList sbatch = QStringList{"--job-name=" + jobName,
                                         "--output=\"" + QString(start.runDir).replace('%', "%%") + "/slurm-%j.out\""} +
                             slurmJobOptions(place, start.nodes, &refused);
  if (!refused.isEmpty()) {
    *error = refused;
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
  const int pack = std::max(1, start.pack);
  const auto members = start.memberScripts.size();
  const auto tasks = (members + pack - 1) / pack;
  QStringList resources = sbatchOptionsOf(firstMemberScript, /*forArray=*/true);
  if (pack > 1) {
    resources = slurmPackedOptions(resources, pack, error);
    if (resources.isEmpty()) return {};
  }
  // A task's output is named by its id as the run records it (ID_t, slurm-ID_t.out: the run's
  // own file, copied home with it), not by the task's own job number.
  const QString output = pack > 1 ? QStringLiteral("/pack-%A_%a.out") : QStringLiteral("/%a/slurm-%A_%a.out");
  QString text = pack > 1 ? QStringLiteral(
                                "#!/bin/bash\n# A TrainDeck job array: task t runs the batch scripts of "
                                "its runs at once, in one allocation (packTrials).\n")
                          : QStringLiteral(
                                "#!/bin/bash\n# A TrainDeck job array: task k runs the batch script of run "
                                "k, kept in its run folder.\n");
  const QStringList options =
      QStringList{"--job-name=" + jobName,
                  "--array=0-" + QString::number(tasks - 1) + '%' + QString::number(start.throttle),
                  "--output=\"" + QString(start.arrayDir).replace('%', "%%") + output + "\""} +
      resources;
  for (const QString& option : options) text += "#SBATCH " + option + "\n";
  text += "# shellcheck disable=SC2016  # the runs' scripts are single-quoted words: nothing in them expands\nset -u\n";
  if (pack > 1) text += QString::fromUtf8(kPackTrialsFunction);
  text += "case \"${SLURM_ARRAY_TASK_ID:-}\" in\n";
  for (qsizetype t = 0; t < tasks; ++t) {
    QStringList scripts;
    for (qsizetype k = t * pack; k < std::min(members, (t + 1) * pack); ++k)
      scripts << shellQuote(start.memberScripts[k]);
    text +=
        QStringLiteral("  %1) %2 %3 ;;\n").arg(t).arg(pack > 1 ? "packTrials" : "exec /bin/bash", scripts.join(' '));
  }
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
