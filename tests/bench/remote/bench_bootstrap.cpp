// The bootstrap of a remote run by step, against the tests' sshd (real OpenSSH on 127.0.0.1)
// through a socat ProxyCommand: `traindeck --launch` of the tiny demo job twice into a fresh
// work folder, cold (the trainer's sources uploaded and built there) and cached (nothing built,
// nothing uploaded). Each step's time comes from the "[step] ... (t s)" lines --launch prints,
// up to "[following]" (the run started there). Then `traindeck --continue` of a stopped run onto
// the same host wiped (a fresh runtime), with the trainer brought home and with a cold build,
// timed to its first new step. One job on two hosts: its cached launch, and how fast a node
// killed on one host takes the job down on both. Last, checkpoint sync: MB/s and how far the
// copy here lags.
// Prints figures; asserts nothing. Takes the cold build's minutes (5-7 on 2 cores).
#include <algorithm>

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QMap>
#include <QProcess>
#include <QRegularExpression>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QThread>
#include <csignal>
#include <cstdio>

#include "remote_record.h"
#include "sshd_server.h"

using traindeck::test::SshdServer;

namespace {

struct Timed {
  QVector<QPair<QString, double>> steps;  // name, seconds it took
  double launchedAt = 0, total = 0;
  double firstNewStepAt = -1;  // wall seconds until the progress line of a step past `after`
  int exitCode = -1;
};

// Runs one launch (or continue); the step times are the gaps between the "[step] ... (t s)"
// lines, and the first new step's time is when its "step N/M" line came (read as it comes).
Timed launch(const QStringList& args, qint64 after = 0) {
  Timed t;
  QProcess p;
  QElapsedTimer clock;
  clock.start();
  p.start(TRAINDECK_BIN, args);
  QStringList lines;
  const QRegularExpression progress(QStringLiteral("^step ([0-9]+)/"));
  while (p.state() != QProcess::NotRunning || p.bytesAvailable() > 0 || p.canReadLine()) {
    p.waitForReadyRead(50);
    p.setReadChannel(QProcess::StandardError);
    while (p.canReadLine()) {
      const QString line = QString::fromUtf8(p.readLine()).trimmed();
      lines << line;
      const QRegularExpressionMatch m = progress.match(line);
      if (t.firstNewStepAt < 0 && m.hasMatch() && m.captured(1).toLongLong() > after)
        t.firstNewStepAt = static_cast<double>(clock.elapsed()) / 1000.0;
    }
    if (p.state() == QProcess::NotRunning && !p.canReadLine()) {
      lines << QString::fromUtf8(p.readAllStandardError()).split('\n');
      break;
    }
    if (clock.elapsed() > 30 * 60 * 1000) p.kill();
  }
  p.waitForFinished(10000);
  t.total = static_cast<double>(clock.elapsed()) / 1000.0;
  t.exitCode = p.exitCode();
  const QRegularExpression step(QStringLiteral("^\\[([a-z ]+)\\].*\\(([0-9.]+) s\\)$"));
  QString last;
  double lastAt = 0;
  for (const QString& line : lines) {
    const QRegularExpressionMatch m = step.match(line.trimmed());
    if (!m.hasMatch()) continue;
    const double at = m.captured(2).toDouble();
    if (!last.isEmpty()) t.steps.push_back({last, at - lastAt});
    last = m.captured(1);
    lastAt = at;
  }
  t.launchedAt = lastAt;  // "[following]": the run goes on there
  return t;
}

void report(const char* what, const Timed& t) {
  std::printf("%s (exit %d): %.1f s until the run was started there; first new step after %.1f s; %.1f s in all\n",
              what, t.exitCode, t.launchedAt, t.firstNewStepAt, t.total);
  QMap<QString, double> byName;
  for (const auto& [name, seconds] : t.steps) byName[name] += seconds;
  for (auto it = byName.cbegin(); it != byName.cend(); ++it)
    std::printf("  %-12s %8.2f s\n", qPrintable(it.key()), it.value());
}

QStringList completeHere(const QString& runDir) {
  QStringList out;
  for (const QString& name : QDir(runDir + "/checkpoints").entryList({"step-*"}, QDir::Dirs, QDir::Name))
    if (QFileInfo::exists(runDir + "/checkpoints/" + name + "/COMPLETE")) out << name;
  return out;
}

double median(QVector<double> v) {
  if (v.isEmpty()) return -1;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Checkpoint sync while a bigger model trains (4 layers x 256: ~40 MB a checkpoint with AdamW's
// state) for 90 s, a checkpoint every 50 steps: the copies' MB/s as the job says them, and how
// long each checkpoint took from complete there to complete here (or was skipped for a newer one).
void checkpointSync(QStringList args, const QString& work) {
  args.removeLast();
  args << "schedule.max_steps=1000000"
       << "--set"
       << "model.n_layer=4"
       << "--set"
       << "model.n_head=4"
       << "--set"
       << "model.n_embd=256"
       << "--set"
       << "checkpoint.every=50"
       << "--set"
       << "checkpoint.keep=3";
  QProcess p;
  p.start(TRAINDECK_BIN, args);
  p.waitForReadyRead(60000);
  const QString runDir = QString::fromUtf8(p.readLine()).trimmed();
  const QString there = work + "/runs/" + QFileInfo(runDir).fileName();
  QMap<QString, double> seenThere, seenHere;
  QByteArray err;
  QElapsedTimer clock;
  clock.start();
  while (clock.elapsed() < 90000 && p.state() == QProcess::Running) {
    p.waitForReadyRead(250);
    err += p.readAllStandardError();
    const double now = static_cast<double>(clock.elapsed()) / 1000.0;
    for (const QString& name : completeHere(there))
      if (!seenThere.contains(name)) seenThere[name] = now;
    for (const QString& name : completeHere(runDir))
      if (!seenHere.contains(name)) seenHere[name] = now;
  }
  QProcess stop;
  stop.start(TRAINDECK_BIN, {"--stop", runDir, "--batch"});
  stop.waitForFinished(300000);
  p.kill();
  p.waitForFinished(5000);
  const QStringList lines = QString::fromUtf8(err + p.readAllStandardError()).split('\n');
  QVector<double> rates, lags;
  const QRegularExpression copied(QStringLiteral("is here: ([0-9.]+) MB in ([0-9.]+) s \\(([0-9.]+) MB/s\\)"));
  double mb = 0;
  for (const QString& line : lines)
    if (const QRegularExpressionMatch m = copied.match(line); m.hasMatch()) {
      rates << m.captured(3).toDouble();
      mb = m.captured(1).toDouble();
    }
  int skipped = 0;
  for (auto it = seenThere.cbegin(); it != seenThere.cend(); ++it) {
    if (seenHere.contains(it.key()))
      lags << seenHere[it.key()] - it.value();
    else
      ++skipped;
  }
  std::printf(
      "checkpoint sync (%.1f MB a checkpoint, %d made there in 90 s): %lld copies, median %.1f MB/s; "
      "from complete there to complete here median %.1f s, max %.1f s; %d skipped for a newer one\n",
      mb, static_cast<int>(seenThere.size()), static_cast<long long>(rates.size()), median(rates), median(lags),
      lags.isEmpty() ? -1.0 : *std::max_element(lags.begin(), lags.end()), skipped);
}

int freePort() {
  QTcpServer probe;
  return probe.listen(QHostAddress::LocalHost, 0) ? static_cast<int>(probe.serverPort()) : 0;
}

int trainRecords(const QString& runDir) {
  QFile f(runDir + "/metrics.jsonl");
  return f.open(QIODevice::ReadOnly) ? static_cast<int>(f.readAll().count("\"kind\":\"train\"")) : 0;
}

int trainerProcesses(const QString& remoteRuns) {
  QProcess pgrep;
  pgrep.start("pgrep", {"-f", "traindeck-train (run|worker) .*" + remoteRuns});
  pgrep.waitForFinished(5000);
  return static_cast<int>(QString::fromUtf8(pgrep.readAllStandardOutput()).split('\n', Qt::SkipEmptyParts).size());
}

// One job on two hosts (a second sshd sharing the work folder, so nothing is built): the cached
// launch to its first step, beside one host's; then node 1's supervisor killed on its host,
// three times: how long until no trainer process is left on either host, and until the
// launcher has said the run failed.
void twoHosts(QStringList args, const SshdServer& first, const QString& work, const QString& localDir) {
  SshdServer second;
  if (const QString error = second.start(); !error.isEmpty()) {
    std::printf("two hosts: cannot run a second sshd: %s\n", qPrintable(error));
    return;
  }
  QFile key(first.clientKey() + ".pub"), authorized(second.path("authorized_keys"));
  key.open(QIODevice::ReadOnly);
  authorized.open(QIODevice::Append);
  authorized.write(key.readAll());
  authorized.close();
  const QString knownHosts = localDir + "/known_hosts_two";
  first.writeKnownHosts(knownHosts + ".a");
  second.writeKnownHosts(knownHosts + ".b");
  QFile a(knownHosts + ".a"), b(knownHosts + ".b"), both(knownHosts);
  a.open(QIODevice::ReadOnly);
  b.open(QIODevice::ReadOnly);
  both.open(QIODevice::WriteOnly);
  both.write(a.readAll() + b.readAll());
  both.close();
  args[1] = first.spec() + "," + second.spec();
  args[args.indexOf("--known-hosts") + 1] = knownHosts;
  args.remove(args.indexOf("--proxy-command"), 2);
  args << "--node-address"
       << "127.0.0.1"
       << "--set"
       << "strategy.kind=ddp"
       << "--set"
       << "strategy.master_port=" + QString::number(freePort());
  report("cached launch on two hosts", launch(args));

  QVector<double> down, said;
  for (int round = 0; round < 3; ++round) {
    QStringList longer = args;
    longer << "--set"
           << "schedule.max_steps=1000000"
           << "--set"
           << "strategy.master_port=" + QString::number(freePort());
    QProcess p;
    p.start(TRAINDECK_BIN, longer);
    p.waitForReadyRead(60000);
    const QString runDir = QString::fromUtf8(p.readLine()).trimmed();
    QElapsedTimer wait;
    wait.start();
    while (trainRecords(runDir) < 3 && wait.elapsed() < 120000) p.waitForFinished(200);
    traindeck::RemoteRecord record;
    const qint64 pid = traindeck::readRemoteRecord(runDir + "/nodes/node-1", &record) ? record.pid : 0;
    const QString remoteRuns = work + "/runs/" + QFileInfo(runDir).fileName();
    if (pid <= 0 || trainerProcesses(remoteRuns) < 4) {
      std::printf("two hosts: the run did not train on both (%s)\n", p.readAllStandardError().right(2000).constData());
      p.kill();
      return;
    }
    QElapsedTimer since;
    ::kill(static_cast<pid_t>(pid), SIGKILL);
    since.start();
    while (trainerProcesses(remoteRuns) > 0 && since.elapsed() < 60000) QThread::msleep(20);
    down << static_cast<double>(since.elapsed());
    p.waitForFinished(60000);
    said << static_cast<double>(since.elapsed());
  }
  std::printf(
      "node 1 killed on its host (3 times): no trainer process left on either host after median %.0f ms (max %.0f); "
      "the launcher said the run failed after median %.0f ms (max %.0f)\n",
      median(down), *std::max_element(down.begin(), down.end()), median(said),
      *std::max_element(said.begin(), said.end()));
}

}  // namespace

int main(int argc, char** argv) {
  QCoreApplication app(argc, argv);
  if (const QString missing = SshdServer::missingPackage(); !missing.isEmpty()) {
    std::printf("install %s to run this benchmark\n", qPrintable(missing));
    return 0;
  }
  qunsetenv("SSH_AUTH_SOCK");
  SshdServer server;
  if (const QString error = server.start(); !error.isEmpty()) {
    std::printf("cannot run sshd here: %s\n", qPrintable(error));
    return 1;
  }
  QTemporaryDir local, remote;
  const QString knownHosts = local.filePath("known_hosts");
  server.writeKnownHosts(knownHosts);
  QProcess make;
  make.start("sh", {QStringLiteral(TRAINDECK_TEST_DATA_DIR) + "/cli/make_tiny_job.sh", TRAINDECK_TRAIN_BIN,
                    local.filePath("job")});
  if (!make.waitForFinished(120000) || make.exitCode() != 0) {
    std::printf("could not make the tiny job\n");
    return 1;
  }
  const QStringList args{"--launch",
                         server.spec(),
                         "--config",
                         local.filePath("job/job.yaml"),
                         "--identity",
                         server.clientKey(),
                         "--known-hosts",
                         knownHosts,
                         "--proxy-command",
                         server.proxyCommand(local.filePath("proxy.pid")),
                         "--batch",
                         "--runs-root",
                         local.filePath("runs"),
                         "--remote-dir",
                         remote.filePath("work"),
                         "--set",
                         "schedule.max_steps=5"};
  qputenv("XDG_CACHE_HOME", local.filePath("cache").toUtf8());  // where built trainers come home
  report("cold launch", launch(args));
  report("cached launch", launch(args));
  twoHosts(args, server, remote.filePath("work"), local.path());

  // Continue on another host: a run stopped at step 10 (its checkpoint is here), its host then
  // wiped (a fresh runtime), continued there: once with the trainer brought home (uploaded, not
  // built), once with nothing kept here (built again). "First new step" is step 11 shown here.
  const auto continueFresh = [&](const char* what, bool dropKept) {
    QStringList first = args;
    first.removeLast();
    first << "schedule.max_steps=20"
          << "--set"
          << "checkpoint.every=10"
          << "--stop-at"
          << "10";
    QProcess stopped;
    stopped.start(TRAINDECK_BIN, first);
    stopped.waitForFinished(30 * 60 * 1000);
    const QString runDir = QString::fromUtf8(stopped.readAllStandardOutput()).split('\n').value(0).trimmed();
    QDir(remote.filePath("work")).removeRecursively();
    if (dropKept) QDir(local.filePath("cache")).removeRecursively();
    QStringList again = args.mid(0, args.indexOf("--runs-root"));
    again[0] = "--continue";
    again[1] = runDir;
    again[2] = "--on";
    again[3] = server.spec();
    again << "--remote-dir" << remote.filePath("work");
    report(what, launch(again, 10));
  };
  continueFresh("continue on a fresh runtime, trainer brought home", false);
  continueFresh("continue on a fresh runtime, cold build", true);
  checkpointSync(args, remote.filePath("work"));
  return 0;
}
