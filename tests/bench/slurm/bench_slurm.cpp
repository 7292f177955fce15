// bench_slurm: a Slurm run's latencies and its load on the scheduler, on the test's real Slurm
// (two nodes of this machine) behind the test sshd as the login node (SlurmLoginNode):
//   submit → first step: from `traindeck --launch` to the first train record in the mirror (what
//     the chart first draws), the bootstrap included (trainer brought home, data uploaded);
//   requeue → first new step: from `scontrol requeue` to the first train record after the
//     "requeued" event (Slurm's restart delay, cred_expire=10 here, included);
//   squeue calls per minute through one login node while 10 jobs are followed by one JobController
//     (SlurmQueue: one squeue per poll for all), counted by slurmctld itself (sdiag's
//     REQUEST_JOB_INFO), less what the same minute costs with no job followed.
// Prints figures; exits 1 only when the measurement itself could not be made.
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QRegularExpression>
#include <QTest>
#include <cstdio>

#include "config/config_io.h"
#include "job_controller.h"
#include "slurm_login_node.h"

using namespace traindeck;
using traindeck::test::SlurmLoginNode;

namespace {

// The metrics file's lines as they are now.
QStringList metricsLines(const QString& runDir) {
  QFile f(runDir + "/metrics.jsonl");
  return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()).split('\n', Qt::SkipEmptyParts) : QStringList();
}

bool waitFor(const std::function<bool()>& done, int timeoutMs) {
  QElapsedTimer clock;
  clock.start();
  while (!done()) {
    if (clock.elapsed() > timeoutMs) return false;
    QTest::qWait(50);
  }
  return true;
}

// slurmctld's count of job-information requests (what squeue sends), or -1.
qint64 jobInfoRequests(SlurmLoginNode& login) {
  const QString sdiag = login.cluster().run("sdiag", {});
  const QRegularExpressionMatch m = QRegularExpression("REQUEST_JOB_INFO\\s.*count:(\\d+)").match(sdiag);
  return m.hasMatch() ? m.captured(1).toLongLong() : -1;
}

}  // namespace

int main(int argc, char** argv) {
  QCoreApplication app(argc, argv);
  SlurmLoginNode login;
  if (const QString why = login.start(/*maxSteps=*/100000, /*checkpointEvery=*/10); !why.isEmpty()) {
    std::fprintf(stderr, "bench_slurm: %s\n", qPrintable(why));
    return 1;
  }

  // Submit → first step, then requeue → first new step, on one run.
  QElapsedTimer clock;
  clock.start();
  SlurmLoginNode::Launched run = login.launch({"strategy.nproc_per_node=1", "name=bench"});
  const auto trained = [&run] {
    for (const QString& line : metricsLines(run.runDir))
      if (line.contains("\"kind\":\"train\"")) return true;
    return false;
  };
  if (run.runDir.isEmpty() || !waitFor(trained, 300000)) {
    std::fprintf(stderr, "bench_slurm: the run never trained a step\n");
    return 1;
  }
  const double submitToStep = clock.elapsed() / 1000.0;
  waitFor([&run] { return metricsLines(run.runDir).filter("\"kind\":\"train\"").size() >= 25; }, 120000);
  const QString id = login.jobIdOf(run.runDir);
  clock.restart();
  login.cluster().run("scontrol", {"requeue", id});
  const auto trainedAgain = [&run] {
    const QStringList lines = metricsLines(run.runDir);
    qsizetype event = -1;
    for (qsizetype i = 0; i < lines.size(); ++i)
      if (lines[i].contains("requeued by Slurm")) event = i;
    return event >= 0 && !lines.mid(event + 1).filter("\"kind\":\"train\"").isEmpty();
  };
  const bool requeued = waitFor(trainedAgain, 300000);
  const double requeueToStep = clock.elapsed() / 1000.0;
  login.cluster().run("scancel", {id});
  QString err;
  SlurmLoginNode::finish(run, 120000, &err);
  std::printf("bench_slurm (Slurm %d, two nodes of this machine, login over loopback SSH)\n",
              login.cluster().slurmVersion());
  std::printf("  submit -> first step in the mirror: %.1f s (bootstrap, queue and start included)\n", submitToStep);
  if (requeued)
    std::printf("  requeue -> first new step:          %.1f s (Slurm's restart delay included)\n", requeueToStep);
  else
    std::printf("  requeue -> first new step:          none within 300 s\n");
  std::fflush(stdout);

  // squeue's load: a quiet minute, then a minute with 10 jobs followed by one JobController.
  const qint64 quietStart = jobInfoRequests(login);
  QTest::qWait(60000);
  const qint64 quiet = jobInfoRequests(login) - quietStart;
  JobController jobs(login.local("runs"), {});
  JobController::RemoteOptions options;
  options.payloadDir = QStringLiteral(TRAINDECK_REMOTE_PAYLOAD);
  options.knownHostsFile = login.knownHosts();
  options.workDir = login.work();
  options.batch = true;
  options.trainerCacheDir = login.local("cache/traindeck/trainers");
  jobs.setRemoteOptions(options);
  LoadedConfig loaded = loadConfigFile(login.local("job/job.yaml").toStdString(),
                                       {"target.kind=slurm", "strategy.nnodes=2", "strategy.kind=ddp",
                                        "target.host=" + login.server().spec().toStdString(),
                                        "target.identity=" + login.server().clientKey().toStdString()});
  QStringList runDirs;
  for (int i = 0; i < 10; ++i) {
    const JobController::Started started = jobs.start(loaded.config, login.local("job/job.yaml"), {});
    if (!started.error.isEmpty()) {
      std::fprintf(stderr, "bench_slurm: %s\n", qPrintable(started.error));
      return 1;
    }
    runDirs << started.runDir;
  }
  // Those whose job id came back within 4 minutes (ten bootstraps at once share two cores).
  const auto submitted = [&] {
    int n = 0;
    for (const QString& dir : runDirs) n += login.jobIdOf(dir).isEmpty() ? 0 : 1;
    return n;
  };
  waitFor([&] { return submitted() == runDirs.size(); }, 240000);
  const int followed = submitted();
  const qint64 busyStart = jobInfoRequests(login);
  QTest::qWait(60000);
  const qint64 busy = jobInfoRequests(login) - busyStart;
  for (const QString& dir : runDirs) login.cluster().run("scancel", {login.jobIdOf(dir)});

  if (quietStart < 0 || busyStart < 0)
    std::printf("  squeue calls per minute:            unknown (sdiag gave no REQUEST_JOB_INFO count)\n");
  else
    std::printf("  squeue calls per minute, %d jobs followed by one app: %lld (a minute with none: %lld)\n", followed,
                static_cast<long long>(busy - quiet), static_cast<long long>(quiet));
  return 0;
}
