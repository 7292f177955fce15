// The bootstrap of a remote run by step, against the tests' sshd (real OpenSSH on 127.0.0.1)
// through a socat ProxyCommand: `traindeck --launch` of the tiny demo job twice into a fresh
// work folder, cold (the trainer's sources uploaded and built there) and cached (nothing built,
// nothing uploaded). Each step's time comes from the "[step] ... (t s)" lines --launch prints,
// up to "[following]" (the run started there).
// Prints figures; asserts nothing. Takes the cold build's minutes (5-7 on 2 cores).
#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QMap>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <cstdio>

#include "sshd_server.h"

using traindeck::test::SshdServer;

namespace {

struct Timed {
  QVector<QPair<QString, double>> steps;  // name, seconds it took
  double launchedAt = 0, total = 0;
  int exitCode = -1;
};

// Runs one launch; the step times are the gaps between the "[step] ... (t s)" lines.
Timed launch(const QStringList& args) {
  Timed t;
  QProcess p;
  p.start(TRAINDECK_BIN, args);
  QElapsedTimer clock;
  clock.start();
  p.waitForFinished(30 * 60 * 1000);
  t.total = static_cast<double>(clock.elapsed()) / 1000.0;
  t.exitCode = p.exitCode();
  const QRegularExpression step(QStringLiteral("^\\[([a-z ]+)\\].*\\(([0-9.]+) s\\)$"));
  QString last;
  double lastAt = 0;
  for (const QString& line : QString::fromUtf8(p.readAllStandardError()).split('\n')) {
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
  std::printf("%s launch (exit %d): %.1f s until the run was started there; %.1f s with its 5 steps\n", what,
              t.exitCode, t.launchedAt, t.total);
  QMap<QString, double> byName;
  for (const auto& [name, seconds] : t.steps) byName[name] += seconds;
  for (auto it = byName.cbegin(); it != byName.cend(); ++it)
    std::printf("  %-12s %8.2f s\n", qPrintable(it.key()), it.value());
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
  report("cold", launch(args));
  report("cached", launch(args));
  return 0;
}
