#include "slurm_job_state.h"

#include <QCoreApplication>
#include <QStringList>

namespace traindeck {

namespace {

QString stateTr(const char* text) {
  return QCoreApplication::translate("SlurmJobState", text);
}

// squeue's states that still hold or wait for nodes (man squeue, JOB STATE CODES).
bool isActiveState(const QString& state) {
  static const QStringList active{"PENDING",   "RUNNING",   "COMPLETING", "CONFIGURING", "REQUEUED",
                                  "REQUEUE_FED", "REQUEUE_HOLD", "RESIZING", "SUSPENDED", "STOPPED",
                                  "SIGNALING", "STAGE_OUT", "RESV_DEL_HOLD", "SPECIAL_EXIT"};
  return active.contains(state);
}

}  // namespace

bool SlurmJobState::active() const {
  return isActiveState(state);
}

bool SlurmJobState::neverRuns() const {
  if (state != QLatin1String("PENDING")) return false;
  return reason == QLatin1String("PartitionConfig") || reason == QLatin1String("PartitionNodeLimit") ||
         reason == QLatin1String("PartitionTimeLimit") || reason == QLatin1String("DependencyNeverSatisfied") ||
         reason == QLatin1String("BadConstraints") || reason == QLatin1String("InvalidQOS") ||
         reason == QLatin1String("InvalidAccount");
}

QString slurmReasonInWords(const QString& reason) {
  if (reason == QLatin1String("None") || reason.isEmpty()) return stateTr("waiting to be scheduled");
  if (reason == QLatin1String("Resources")) return stateTr("waiting for resources");
  if (reason == QLatin1String("Priority")) return stateTr("waiting behind jobs of higher priority");
  if (reason == QLatin1String("BeginTime")) return stateTr("waiting for its start time");
  if (reason == QLatin1String("Dependency")) return stateTr("waiting for the jobs it depends on");
  // A job array's task held back by its throttle (--array=...%N): N of its tasks are running.
  if (reason == QLatin1String("JobArrayTaskLimit")) return stateTr("waiting for its turn in its job array");
  if (reason == QLatin1String("DependencyNeverSatisfied")) return stateTr("it depends on a job that can no longer run");
  // "ReqNodeNotAvail, UnavailableNodes:n[1-2]": drained, down or reserved nodes, named.
  if (reason.startsWith(QLatin1String("ReqNodeNotAvail"))) {
    const qsizetype at = reason.indexOf(QLatin1String("UnavailableNodes:"));
    const QString nodes = at < 0 ? QString() : reason.mid(at + 17).trimmed();
    return nodes.isEmpty() ? stateTr("the nodes it needs are not available")
                           : stateTr("the nodes it needs are not available (drained, down or reserved: %1)").arg(nodes);
  }
  if (reason == QLatin1String("PartitionConfig"))
    return stateTr("the partition can never give it what it asks for (nodes, GPUs, time)");
  if (reason == QLatin1String("PartitionNodeLimit")) return stateTr("it asks for more nodes than the partition has");
  if (reason == QLatin1String("PartitionTimeLimit")) return stateTr("it asks for more time than the partition allows");
  if (reason == QLatin1String("PartitionDown")) return stateTr("the partition is down");
  if (reason == QLatin1String("PartitionInactive")) return stateTr("the partition is inactive");
  if (reason == QLatin1String("BadConstraints")) return stateTr("no node meets its constraints");
  if (reason == QLatin1String("InvalidQOS")) return stateTr("the QOS is not valid for this account");
  if (reason == QLatin1String("InvalidAccount")) return stateTr("the account is not valid");
  if (reason.startsWith(QLatin1String("JobHeld"))) return stateTr("held (scontrol release lets it go)");
  if (reason.startsWith(QLatin1String("QOSMax")) || reason.startsWith(QLatin1String("QOSGrp"))) {
    if (reason.contains(QLatin1String("GRES"))) return stateTr("your QOS allows no more GPUs now");
    if (reason.contains(QLatin1String("Node"))) return stateTr("your QOS allows no more nodes now");
    if (reason.contains(QLatin1String("Cpu"))) return stateTr("your QOS allows no more CPUs now");
    if (reason.contains(QLatin1String("Job"))) return stateTr("your QOS allows no more jobs now");
    return stateTr("your QOS allows no more now");
  }
  if (reason.startsWith(QLatin1String("AssocGrp")) || reason.startsWith(QLatin1String("AssocMax")))
    return stateTr("your account's limits allow no more now");
  return reason;
}

QString SlurmJobState::describe(bool requeued) const {
  const QString at = start.isValid() ? start.toString(QStringLiteral("HH:mm")) : QString();
  if (state == QLatin1String("PENDING")) {
    if (requeued)
      return at.isEmpty() ? stateTr("requeued: %1").arg(slurmReasonInWords(reason))
                          : stateTr("requeued, eligible at %1").arg(at);
    if (reason == QLatin1String("BeginTime") && !at.isEmpty()) return stateTr("pending, eligible at %1").arg(at);
    QString words = stateTr("pending: %1").arg(slurmReasonInWords(reason));
    if (!at.isEmpty() && (reason == QLatin1String("Resources") || reason == QLatin1String("Priority")))
      words += stateTr(" (expected to start at %1)").arg(at);
    return words;
  }
  if (state == QLatin1String("RUNNING")) return stateTr("running on %1").arg(nodes);
  if (state == QLatin1String("COMPLETING")) return stateTr("ending on %1").arg(nodes);
  if (state == QLatin1String("REQUEUED") || state == QLatin1String("REQUEUE_HOLD") ||
      state == QLatin1String("REQUEUE_FED"))
    return at.isEmpty() ? stateTr("requeued") : stateTr("requeued, eligible at %1").arg(at);
  if (state == QLatin1String("CONFIGURING")) return stateTr("starting on %1").arg(nodes);
  if (state == QLatin1String("SUSPENDED")) return stateTr("suspended on %1").arg(nodes);
  return state.toLower();
}

QMap<QString, SlurmJobState> parseSlurmQueue(const QString& text) {
  QMap<QString, SlurmJobState> jobs;
  for (const QString& line : text.split('\n', Qt::SkipEmptyParts)) {
    if (!line.startsWith(QLatin1String("job "))) continue;
    const QStringList fields = line.mid(4).split('|');
    if (fields.size() < 5 || fields[0].isEmpty()) continue;
    SlurmJobState job;
    job.id = fields[0].trimmed();
    job.state = fields[1].trimmed();
    job.reason = fields[2].trimmed();
    job.nodes = fields[3].trimmed();
    job.start = QDateTime::fromString(fields[4].trimmed(), Qt::ISODate);  // "N/A": invalid
    jobs.insert(job.id, job);
  }
  return jobs;
}

}  // namespace traindeck
