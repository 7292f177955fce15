// The run processes of a remote run (run_process.h): a supervisor on an SSH host, followed by pid,
// start time and boot id (Stop and Kill are the helper's `signal`, refused there when the pid now
// names another process), and a folder only watched (an exported script started there by hand:
// nothing to stop; over when its run.json says so). remoteRunProcess picks the kind from
// remote.json's record, in this one place; a Slurm job is slurm_job_process.h's. GUI thread.
#pragma once

#include <QPointer>
#include <memory>

#include "remote_host.h"
#include "remote_record.h"
#include "run_process.h"
#include "slurm_queue.h"

namespace traindeck {

// `host` and `record` are the job's and outlive the process; `localRunDir` is the mirror.
std::unique_ptr<RunProcess> remoteRunProcess(RemoteHost* host, const RemoteRecord* record, const QString& localRunDir,
                                             SlurmQueues* queues);

class RemoteSupervisorProcess : public RunProcess {
  Q_OBJECT
 public:
  RemoteSupervisorProcess(RemoteHost* host, const RemoteRecord* record, QObject* parent = nullptr);
  bool lives(bool supervisorSeenAlive) const override { return supervisorSeenAlive; }
  void stop() override;
  void kill() override;
  QString verdictReason(const RunEnd& end) const override;
  QString neverStartedReason(const QString& supervisorSaid) const override;

 private:
  void signalSupervisor(const QString& signal);
  QPointer<RemoteHost> m_host;
  const RemoteRecord* m_record;
};

class WatchedProcess : public RunProcess {
  Q_OBJECT
 public:
  explicit WatchedProcess(const RemoteRecord* record, QObject* parent = nullptr);
  bool lives(bool) const override { return false; }
  void stop() override;
  void kill() override;
  QString stopRefusal() const override;
  QString verdictReason(const RunEnd&) const override { return {}; }
  QString neverStartedReason(const QString&) const override { return {}; }
  bool isOurs() const override { return false; }

 private:
  const RemoteRecord* m_record;
};

}  // namespace traindeck
