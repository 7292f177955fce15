#include "slurm_login_node.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>

#include "remote_helper_answers.h"
#include "remote_record.h"
#include "trainer_cache.h"

namespace traindeck::test {

namespace {
QString readText(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}
}  // namespace

QString SlurmLoginNode::start(int maxSteps, int checkpointEvery) {
  if (const QString missing = SlurmCluster::missingPackage(); !missing.isEmpty())
    return "install " + missing + " (packaging/install-deps.sh does) to run the Slurm tests";
  if (const QString missing = SshdServer::missingPackage(); !missing.isEmpty())
    return "install " + missing + " to run the SSH tests";
  qunsetenv("SSH_AUTH_SOCK");
  if (const QString why = m_cluster.start(); !why.isEmpty()) return why;
  // Only a login shell knows the cluster, from the account's profile, as at a site: its own home.
  QFile profile(m_remoteHome.filePath(".bash_profile"));
  if (!profile.open(QIODevice::WriteOnly) ||
      profile.write(("export SLURM_CONF='" + m_cluster.conf() + "'\n").toUtf8()) < 0 || !profile.flush())
    return "could not write " + profile.fileName();
  m_server.setExtraConfig("SetEnv HOME=" + m_remoteHome.path() + "\n");
  if (const QString why = m_server.start(); !why.isEmpty()) return why;
  m_knownHosts = m_local.filePath("known_hosts");
  if (!m_server.writeKnownHosts(m_knownHosts)) return "could not write " + m_knownHosts;
  QProcess make;
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert("MAX_STEPS", QString::number(maxSteps));
  env.insert("CHECKPOINT_EVERY", QString::number(checkpointEvery));
  make.setProcessEnvironment(env);
  make.start("sh", {QStringLiteral(TRAINDECK_TEST_DATA_DIR) + "/cli/make_tiny_job.sh", TRAINDECK_TRAIN_BIN,
                    m_local.filePath("job")});
  if (!make.waitForFinished(120000) || make.exitCode() != 0) return "make_tiny_job.sh failed";
  QDir().mkpath(work());
  return keepTrainerForTheHost();
}

QString SlurmLoginNode::keepTrainerForTheHost() {
  QProcess probe;  // as the login node's sessions run it: that home, its login profile
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert("HOME", m_remoteHome.path());
  probe.setProcessEnvironment(env);
  probe.start("sh", {QStringLiteral(TRAINDECK_REMOTE_PAYLOAD) + "/traindeck-remote.sh", "probe", work()});
  if (!probe.waitForFinished(60000)) return "the probe did not end";
  RemoteHost::ExecResult result;
  result.status = probe.exitCode();
  result.out = probe.readAllStandardOutput();
  result.err = probe.readAllStandardError();
  const ProbeAnswer answer = ProbeAnswer::from(result);
  if (!answer.ok()) return "the probe failed: " + answer.why();
  const QString hash = readText(QStringLiteral(TRAINDECK_REMOTE_PAYLOAD) + "/trainer-sources.sha256").left(64);
  const TrainerSignature signature = trainerSignature(answer.probe, hash);
  const TrainerCache cache(m_local.filePath("cache/traindeck/trainers"));
  const QString partial = cache.partialFor(signature, "test");
  QFile::remove(partial);
  if (!QFile::copy(TRAINDECK_TRAIN_BIN, partial)) return "could not copy the trainer to " + partial;
  return cache.keep(signature, "test");
}

SlurmLoginNode::Launched SlurmLoginNode::launch(const QStringList& sets, const QString& workDir,
                                                const QStringList& moreArgs) {
  QStringList args{"--launch",    m_server.spec(),  "--config",       m_local.filePath("job/job.yaml"),
                   "--identity",  m_server.clientKey(), "--known-hosts", m_knownHosts,
                   "--batch",     "--runs-root",    m_local.filePath("runs"), "--remote-dir",
                   workDir.isEmpty() ? work() : workDir, "--set", "target.kind=slurm", "--set",
                   "strategy.nnodes=2", "--set",    "strategy.kind=ddp"};
  for (const QString& kv : sets) args << "--set" << kv;
  return start(args + moreArgs);
}

SlurmLoginNode::Launched SlurmLoginNode::continueRun(const QString& runDir, const QStringList& moreArgs) {
  return start(QStringList{"--continue", runDir, "--on", m_server.spec(), "--identity", m_server.clientKey(),
                           "--known-hosts", m_knownHosts, "--batch", "--remote-dir", work()} +
               moreArgs);
}

SlurmLoginNode::Launched SlurmLoginNode::start(const QStringList& args) {
  Launched l;
  l.process = std::make_unique<QProcess>();
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert("XDG_CACHE_HOME", m_local.filePath("cache"));
  l.process->setProcessEnvironment(env);
  l.process->start(TRAINDECK_BIN, args);
  if (!l.process->waitForStarted(5000)) return l;
  while (!l.process->canReadLine() && l.process->state() == QProcess::Running) l.process->waitForReadyRead(1000);
  l.runDir = QString::fromUtf8(l.process->readLine()).trimmed();
  return l;
}

int SlurmLoginNode::finish(Launched& l, int timeoutMs, QString* err) {
  QElapsedTimer clock;
  clock.start();
  while (l.process->state() != QProcess::NotRunning && clock.elapsed() < timeoutMs) l.process->waitForFinished(1000);
  *err = QString::fromUtf8(l.process->readAllStandardError());
  if (qEnvironmentVariableIsSet("SLURM_RUN_TEST_LOG")) {
    QFile log(qEnvironmentVariable("SLURM_RUN_TEST_LOG"));
    if (log.open(QIODevice::Append)) log.write(err->toUtf8());
  }
  if (l.process->state() != QProcess::NotRunning) {
    l.process->kill();
    l.process->waitForFinished(5000);
    return -1;
  }
  return l.process->exitStatus() == QProcess::NormalExit ? l.process->exitCode() : -1;
}

QString SlurmLoginNode::jobIdOf(const QString& runDir) const {
  RemoteRecord record;
  return readRemoteRecord(runDir, &record) ? record.slurmJobId : QString();
}

QString SlurmLoginNode::remoteRunDir(const QString& mirror) const {
  return work() + "/runs/" + QFileInfo(mirror).fileName();
}

}  // namespace traindeck::test
