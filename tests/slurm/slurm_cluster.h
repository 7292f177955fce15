// A real Slurm cluster of one machine for the tests: munged, slurmctld and two slurmd (nodes n1 and
// n2 of partition "debug", NodeAddr 127.0.0.1, ports of their own) started in a temporary folder
// as this object's children, in the foreground, without systemd or cgroups (proctrack/linuxproc,
// task/none), with cred_expire=10 so a requeued job starts again within seconds. Ready once sinfo
// says both nodes are idle; stopped (all of it) when this object goes. Needs Debian's slurmctld,
// slurmd, slurm-client and munge (missingPackage() names the one that is not there).
#pragma once

#include <QProcess>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>
#include <memory>
#include <vector>

namespace traindeck::test {

class SlurmCluster {
 public:
  SlurmCluster();
  ~SlurmCluster();

  // The Debian package that is missing, or empty.
  static QString missingPackage();
  // Starts the daemons and waits until both nodes are idle. Empty, or what went wrong (with the
  // daemons' last log lines).
  QString start(int timeoutMs = 30000);
  void stop();

  QString conf() const { return m_dir.filePath("slurm.conf"); }
  QString dir() const { return m_dir.path(); }
  // The environment a client (sbatch, squeue, scontrol) needs: SLURM_CONF.
  QProcessEnvironment environment() const;
  // Runs a client command to its end; its stdout, and *ok (exit 0).
  QString run(const QString& program, const QStringList& args, bool* ok = nullptr, int timeoutMs = 30000) const;
  // Whether squeue still lists job `id`; also while squeue fails for another reason than not
  // knowing the job (a busy slurmctld times out: the job has not left for that).
  bool inQueue(const QString& id) const;
  // What `scontrol show job` says of job `id`; one NAME=VALUE field of that (empty when absent);
  // and how often the job was requeued (its Restarts=; -1 when it does not say).
  QString jobDetails(const QString& id) const { return run("scontrol", {"show", "job", id}); }
  static QString jobField(const QString& details, const QString& name);
  int restarts(const QString& id) const;
  // Asks Slurm to requeue job `id` unless it was requeued already; true once it is (Restarts
  // above 0, or a requeue taken, or answered "pending execution": queued again). Slurm 24.11 may
  // answer "Unexpected message received" while the job's step is being launched and requeue it
  // all the same, so callers ask again until true (QTRY), and never start it a third time.
  bool requeueOnce(const QString& id) const;
  // `scancel ID`, for a QTRY loop: true once the job is cancelled. A busy slurmctld may answer
  // scancel with a timeout and cancel the job all the same (24.11): asked again only while
  // squeue still shows it pending or running.
  bool cancelOnce(const QString& id) const;
  // What the last client command said on stderr.
  QString lastError() const { return m_lastError; }
  // What the daemons logged, their last lines (for failure messages).
  QString logs() const;
  // slurmd's version as major * 100 + minor (2205, 2411), 0 when it does not say.
  static int slurmVersion();

 private:
  QString writeFiles();
  std::unique_ptr<QProcess> spawn(const QString& program, const QStringList& args);

  QTemporaryDir m_dir;
  std::vector<std::unique_ptr<QProcess>> m_daemons;  // munged, slurmctld, slurmd n1, slurmd n2
  mutable QString m_lastError;
};

}  // namespace traindeck::test
