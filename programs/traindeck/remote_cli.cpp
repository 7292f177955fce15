#include "remote_cli.h"

#include <csignal>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include <unistd.h>

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QTimer>

#include "check_ssh_cli.h"
#include "config/config_io.h"
#include "job_controller.h"
#include "runs/run_summary.h"
#include "runs_root.h"
#include "ssh_cli_options.h"

namespace traindeck {

namespace {

volatile std::sig_atomic_t g_interrupted = 0;

void onInterrupt(int) {
  g_interrupted = 1;
}

void say(const QString& line) {
  std::fprintf(stderr, "%s\n", qPrintable(line));
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

}  // namespace

bool isRemoteCliCommand(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    for (const char* name : {"--launch", "--watch", "--attach", "--stop", "--fetch", "--continue"})
      if (std::strcmp(argv[i], name) == 0 ||
          (std::strncmp(argv[i], name, std::strlen(name)) == 0 && argv[i][std::strlen(name)] == '='))
        return true;
  return false;
}

int runRemoteCli(int argc, char** argv) {
  QCoreApplication app(argc, argv);
  QCommandLineParser parser;
  const QCommandLineOption launch("launch", "Launch on this host (several, comma-separated: one node each).",
                                  "[user@]host[:port][,...]");
  const QCommandLineOption nodeAddress(
      "node-address", "With --launch on several hosts: the address the nodes reach the first host at.", "ADDR");
  const QCommandLineOption watch("watch", "Mirror a run folder that something else writes on this host.",
                                 "[user@]host[:port]");
  const QCommandLineOption remoteRun("remote-run", "With --watch: the run folder on the host.", "DIR");
  const QCommandLineOption attach("attach", "Follow a remote run again.", "RUN_DIR");
  const QCommandLineOption stop("stop", "Stop a remote run.", "RUN_DIR");
  const QCommandLineOption fetch("fetch", "Copy a remote run's newest complete checkpoint into its mirror.", "RUN_DIR");
  const QCommandLineOption hf("hf", "With --fetch: that checkpoint exported for Hugging Face on the host.");
  const QCommandLineOption continueRun("continue", "Continue an ended remote run on another host.", "RUN_DIR");
  const QCommandLineOption on("on", "With --continue: the host it continues on.", "[user@]host[:port]");
  const QCommandLineOption stopAt("stop-at", "With --launch: the run stops (a checkpoint) after this step.", "STEP");
  const QCommandLineOption goneAfter(
      "gone-after", "After how many seconds unreachable a host's runtime counts as gone (default 1200; 0: never).",
      "SECONDS", "1200");
  const QCommandLineOption config("config", "The job.", "FILE");
  const SshCliOptions ssh;
  const QCommandLineOption runsRoot("runs-root", "Where the mirror goes.", "DIR");
  const QCommandLineOption remoteDir("remote-dir", "The remote work folder.", "DIR");
  const QCommandLineOption set("set", "KEY=VALUE for the trainer (repeat).", "KEY=VALUE");
  const QCommandLineOption installMissing("install-missing",
                                          "Install missing build tools (cmake, g++) on a root host with apt-get.");
  const QCommandLineOption keep(
      "keep-checkpoints", "How many of the run's newest checkpoints are copied here as it trains (default 2; 0: none).",
      "K", "2");
  parser.addOptions({launch, nodeAddress, watch, remoteRun, attach, stop, fetch, hf, continueRun, on, stopAt, goneAfter,
                     config, runsRoot, remoteDir, set, installMissing, keep});
  ssh.addTo(parser);
  const auto usage = [&](const QString& why) {
    std::fprintf(
        stderr,
        "traindeck: %s\nusage: traindeck --launch [user@]host[:port][,...] [--node-address ADDR] --config FILE "
        "[--identity KEY] "
        "[--known-hosts FILE] [--proxy-command CMD] [--batch] [--runs-root DIR] [--remote-dir DIR] "
        "[--install-missing] [--keep-checkpoints K] [--gone-after SECONDS] [--stop-at STEP] "
        "[--set KEY=VALUE]...\n"
        "       traindeck --continue RUN_DIR --on [user@]host[:port] [the same options but --config]\n"
        "       traindeck --watch [user@]host[:port] --remote-run DIR [the same SSH options]\n"
        "       traindeck --attach RUN_DIR [--keep-checkpoints K] | --stop RUN_DIR "
        "[--batch] [--known-hosts FILE]\n"
        "       traindeck --fetch RUN_DIR [--hf] [--batch] [--known-hosts FILE]\n",
        qPrintable(why));
    return 2;
  };
  if (!parser.parse(QCoreApplication::arguments())) return usage(parser.errorText());
  std::signal(SIGINT, onInterrupt);

  JobController::RemoteOptions options;
  options.payloadDir = QDir(QCoreApplication::applicationDirPath()).filePath("../share/traindeck/remote");
  options.knownHostsFile = parser.value(ssh.knownHosts);
  options.sshConfigFile = parser.value(ssh.sshConfig);
  options.workDir = parser.value(remoteDir);
  options.batch = parser.isSet(ssh.batch);
  bool keepOk = false;
  options.checkpointsKeptHere = parser.value(keep).toInt(&keepOk);
  if (!keepOk || options.checkpointsKeptHere < 0) return usage("--keep-checkpoints needs a whole number, 0 or more");
  bool goneOk = false;
  options.goneAfterSeconds = parser.value(goneAfter).toInt(&goneOk);
  if (!goneOk || options.goneAfterSeconds < 0) return usage("--gone-after needs a number of seconds, 0 or more");
  if (!options.batch) options.hostKeyPrompt = askHostKeyOnTerminal;
  if (parser.isSet(installMissing))
    options.installPrompt = [](const QString& question) {
      say(question + " yes (--install-missing)");
      return true;
    };
  else if (!options.batch)
    options.installPrompt = askYesOnTerminal;
  const QString root = parser.isSet(runsRoot) ? QDir(parser.value(runsRoot)).absolutePath() : defaultRunsRoot();
  // The host as the command line names it, with its key and ProxyCommand.
  const auto aimAt = [&](TargetConfig& target, const QString& host) {
    target.kind = TargetKind::Ssh;
    target.host = host.toStdString();
    if (parser.isSet(ssh.identity)) target.identity = parser.value(ssh.identity).toStdString();
    if (parser.isSet(ssh.proxyCommand)) target.proxy_command = parser.value(ssh.proxyCommand).toStdString();
  };
  // A started job's mirror on stdout, then followed to its end.
  const auto followStarted = [](JobController& jobs, const JobController::Started& started) {
    if (!started.error.isEmpty()) {
      say(started.error);
      return 1;
    }
    std::printf("%s\n", qPrintable(started.runDir));
    std::fflush(stdout);
    return follow(jobs.jobFor(started.runDir));
  };

  if (parser.isSet(launch)) {
    if (!parser.isSet(config)) return usage("--launch needs --config FILE");
    const QString configPath = QFileInfo(parser.value(config)).absoluteFilePath();
    // Applied here, before the job's paths are rewritten for the host; not passed again.
    std::vector<std::string> overrides;
    for (const QString& kv : parser.values(set)) overrides.push_back(kv.toStdString());
    LoadedConfig loaded = loadConfigFile(configPath.toStdString(), overrides);
    if (hasErrors(loaded.problems)) {
      for (const Diagnostic& d : loaded.problems) say(QString::fromStdString(d.format(loaded.source)));
      return 1;
    }
    // Several hosts ("a,b"): one node each, node 0 first (target.hosts); one: that host alone.
    TargetConfig named;
    named.kind = TargetKind::Ssh;
    named.hosts = parser.value(launch).toStdString();
    const std::vector<std::string> hosts = nodeHosts(named);
    if (hosts.empty()) return usage("--launch needs a host");
    aimAt(loaded.config.target, QString::fromStdString(hosts.front()));
    loaded.config.target.hosts = hosts.size() > 1 ? named.hosts : std::string();
    if (hosts.size() > 1) loaded.config.strategy.nnodes = static_cast<std::int64_t>(hosts.size());
    if (parser.isSet(nodeAddress)) loaded.config.target.node_address = parser.value(nodeAddress).toStdString();
    QStringList trainerArgs;
    if (parser.isSet(stopAt)) {
      if (parser.value(stopAt).toLongLong() <= 0) return usage("--stop-at needs a step number, 1 or more");
      trainerArgs << "--stop-at" << QString::number(parser.value(stopAt).toLongLong());
    }
    JobController jobs(root, {});
    jobs.setRemoteOptions(options);
    return followStarted(jobs, jobs.start(loaded.config, configPath, {}, trainerArgs));
  }
  if (parser.isSet(continueRun)) {
    if (!parser.isSet(on)) return usage("--continue needs --on [user@]host[:port], the host it continues on");
    const QString runDir = QDir(parser.value(continueRun)).absolutePath();
    TargetConfig target;
    aimAt(target, parser.value(on));
    JobController jobs(QFileInfo(runDir).absolutePath(), {});
    jobs.setRemoteOptions(options);
    return followStarted(jobs, jobs.continueOn(runDir, target));
  }
  if (parser.isSet(watch)) {
    if (!parser.isSet(remoteRun)) return usage("--watch needs --remote-run DIR, the run folder on the host");
    TargetConfig target;
    aimAt(target, parser.value(watch));
    JobController jobs(root, {});
    jobs.setRemoteOptions(options);
    return followStarted(jobs, jobs.watchRemote(target, parser.value(remoteRun)));
  }
  if (parser.isSet(fetch)) {
    const QString runDir = QDir(parser.value(fetch)).absolutePath();
    JobController jobs(QFileInfo(runDir).absolutePath(), {});
    jobs.setRemoteOptions(options);
    QString error;
    RemoteFetch* job = jobs.fetch(runDir, parser.isSet(hf) ? FetchKind::HfExport : FetchKind::Checkpoint, &error);
    if (job == nullptr) {
      say(QStringLiteral("Cannot fetch from %1: %2").arg(runDir, error));
      return 1;
    }
    int code = 1;
    QObject::connect(job, &RemoteFetch::progress, job, [](const QString& file, qint64 done, qint64 total) {
      std::fprintf(stderr, "\r%s: %lld of %lld bytes", qPrintable(file), static_cast<long long>(done),
                   static_cast<long long>(total));
    });
    QObject::connect(job, &RemoteFetch::finished, qApp, [&code](const QString& dir, const QString& why) {
      std::fprintf(stderr, "\n");
      if (why.isEmpty())
        std::printf("%s\n", qPrintable(dir));
      else
        say(QStringLiteral("The fetch failed: %1").arg(why));
      code = why.isEmpty() ? 0 : 1;
      QCoreApplication::exit(code);
    });
    QCoreApplication::exec();
    return code;
  }
  const QString runDir = QDir(parser.isSet(attach) ? parser.value(attach) : parser.value(stop)).absolutePath();
  if (!parser.isSet(attach) && !parser.isSet(stop)) return usage("say --launch, --watch, --attach, --stop or --fetch");
  JobController jobs(QFileInfo(runDir).absolutePath(), {});
  jobs.setRemoteOptions(options);
  if (const QString why = jobs.attach(runDir); !why.isEmpty()) {
    say(QStringLiteral("Cannot follow %1: %2").arg(runDir, why));
    return 1;
  }
  Job* job = jobs.jobFor(runDir);
  std::printf("%s\n", qPrintable(runDir));
  std::fflush(stdout);

  if (const QString why = job->stopRefusal(); parser.isSet(stop) && !why.isEmpty()) {
    say(QStringLiteral("%1: %2").arg(runDir, why));
    return 1;
  }
  if (parser.isSet(stop)) {
    // Once the link is up (the job reads the run), ask for the stop.
    auto* asked = new QTimer(job);
    QObject::connect(asked, &QTimer::timeout, job, [job, asked] {
      if (job->link() != Job::Link::Here && job->link() != Job::Link::Following) return;  // every node's link
      say(QStringLiteral("stopping (every rank saves a checkpoint)"));
      job->stop();
      asked->stop();
    });
    asked->start(100);
  }
  return follow(job);
}

}  // namespace traindeck
