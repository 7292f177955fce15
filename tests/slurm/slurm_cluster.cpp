// The cluster's files (slurm.conf, the munge key) and its daemons, in the order they need each
// other: munged, then slurmctld, then the two slurmd.
#include "slurm_cluster.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTcpServer>
#include <QThread>

namespace traindeck::test {

namespace {

int freePort() {
  QTcpServer probe;
  return probe.listen(QHostAddress::LocalHost, 0) ? static_cast<int>(probe.serverPort()) : 0;
}

QString lastLines(const QString& path, int count) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  const QStringList lines = QString::fromUtf8(f.readAll()).split('\n', Qt::SkipEmptyParts);
  return lines.mid(std::max<qsizetype>(0, lines.size() - count)).join('\n');
}

}  // namespace

SlurmCluster::SlurmCluster() = default;

SlurmCluster::~SlurmCluster() {
  stop();
}

QString SlurmCluster::missingPackage() {
  const std::pair<const char*, const char*> needed[] = {
      {"munged", "munge"}, {"slurmctld", "slurmctld"}, {"slurmd", "slurmd"}, {"sbatch", "slurm-client"}};
  for (const auto& [program, package] : needed)
    if (QStandardPaths::findExecutable(program, {"/usr/sbin", "/usr/bin", "/sbin", "/bin"}).isEmpty()) return package;
  return {};
}

QString SlurmCluster::writeFiles() {
  const QDir d(m_dir.path());
  for (const char* sub : {"munge", "state", "spool/n1", "spool/n2", "log"})
    if (!d.mkpath(sub)) return QStringLiteral("cannot make %1 in %2").arg(sub, d.path());
  // munged refuses a socket folder others may write, and a key others may read.
  QFile::setPermissions(d.filePath("munge"), QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner | QFile::ReadGroup |
                                                 QFile::ExeGroup | QFile::ReadOther | QFile::ExeOther);
  QFile key(d.filePath("munge.key"));
  if (!key.open(QIODevice::WriteOnly)) return "cannot write the munge key";
  QByteArray bytes(1024, Qt::Uninitialized);
  for (char& b : bytes) b = static_cast<char>(QRandomGenerator::global()->bounded(256));
  key.write(bytes);
  key.close();
  key.setPermissions(QFile::ReadOwner);
  const int controller = freePort(), n1 = freePort(), n2 = freePort();
  if (controller == 0 || n1 == 0 || n2 == 0 || n1 == n2 || controller == n1 || controller == n2)
    return "no free loopback ports";
  const QString user = qEnvironmentVariable("USER", "root");
  const QString t = d.path();
  QFile file(conf());
  if (!file.open(QIODevice::WriteOnly)) return "cannot write slurm.conf";
  file.write(QStringLiteral(
                 "ClusterName=traindeck-test\n"
                 "SlurmctldHost=localhost\n"
                 "SlurmctldPort=%1\n"
                 "SlurmUser=%2\n"
                 "AuthType=auth/munge\n"
                 "AuthInfo=socket=%3/munge/munge.sock,cred_expire=10\n"
                 "CredType=cred/munge\n"
                 "ProctrackType=proctrack/linuxproc\n"
                 "TaskPlugin=task/none\n"
                 "JobAcctGatherType=jobacct_gather/none\n"
                 "AccountingStorageType=accounting_storage/none\n"
                 "SelectType=select/cons_tres\n"
                 "SelectTypeParameters=CR_Core\n"
                 // A job requeued, or waiting behind another, starts as soon as it may: the main
                 // scheduler every 2 s and backfill every 1 s, not Slurm's 60 s and 30 s.
                 "SchedulerParameters=sched_interval=2,bf_interval=1\n"
                 "ReturnToService=2\n"
                 "MailProg=/bin/true\n"
                 "StateSaveLocation=%3/state\n"
                 "SlurmdSpoolDir=%3/spool/%n\n"
                 "SlurmctldPidFile=%3/slurmctld.pid\n"
                 "SlurmdPidFile=%3/slurmd-%n.pid\n"
                 "SlurmctldLogFile=%3/log/slurmctld.log\n"
                 "SlurmdLogFile=%3/log/slurmd-%n.log\n"
                 "NodeName=n1 NodeHostname=localhost NodeAddr=127.0.0.1 Port=%4 CPUs=2 RealMemory=4000 State=UNKNOWN\n"
                 "NodeName=n2 NodeHostname=localhost NodeAddr=127.0.0.1 Port=%5 CPUs=2 RealMemory=4000 State=UNKNOWN\n"
                 "PartitionName=debug Nodes=n1,n2 Default=YES MaxTime=INFINITE State=UP\n")
                 .arg(controller)
                 .arg(user, t)
                 .arg(n1)
                 .arg(n2)
                 .toUtf8());
  // Slurm 23.02 and later load a cgroup plugin in slurmd unless told not to; this machine (a
  // container, a bubblewrap root) may have no cgroup file system. 22.05 neither needs nor knows it.
  if (slurmVersion() >= 2302) {
    QFile cgroup(d.filePath("cgroup.conf"));
    if (!cgroup.open(QIODevice::WriteOnly) || cgroup.write("CgroupPlugin=disabled\n") < 0)
      return "cannot write cgroup.conf";
  }
  return {};
}

