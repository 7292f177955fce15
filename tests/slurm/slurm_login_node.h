// SlurmLoginNode: the test's real Slurm (SlurmCluster: two nodes of this machine) behind the test
// sshd as its login node, a tiny job made here, the trainer of this build kept in the launcher's
// trainer cache under the host's signature (as if brought home from a host like it: nothing is
// compiled there), and `traindeck --launch LOGIN --config JOB --set target.kind=slurm` run as a
// user runs it. For the Slurm run tests and the Slurm benchmark.
#pragma once

#include <QProcess>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>
#include <memory>

#include "slurm_cluster.h"
#include "sshd_server.h"

namespace traindeck::test {

class SlurmLoginNode {
 public:
  struct Launched {
    std::unique_ptr<QProcess> process;
    QString runDir;  // the mirror, the launcher's first line
  };

  // Starts the cluster and the login node, makes the job (MAX_STEPS, CHECKPOINT_EVERY) and keeps
  // the trainer for the host. Empty, or what went wrong.
  QString start(int maxSteps, int checkpointEvery);

  // `traindeck --launch` of the job on 2 nodes (ddp), with more KEY=VALUE settings, into work()
  // or another work folder on the cluster.
  Launched launch(const QStringList& sets, const QString& workDir = {}, const QStringList& moreArgs = {});
  // `traindeck --continue RUN_DIR --on LOGIN` (the run's own Slurm target, the work folder work()).
  Launched continueRun(const QString& runDir, const QStringList& moreArgs = {});
  // Waits for the launcher to end: its exit code (-1: still running, then killed, or crashed) and
  // its stderr (appended to $SLURM_RUN_TEST_LOG when set, for a look).
  static int finish(Launched& l, int timeoutMs, QString* err);

  // `traindeck ARGS` as the launches run it (this fixture's trainer cache); its first line read.
  Launched run(const QStringList& args) { return start(args); }

  QString jobIdOf(const QString& runDir) const;  // remote.json's slurm_job
  QString work() const { return m_remoteHome.filePath("work"); }  // on the "shared file system"
  QString remoteRunDir(const QString& mirror) const;
  QString local(const QString& name) const { return m_local.filePath(name); }
  QString knownHosts() const { return m_knownHosts; }
  SlurmCluster& cluster() { return m_cluster; }
  SshdServer& server() { return m_server; }

 private:
  QString keepTrainerForTheHost();
  Launched start(const QStringList& args);

  SlurmCluster m_cluster;
  SshdServer m_server;
  QTemporaryDir m_local;       // the job, its data, the runs root, the trainer cache
  QTemporaryDir m_remoteHome;  // the cluster's side: the work folder lives here only
  QString m_knownHosts;
};

}  // namespace traindeck::test
