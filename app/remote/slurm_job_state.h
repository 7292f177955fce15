// A Slurm job as `squeue` shows it (the helper's `queue` lines "job ID|STATE|REASON|NODES|START"),
// and what the app says of it: pending reasons in words ("waiting for resources", "your QOS allows
// no more GPUs", "requeued, eligible at 10:42"), whether the job still holds or waits for nodes,
// and whether it can never run. No I/O.
#pragma once

#include <QDateTime>
#include <QMap>
#include <QString>

namespace traindeck {

struct SlurmJobState {
  QString id;
  QString state;   // PENDING, RUNNING, COMPLETING, REQUEUED, COMPLETED, CANCELLED, ...
  QString reason;  // squeue's %r: None, Resources, Priority, QOSMaxGRESPerUser, BeginTime, ...
  QString nodes;   // n[1-2], once running
  QDateTime start; // squeue's %S: the expected start while pending; invalid: N/A

  // Still in the queue or on nodes: its trainer may still write (the run is not over).
  bool active() const;
  // Pending for a reason that never goes away by waiting (PartitionConfig, a dependency that can
  // never be met, a node that does not exist).
  bool neverRuns() const;
  // One line for the run list and the Monitor header: "pending: waiting for resources",
  // "running on n[1-2]", "requeued, eligible at 10:42". `requeued`: the run said it was
  // (Slurm shows a requeued job as pending, for its begin time).
  QString describe(bool requeued = false) const;
};

// Why a job waits, in words; the reason itself when the app has no words for it.
QString slurmReasonInWords(const QString& reason);

// The helper's `queue` answer: lines "job ID|STATE|REASON|NODES|START", by id. Other lines are
// not jobs and are skipped.
QMap<QString, SlurmJobState> parseSlurmQueue(const QString& text);

}  // namespace traindeck