int SlurmCluster::slurmVersion() {
  QProcess v;
  v.start("slurmd", {"-V"});
  if (!v.waitForFinished(10000)) return 0;
  // "slurm 24.11.5" or "slurm-wlm 22.05.8"
  const QRegularExpressionMatch m =
      QRegularExpression("(\\d+)\\.(\\d+)").match(QString::fromUtf8(v.readAllStandardOutput()));
  return m.hasMatch() ? m.captured(1).toInt() * 100 + m.captured(2).toInt() : 0;
}

std::unique_ptr<QProcess> SlurmCluster::spawn(const QString& program, const QStringList& args) {
  auto p = std::make_unique<QProcess>();
  p->setProcessEnvironment(environment());
  p->setProcessChannelMode(QProcess::MergedChannels);
  p->setStandardOutputFile(
      m_dir.filePath("log/" + QFileInfo(program).fileName() + "-" + QString::number(m_daemons.size()) + ".out"));
  p->start(program, args);
  return p;
}

QString SlurmCluster::start(int timeoutMs) {
  if (const QString missing = missingPackage(); !missing.isEmpty()) return "install " + missing;
  if (!m_dir.isValid()) return "no temporary folder";
  if (const QString why = writeFiles(); !why.isEmpty()) return why;
  const QString t = m_dir.path();
  m_daemons.push_back(spawn("munged", {"-F", "--key-file=" + t + "/munge.key", "--socket=" + t + "/munge/munge.sock",
                                       "--pid-file=" + t + "/munged.pid", "--log-file=" + t + "/log/munged.log",
                                       "--seed-file=" + t + "/munge.seed", "--force"}));
  QElapsedTimer clock;
  clock.start();
  while (!QFileInfo::exists(t + "/munge/munge.sock") && clock.elapsed() < 10000) QThread::msleep(20);
  if (!QFileInfo::exists(t + "/munge/munge.sock")) return "munged did not start:\n" + logs();
  m_daemons.push_back(spawn("slurmctld", {"-D", "-f", conf()}));
  for (const char* node : {"n1", "n2"}) m_daemons.push_back(spawn("slurmd", {"-D", "-f", conf(), "-N", node}));
  while (clock.elapsed() < timeoutMs) {
    bool ok = false;
    const QString states = run("sinfo", {"-h", "-N", "-o", "%N %t"}, &ok, 5000);
    if (ok && states.count("idle") == 2) return {};
    for (const auto& d : m_daemons)
      if (d->state() == QProcess::NotRunning) return d->program() + " ended:\n" + logs();
    QThread::msleep(100);
  }
  return "the nodes were not idle within " + QString::number(timeoutMs / 1000) + " s:\n" + logs();
}

void SlurmCluster::stop() {
  // slurmd first (their jobs end with them), then the controller, then munged.
  for (auto it = m_daemons.rbegin(); it != m_daemons.rend(); ++it) {
    (*it)->terminate();
    if (!(*it)->waitForFinished(5000)) {
      (*it)->kill();
      (*it)->waitForFinished(2000);
    }
  }
  m_daemons.clear();
}

QProcessEnvironment SlurmCluster::environment() const {
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert("SLURM_CONF", conf());
  return env;
}

QString SlurmCluster::run(const QString& program, const QStringList& args, bool* ok, int timeoutMs) const {
  QProcess p;
  p.setProcessEnvironment(environment());
  p.start(program, args);
  const bool ended = p.waitForFinished(timeoutMs);
  if (ok != nullptr) *ok = ended && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
  m_lastError = QString::fromUtf8(p.readAllStandardError()).trimmed();
  return QString::fromUtf8(p.readAllStandardOutput());
}

bool SlurmCluster::inQueue(const QString& id) const {
  bool ok = false;
  const QString listed = run("squeue", {"-h", "-j", id}, &ok).trimmed();
  return ok ? !listed.isEmpty() : !m_lastError.contains("Invalid job id");
}

QString SlurmCluster::jobField(const QString& details, const QString& name) {
  return QRegularExpression("\\b" + QRegularExpression::escape(name) + "=(\\S+)").match(details).captured(1);
}

int SlurmCluster::restarts(const QString& id) const {
  bool ok = false;
  const int count = jobField(jobDetails(id), "Restarts").toInt(&ok);
  return ok ? count : -1;
}

bool SlurmCluster::requeueOnce(const QString& id) const {
  if (restarts(id) > 0) return true;
  bool ok = false;
  run("scontrol", {"requeue", id}, &ok);
  return ok || m_lastError.contains("pending execution");
}

bool SlurmCluster::cancelOnce(const QString& id) const {
  const QString state = run("squeue", {"-h", "-t", "all", "-j", id, "-o", "%T"}).trimmed();
  if (!state.isEmpty() && state != QLatin1String("PENDING") && state != QLatin1String("RUNNING")) return true;
  bool ok = false;
  run("scancel", {id}, &ok);
  return ok;
}

QString SlurmCluster::logs() const {
  QStringList out;
  for (const QString& name : QDir(m_dir.filePath("log")).entryList(QDir::Files))
    out << "== " + name + "\n" + lastLines(m_dir.filePath("log/" + name), 8);
  return out.join('\n');
}

}  // namespace traindeck::test
