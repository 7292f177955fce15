// Following a job from the terminal: its steps with their times, its output, the link, and a
// progress line per step on stderr; Ctrl-C detaches (the run goes on).
#include "remote_cli_follow.h"

#include <csignal>
#include <cstdio>
#include <memory>

#include <unistd.h>

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QTimer>

#include "runs/run_summary.h"

namespace traindeck {

namespace {

volatile std::sig_atomic_t g_interrupted = 0;

void onInterrupt(int) {
  g_interrupted = 1;
}

}  // namespace

void say(const QString& line) {
  std::fprintf(stderr, "%s\n", qPrintable(line));
}

void detachOnInterrupt() {
  std::signal(SIGINT, onInterrupt);
}

bool interrupted() {
  return g_interrupted != 0;
}

// A question on the terminal; only "y" or "yes" is yes. No terminal: no.
bool askYesOnTerminal(const QString& question) {
  if (::isatty(STDIN_FILENO) == 0) return false;
  std::fprintf(stderr, "%s [y/N] ", qPrintable(question));
  char answer[16] = {};
  if (std::fgets(answer, sizeof answer, stdin) == nullptr) return false;
  const QString a = QString::fromLatin1(answer).trimmed().toLower();
  return a == "y" || a == "yes";
}

// Follows `job` to its end, printing its steps, output and progress on stderr.
int follow(Job* job) {
  const QString runDir = job->runDir();
  // Each step with the seconds since the start, so a slow host shows where the time goes; on
  // several hosts, each line says its node.
  auto clock = std::make_shared<QElapsedTimer>();
  clock->start();
  const auto sayStep = [clock](const QString& node, const QString& step, const QString& detail) {
    const QString at = QString::number(static_cast<double>(clock->elapsed()) / 1000.0, 'f', 1);
    say(node + (detail.isEmpty() ? QStringLiteral("[%1] (%2 s)").arg(step, at)
                                 : QStringLiteral("[%1] %2 (%3 s)").arg(step, detail, at)));
  };
  if (!job->hosts().isEmpty()) {
    const bool several = job->hosts().size() > 1;
    const auto node = [several](int r) { return several ? QStringLiteral("node %1").arg(r) : QString(); };
    QObject::connect(job, &Job::stepStarted, job, [sayStep, node](int r, const QString& step, const QString& detail) {
      sayStep(node(r).isEmpty() ? QString() : node(r) + " ", step, detail);
    });
    QObject::connect(job, &Job::outputLine, job, [node](int r, const QString& line) {
      say("  " + (node(r).isEmpty() ? QString() : node(r) + ": ") + line);
    });
    // The end of the start: the run goes on there and is followed from here.
    QObject::connect(job, &Job::stateChanged, job, [clock, once = std::make_shared<bool>(false)](Job::State state) {
      if (state != Job::State::Running || *once) return;
      *once = true;
      say(QStringLiteral("[following] (%1 s)").arg(static_cast<double>(clock->elapsed()) / 1000.0, 0, 'f', 1));
    });
    QObject::connect(job, &Job::linkTextChanged, job, [](const QString& text) { say("link: " + text); });
  }
  int exitCode = 1;
  bool refused = false;  // the start ended before it changed anything: its reason is all there is to say
  QObject::connect(job, &Job::failedToStart, qApp, [&refused, runDir](const QString& reason) {
    if (reason == readRunSummary(runDir).exitReason) return;  // said with the run's status below
    say(QStringLiteral("Not started: %1").arg(reason));
    refused = true;
  });
  QObject::connect(job, &Job::finished, qApp, [&exitCode, &refused, runDir] {
    if (refused) return QCoreApplication::exit(exitCode = 1);
    const RunSummary summary = readRunSummary(runDir);
    say(QStringLiteral("run %1: %2%3")
            .arg(summary.id, summary.statusName(),
                 summary.exitReason.isEmpty() ? QString() : " (" + summary.exitReason + ")"));
    exitCode = summary.hasStatus(RunStatus::Finished) || summary.hasStatus(RunStatus::Stopped) ? 0 : 1;
    QCoreApplication::exit(exitCode);
  });
  QTimer progress;
  qint64 lastStep = -1;
  QObject::connect(&progress, &QTimer::timeout, qApp, [&] {
    if (g_interrupted) {
      say(QStringLiteral("Detached; the run goes on. Follow it again with: traindeck --attach %1").arg(runDir));
      QCoreApplication::exit(130);
      return;
    }
    const RunSummary s = readRunSummary(runDir);
    if (s.step == lastStep || s.step == 0) return;
    lastStep = s.step;
    say(QStringLiteral("step %1/%2 loss %3").arg(s.step).arg(s.totalSteps).arg(s.lastLoss, 0, 'f', 4));
  });
  progress.start(200);
  if (!job->isActive()) return job->state() == Job::State::Finished ? 1 : 0;
  return QCoreApplication::exec();
}

}  // namespace traindeck
