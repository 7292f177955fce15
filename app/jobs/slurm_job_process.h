// A Slurm job's run processes (run_process.h): its trainer runs on the cluster's nodes, so the
// login node's SlurmQueue, not a pid, says whether it lives (queued, running, requeued). Stop
// writes the stop-requested marker and sends USR2 to the job's steps (every rank checkpoints; the
// run ends stopped) and cancels the job if it is still there kStopGraceMs later; Kill writes the
// kill-requested marker and cancels it. A job that left the queue, or that Slurm cancelled, is
// dead: the end rule then writes what the trainer could not ("cancelled through Slurm", a node
// failure), also over a "requeued" that never came back. A job pending for a reason that never
// passes is cancelled and said (cannotRun). A run packed with others in one job (a sweep's pack)
// has its own step: it ends when its run says so, while the job lives on. GUI thread.
#pragma once

#include <QPointer>
#include <optional>

#include "remote_host.h"
#include "remote_record.h"
#include "run_process.h"
#include "slurm_queue.h"

namespace traindeck {

class SlurmJobProcess : public RunProcess {
  Q_OBJECT
 public:
  static constexpr int kStopGraceMs = 180000;  // asked to stop, then cancelled
  static constexpr int kQueueSoonMs = 10000;   // its queue asked each second once its run ended

  // `host` and `record` are the job's and outlive this; `queue` is the login node's (none: the
  // job cannot be followed and counts as living).
  SlurmJobProcess(RemoteHost* host, const RemoteRecord* record, const QString& localRunDir, SlurmQueue* queue,
                  QObject* parent = nullptr);
  ~SlurmJobProcess() override;

  bool lives(bool) const override;
  void stop() override;
  void kill() override;
  QStringList ownFiles() const override { return {QStringLiteral("slurm-%1.out").arg(m_record->slurmJobId)}; }
  void follow() override;
  void unfollow() override;
  void runSaysEnded(qint64 endedForMs) override;
  qint64 endGraceMs() const override { return -1; }  // a live job after its verdict is being requeued
  QString verdictReason(const RunEnd& end) const override;
  QString neverStartedReason(const QString& supervisorSaid) const override;

 protected:
  PlaceDeath death() const override;

 private:
  void onQueue(const QMap<QString, SlurmJobState>& jobs);
  void cancel(const QString& runDir);
  QString lastState() const;
  bool packedRunEnded() const;  // a packed run's run.json says it ended (not requeued)  // "completed", "cancelled",
                                // ...: the queue's last word on the job

  QPointer<RemoteHost> m_host;
  const RemoteRecord* m_record;
  QString m_localRunDir;
  QPointer<SlurmQueue> m_queue;
  bool m_following = false;
  std::optional<SlurmJobState> m_job;  // the queue's last word
  bool m_left = false;                 // a poll answered without it: ended and forgotten
};

}  // namespace traindeck
