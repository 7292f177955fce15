// bench_slurm: a Slurm run's latencies and its load on the scheduler, on the test's real Slurm
// (two nodes of this machine) behind the test sshd as the login node (SlurmLoginNode):
//   submit → first step: from `traindeck --launch` to the first train record in the mirror (what
//     the chart first draws), the bootstrap included (trainer brought home, data uploaded);
//   requeue → first new step: from `scontrol requeue` to the first train record after the
//     "requeued" event (Slurm's restart delay, cred_expire=10 here, included);
//   run ended -> launcher ended: from run.json's "finished" on the cluster's side to the exit of
//     `traindeck --launch` (the queue asked sooner once the run says it ended; else its 10 s poll);
//   squeue calls per minute through one login node while 10 queued jobs are followed as the app
//     follows them (one SlurmQueue over one connection: one squeue per poll for all), counted by
//     the queue, with slurmctld's own count of job-information requests (sdiag) beside it.
// Prints figures; exits 1 only when the measurement itself could not be made.
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QRegularExpression>
#include <QTest>
#include <cstdio>

#include "remote_host.h"
#include "remote_record.h"
#include "runlog/run_directory.h"
#include "slurm_queue.h"
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

  // Run ended -> launcher ended, on a short run.
  SlurmLoginNode::Launched shortRun = login.launch({"strategy.nproc_per_node=1", "schedule.max_steps=5", "name=bench-end"});
  const RunPaths remote{login.remoteRunDir(shortRun.runDir).toStdString()};
  const auto finished = [&remote] {
    const RunInfoReadResult read = readRunInfo(remote);
    return read.ok() && read.info.status == RunStatus::Finished;
  };
  if (!shortRun.runDir.isEmpty() && waitFor(finished, 300000)) {
    clock.restart();
    const int code = SlurmLoginNode::finish(shortRun, 120000, &err);
    std::printf("  run ended -> launcher ended:        %.1f s (exit %d)\n", clock.elapsed() / 1000.0, code);
  } else {
    std::printf("  run ended -> launcher ended:        the short run never finished\n");
  }
  std::fflush(stdout);

  // squeue's load: 10 jobs in the queue (2 running, 8 pending), followed through one SlurmQueue
  // over one connection to the login node, as the app follows them; its squeue calls counted for
  // a minute, and slurmctld's own count of job-information requests beside it.
  QString helper;
  RemoteRecord record;
  if (readRemoteRecord(run.runDir, &record, nullptr)) helper = record.helper;
  SshTarget target = SshTarget::parse(login.server().spec());
  target.identityFiles << login.server().clientKey();
  target.knownHostsFile = login.knownHosts();
  target.batch = true;
  target.applyDefaults();
  RemoteHost host(target);
  host.connectToHost();
  if (helper.isEmpty() || !waitFor([&host] { return host.isReady(); }, 30000)) {
    std::fprintf(stderr, "bench_slurm: no connection to the login node, or no helper there (%s)\n", qPrintable(helper));
    return 1;
  }
  QStringList jobIds;
  for (int i = 0; i < 10; ++i) {
    bool ok = false;
    const QString id =
        login.cluster().run("sbatch", {"--parsable", "--output=/dev/null", "--wrap", "sleep 600"}, &ok).trimmed();
    if (!ok || id.isEmpty()) {
      std::fprintf(stderr, "bench_slurm: sbatch failed: %s\n", qPrintable(login.cluster().lastError()));
      return 1;
    }
    jobIds << id;
  }
  SlurmQueue queue;
  int answers = 0;
  int statesSeen = 0;
  QObject::connect(&queue, &SlurmQueue::updated, [&](const QMap<QString, SlurmJobState>& jobs) {
    ++answers;
    statesSeen = static_cast<int>(jobs.size());
  });
  const qint64 ctldStart = jobInfoRequests(login);
  const int pollsStart = queue.pollsMade();
  for (const QString& id : jobIds) queue.follow(id, &host, helper);
  QTest::qWait(60000);
  const int polls = queue.pollsMade() - pollsStart;
  const qint64 ctld = ctldStart < 0 ? -1 : jobInfoRequests(login) - ctldStart;
  for (const QString& id : jobIds) login.cluster().run("scancel", {id});

  std::printf("  squeue calls per minute, %lld jobs followed through one login node: %d (%d answers, the last "
              "with %d of the jobs; SlurmQueue polls every %d s at most)\n",
              static_cast<long long>(jobIds.size()), polls, answers, statesSeen, SlurmQueue::kPollMs / 1000);
  if (ctld >= 0)
    std::printf("  slurmctld's job-information requests in that minute: %lld (sdiag)\n", static_cast<long long>(ctld));
  return 0;
}
